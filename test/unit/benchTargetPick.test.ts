// The engine/device pick of Run Matmul Benchmark as a model (issue 22 item 9): it is shown before
// PyTorch's probe answers, with torch marked as being probed, and updated in place by the full answer.
import * as assert from 'assert';
import type { EngineInfo, EnginesResponse } from '../../src/protocol/worker';
import { PLACEHOLDERS, PROBING_TORCH_PICK, TargetPickModel, type TargetRow } from '../../src/vscode/benchmark/targetPickModel';

function notInstalled(engine: 'tfjs-node' | 'tfjs-node-gpu'): EngineInfo {
  const problem = { status: 'not-installed' as const, engine, device: null, dtype: null, size: null, message: `${engine} is not installed.`, remedy: 'Run Install Native TensorFlow Backend.' };
  return { engine, devices: [], dtypes: ['float32'], problem };
}

/** The worker's withoutTorch answer: the TensorFlow.js engines only. */
const QUICK: EnginesResponse = {
  selectedDevice: 'cpu',
  engines: [notInstalled('tfjs-node-gpu'), notInstalled('tfjs-node'), { engine: 'wasm', devices: ['cpu'], dtypes: ['float32'], problem: null }, { engine: 'js', devices: ['cpu'], dtypes: ['float32'], problem: null }],
};

/** The answer once the probe is in: torch first. */
const FULL: EnginesResponse = { ...QUICK, engines: [{ engine: 'torch', devices: ['cpu'], dtypes: ['float32', 'bfloat16'], problem: null }, ...QUICK.engines] };

function labels(rows: TargetRow[]): string[] {
  return rows.map((row) => ('separator' in row ? `— ${row.separator}` : `${row.label}${row.description ? ` (${row.description})` : ''}`));
}

describe('benchmark target pick: shown before the PyTorch probe answers', () => {
  it('is busy and empty, saying it is looking, before the worker answers at all', () => {
    const model = new TargetPickModel();
    assert.deepStrictEqual([model.rows(), model.busy, model.placeholder], [[], true, PLACEHOLDERS.loading]);
  });

  it('shows the torch row as "probing PyTorch…" above the engines that need no PyTorch, still busy', () => {
    const model = new TargetPickModel();
    model.quickAnswered(QUICK);
    assert.deepStrictEqual(labels(model.rows()), [
      '$(loading~spin) torch (probing PyTorch…)',
      'wasm cpu (float32)',
      'js cpu (float32)',
      '— not available here',
      '$(circle-slash) tfjs-node-gpu (not installed)',
      '$(circle-slash) tfjs-node (not installed)',
    ]);
    assert.deepStrictEqual([model.busy, model.placeholder], [true, PLACEHOLDERS.probing]);
  });

  it('keeps the pick open when the probing torch row is accepted, and runs wasm at once when that is chosen', () => {
    const model = new TargetPickModel();
    model.quickAnswered(QUICK);
    assert.deepStrictEqual(model.accept(PROBING_TORCH_PICK.label), { kind: 'wait' });
    const wasm = model.accept('wasm cpu');
    assert.ok(wasm.kind === 'chosen' && wasm.pick.engine === 'wasm' && wasm.pick.device === 'cpu', JSON.stringify(wasm));
  });

  it('replaces the probing row with torch\'s real devices when the probe answers, and is no longer busy', () => {
    const model = new TargetPickModel();
    model.quickAnswered(QUICK);
    model.fullAnswered(FULL);
    const rows = labels(model.rows());
    assert.strictEqual(rows[0], 'torch cpu (float32, bfloat16)');
    assert.ok(!rows.some((r) => /probing/.test(r)), rows.join('\n'));
    assert.deepStrictEqual([model.busy, model.placeholder], [false, PLACEHOLDERS.ready]);
    const torch = model.accept('torch cpu');
    assert.ok(torch.kind === 'chosen' && torch.pick.device === 'cpu');
    assert.deepStrictEqual(model.accept(PROBING_TORCH_PICK.label), { kind: 'none' }, 'a stale probing row chooses nothing');
  });

  it('ignores a quick answer that arrives after the full one (a cached report answers first)', () => {
    const model = new TargetPickModel();
    model.fullAnswered(FULL);
    model.quickAnswered(QUICK);
    assert.strictEqual(labels(model.rows())[0], 'torch cpu (float32, bfloat16)');
    assert.strictEqual(model.busy, false);
  });

  it('says why torch is missing when the full answer fails after the others are shown, and keeps them choosable', () => {
    const model = new TargetPickModel();
    model.quickAnswered(QUICK);
    assert.strictEqual(model.fullFailed('detect timed out after 120 s'), true, 'the pick stays open');
    const rows = model.rows();
    assert.deepStrictEqual(labels(rows).slice(0, 3), ['wasm cpu (float32)', 'js cpu (float32)', '— not available here']);
    const torch = model.accept('$(circle-slash) torch');
    assert.ok(torch.kind === 'chosen' && torch.pick.device === null);
    assert.strictEqual(torch.pick.unavailable?.message, "PyTorch's engines could not be listed: detect timed out after 120 s");
    assert.strictEqual(model.busy, false);
  });

  it('has nothing to offer when the full answer fails before anything is shown (the caller closes and reports)', () => {
    const model = new TargetPickModel();
    assert.strictEqual(model.fullFailed('the worker crashed'), false);
  });
});
