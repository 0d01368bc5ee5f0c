// Text from files and tools never reaches the terminal raw: a finding message quotes source
// code, so `s = "\x1b]0;pwned\x07\x1b[2J"` in a file must not retitle and clear the terminal.
import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import type { Finding } from '../../src/core/analysis/types';
import { clearProjectConfigCache } from '../../src/core/config';
import type { DeviceReport } from '../../src/core/devices/report';
import { buildRun } from '../../src/core/bench/compare';
import { makeBenchResult } from '../../src/core/bench/result';
import type { BenchRunResponse } from '../../src/protocol/worker';
import { parseArgs, type LintOptions } from '../../src/cli/args';
import { benchJsonText } from '../../src/cli/commands/bench';
import { formatDetectText } from '../../src/cli/commands/detect';
import { runDoctorCommand, type MachineFacts } from '../../src/cli/commands/doctor';
import { runLintCommand } from '../../src/cli/commands/lint';
import { formatBenchText } from '../../src/cli/formats/benchText';
import { formatJson } from '../../src/cli/formats/json';
import type { LintReport } from '../../src/cli/formats/report';
import { formatSarif } from '../../src/cli/formats/sarif';
import { terminalJson, terminalText } from '../../src/cli/formats/terminalText';
import { formatText } from '../../src/cli/formats/text';
import { memoryIo } from '../../src/cli/io';
import type { Analyzer } from '../../src/cli/lint/lintFiles';
import { runCli } from '../../src/cli/main';

const ATTACK = '\x1b]0;pwned\x07\x1b[2J';
const SHOWN = '\\x1b]0;pwned\\x07\\x1b[2J';
/** Every character a terminal may act on or that reorders text, none of them allowed raw. */
const UNSAFE = /[\x00-\x08\x0a-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/;

/** No control character except the line breaks between lines (and tabs). */
function assertSafe(text: string): void {
  for (const line of text.split('\n')) assert.doesNotMatch(line, UNSAFE, JSON.stringify(line));
}

function messageFinding(message: string): Finding {
  return { code: 'DD003', severity: 'error', related: [], message, range: { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } }, fixes: [] };
}

