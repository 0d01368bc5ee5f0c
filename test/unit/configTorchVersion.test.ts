// The PyTorch version to assume: pyproject's `target-torch`, the command line's
// --torch-version over it; the selection for a file carries it to the analysis options.
import * as assert from 'assert';
import * as path from 'path';
import { parseArgs, type Invocation } from '../../src/cli/args';
import { parseProjectConfig, selectionForFile } from '../../src/core/config';

const root = path.resolve('/project');

describe('config: the PyTorch version to assume', () => {
  it('reads target-torch as a version string and says what it takes otherwise', () => {
    assert.deepStrictEqual(parseProjectConfig('[tool.device-doctor]\ntarget-torch = "2.6"\n'), { config: { targetTorch: '2.6' }, errors: [] });
    assert.deepStrictEqual(parseProjectConfig('[tool.device-doctor]\ntarget-torch = "2.6.0+cu124"\n').config, { targetTorch: '2.6.0+cu124' });
    for (const bad of ['2.6', '"latest"', '["2.6"]']) {
      const parsed = parseProjectConfig(`[tool.device-doctor]\ntarget-torch = ${bad}\n`);
      assert.deepStrictEqual(parsed.config, {}, bad);
      assert.match(parsed.errors.join(), /target-torch must be a PyTorch version as a string, such as "2\.6"/, bad);
    }
  });

  it('gives a file the pyproject version, and the command line\'s over it; none when neither says', () => {
    const file = path.join(root, 'train.py');
    assert.equal(selectionForFile({ targetTorch: '2.6' }, root, file).torchVersion, '2.6');
    assert.equal(selectionForFile({ targetTorch: '2.6' }, root, file, { torchVersion: '2.5.1' }).torchVersion, '2.5.1');
    assert.equal('torchVersion' in selectionForFile({}, root, file), false);
  });

  it('parses --torch-version, and refuses what is not a version', () => {
    const invocation = parseArgs(['lint', '--torch-version', '2.6.0', 'a.py']);
    assert.equal((invocation as Extract<Invocation, { command: 'lint' }>).options.torchVersion, '2.6.0');
    const bad = parseArgs(['lint', '--torch-version', 'newest']);
    assert.equal(bad.command, 'usage-error');
    assert.match((bad as Extract<Invocation, { command: 'usage-error' }>).message, /--torch-version needs a PyTorch version such as 2\.6 or 2\.6\.0 \(got 'newest'\)/);
  });
});