describe('cli: control characters from files and tools are shown, not obeyed', () => {
  it('terminalText shows C0 (but tab), DEL, C1 and bidi controls as visible escapes, and leaves the rest', () => {
    assert.strictEqual(terminalText(ATTACK), SHOWN);
    assert.strictEqual(terminalText('a\tb\nc\rd\x7f\x9b\u202e\u2066'), 'a\tb\\nc\\rd\\x7f\\x9b\\u202e\\u2066');
    assert.strictEqual(terminalText('café × 41.2 ↔ 🚀 \u200b'), 'café × 41.2 ↔ 🚀 \u200b');
    // Made safe twice, it stays the same.
    assert.strictEqual(terminalText(terminalText(ATTACK)), SHOWN);
  });

  it('lint text: the message and the path, colour or not', () => {
    const report: LintReport = {
      files: [{ path: `/w/${ATTACK}.py`, displayPath: `${ATTACK}.py`, sources: ['x\n'], findings: [{ finding: messageFinding(`'${ATTACK}' \u202eevil`) }], fixed: 0 }],
      problems: [],
      fixMode: false,
    };
    for (const color of [false, true]) {
      const text = formatText(report, { color, quiet: false });
      assert.ok(text.includes(`${SHOWN}.py`), text);
      assert.ok(text.includes(`'${SHOWN}' \\u202eevil`), text);
      // Colour codes are ours; nothing else may be an escape sequence.
      assertSafe(text.replace(/\x1b\[[0-9;]*m/g, ''));
    }
  });

  it('lint JSON and SARIF: JSON.stringify escapes C0 only, so DEL, C1 and bidi controls are escaped too', () => {
    const message = `${ATTACK} \x7f \x9b \u202e`;
    const report: LintReport = {
      files: [{ path: `/w/a\x9b.py`, displayPath: 'a\x9b.py', sources: ['x\n'], findings: [{ finding: messageFinding(message) }], fixed: 0 }],
      problems: [],
      fixMode: false,
    };
    assert.match(JSON.stringify(message), /\x9b/, 'JSON.stringify leaves C1 raw (why terminalJson exists)');
    const json = formatJson(report);
    assertSafe(json);
    assert.strictEqual(JSON.parse(json)[0].message, message);
    assert.strictEqual(JSON.parse(json)[0].filename, '/w/a\x9b.py');
    const sarif = formatSarif(report, { cwd: '/w', version: '0.0.0' });
    assertSafe(sarif);
    assert.strictEqual(JSON.parse(sarif).runs[0].results[0].message.text, message);
    assert.strictEqual(terminalJson('{"a": "\u2069"}'), '{"a": "\\u2069"}');
  });

  describe('through the lint command', () => {
    let tmp: string;
    beforeEach(() => {
      tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'dd-terminal-')));
      clearProjectConfigCache();
    });
    afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

    const quoting: Analyzer = {
      analyzeSource: (source) => [messageFinding(`quoted: ${source.trim()}`)],
      analyzeNotebook: () => [],
    };

    function lintOptions(argv: string[]): LintOptions {
      const invocation = parseArgs(['lint', ...argv]);
      if (invocation.command !== 'lint') throw new Error('not lint');
      return invocation.options;
    }

    it('escapes source text quoted in messages, file names, and reasons on stderr', async function () {
      if (process.platform === 'win32') this.skip(); // control characters are not allowed in Windows file names
      fs.writeFileSync(path.join(tmp, 'quote.py'), `s = "${ATTACK}"\n`);
      fs.writeFileSync(path.join(tmp, `name${ATTACK}.py`), 'x = 1\n');
      fs.writeFileSync(path.join(tmp, `bin\x1b[31m.py`), Buffer.from([0, 1, 2]));
      const io = memoryIo(tmp);
      const status = await runLintCommand(lintOptions(['.']), io, quoting);
      assert.strictEqual(status, 1);
      assertSafe(io.out);
      assertSafe(io.err);
      assert.ok(io.out.includes(`quote.py:1:1: DD003 quoted: s = "${SHOWN}"`), io.out);
      assert.ok(io.out.includes(`name${SHOWN}.py:1:1:`), io.out);
      assert.ok(io.err.includes('error: bin\\x1b[31m.py: binary file'), io.err);
    });

    it('escapes what the person typed when echoing it in a usage error', async () => {
      const io = memoryIo(tmp);
      assert.strictEqual(await runCli(['lint', `--${ATTACK}`], io), 2);
      assertSafe(io.err);
      const missing = memoryIo(tmp);
      assert.strictEqual(await runCli(['lint', `no${ATTACK}.py`], missing), 2);
      assert.strictEqual(missing.err, `error: path not found: no${SHOWN}.py\n`);
    });
  });

  const MIB = 1024 ** 2;
  const report: DeviceReport = {
    schemaVersion: 1,
    host: { platform: 'linux', arch: 'x64', cpu: { model: `CPU${ATTACK}`, cores: 2, flags: ['avx2'] }, memory: { totalBytes: 24 * 1024 ** 3, freeBytes: 20 * 1024 ** 3 } },
    accelerators: [{
      id: 'cuda:0', vendor: 'nvidia', api: 'cuda', name: `GPU${ATTACK}\u202e`, uuid: null, pciBusId: null,
      memory: { totalBytes: 1024 * MIB, usedBytes: 0, freeBytes: null },
      utilizationPercent: null, temperatureC: null, powerW: null, driverVersion: `1\x9b2`, cudaVersion: '13.0', mig: [],
    }],
    torch: { interpreter: `/py${ATTACK}`, error: `Traceback\n${ATTACK}` },
    selected: { device: 'cpu', reason: `because${ATTACK}` },
    problems: [{ source: 'torch', code: 'torch-missing', message: `tool said ${ATTACK}`, hint: `do ${ATTACK}` }],
  };

  it('detect text: device names, versions, the interpreter, tool messages and hints', () => {
    const text = formatDetectText(report);
    assertSafe(text);
    assert.ok(text.includes(`GPU${SHOWN}\\u202e`), text);
    assert.ok(text.includes(`tool said ${SHOWN}`), text);
    assert.ok(text.includes(`Traceback\\n${SHOWN}`), text);
    // The escaped name still lines up with its column.
    const rows = text.split('\n').filter((l) => l.startsWith('  ID') || l.startsWith('  cuda:0'));
    assert.strictEqual(rows[0].indexOf('MEMORY USED'), rows[1].indexOf('0.0/1 GiB'));
  });

  it('doctor text: the device summary, a failed detection and the folder name', async () => {
    const machine: MachineFacts = { nodeVersion: 'v20', platform: 'linux', arch: 'x64', release: '6', cpuModel: `m${ATTACK}`, logicalCores: 1, totalMemoryBytes: 1, freeMemoryBytes: 1 };
    const tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'dd-doctor-terminal-')));
    try {
      const io = memoryIo(tmp);
      await runDoctorCommand(io, {}, { machine, detect: async () => ({ report, interpreters: [] }), quickBench: async () => [`bench ${ATTACK}`] });
      assertSafe(io.out);
      assert.ok(io.out.includes(`tool said ${SHOWN}`), io.out);
      const failed = memoryIo(tmp);
      await runDoctorCommand(failed, {}, {
        machine,
        detect: async () => {
          throw new Error(`nvidia-smi said ${ATTACK}`);
        },
        quickBench: async () => [],
      });
      assertSafe(failed.out);
      assert.ok(failed.out.includes(`Detection failed: nvidia-smi said ${SHOWN}`), failed.out);
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });

  it('bench text and JSON: problem messages and remedies from engines and Python', () => {
    const ok = { status: 'ok' as const, result: makeBenchResult({ plan: { engine: 'torch', device: 'cpu', dtype: 'float32', size: 64 }, timesSec: [0.001, 0.001, 0.001], maxRelError: 1e-7, checkedEntries: 64 }) };
    const failed = { status: 'failed' as const, engine: 'torch' as const, device: 'cuda:0', dtype: 'float32' as const, size: 64, message: `CUDA error ${ATTACK}\x9b`, remedy: `try ${ATTACK}` };
    const run: BenchRunResponse = { ...buildRun([ok, failed]), transfers: [], cancelled: false, selectedDevice: 'cpu', description: `torch ${ATTACK}` };
    const text = formatBenchText(run);
    assertSafe(text);
    assert.ok(text.includes(`CUDA error ${SHOWN}\\x9b`), text);
    assert.ok(text.includes(`fix: try ${SHOWN}`), text);
    const json = benchJsonText(run);
    assertSafe(json);
    assert.strictEqual(JSON.parse(json).problems[0].message, `CUDA error ${ATTACK}\x9b`);
  });
});
