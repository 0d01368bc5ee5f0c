// `cuda-only` in [tool.device-doctor]: the project, or the files its globs match, runs only
// where CUDA is, so the rules about code that must also run without it are off there.
import * as assert from 'assert';
import * as path from 'path';
import { parseProjectConfig, selectionForFile } from '../../src/core/config';

const root = path.resolve('/project');
const runs = (config: ReturnType<typeof parseProjectConfig>['config'], file: string) =>
  new Set(selectionForFile(config, root, path.join(root, file)).select);

describe('config: cuda-only', () => {
  it('reads true, false and a list of globs', () => {
    assert.deepStrictEqual(parseProjectConfig('[tool.device-doctor]\ncuda-only = true\n'), { config: { cudaOnly: true }, errors: [] });
    assert.deepStrictEqual(parseProjectConfig('[tool.device-doctor]\ncuda-only = false\n'), { config: { cudaOnly: false }, errors: [] });
    assert.deepStrictEqual(parseProjectConfig('[tool.device-doctor]\ncuda-only = ["bench/**", "kernels/*.py"]\n').config, { cudaOnly: ['bench/**', 'kernels/*.py'] });
  });

  it('says what it takes when given something else, and keeps the valid patterns of a list', () => {
    assert.match(parseProjectConfig('[tool.device-doctor]\ncuda-only = "yes"\n').errors.join(), /cuda-only must be true, false or a list of globs/);
    const parsed = parseProjectConfig('[tool.device-doctor]\ncuda-only = ["bench/**", "{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}"]\n');
    assert.deepStrictEqual(parsed.config, { cudaOnly: ['bench/**'] });
    assert.equal(parsed.errors.length, 1);
  });

  it('turns DD005, DD011 and DD013 off in every file when true, and leaves the other rules on', () => {
    const enabled = runs({ cudaOnly: true }, 'train.py');
    for (const code of ['DD005', 'DD011', 'DD013']) assert.ok(!enabled.has(code as never), code);
    assert.ok(enabled.has('DD001' as never) && enabled.has('DD003' as never));
  });

  it('turns them off only in the files a glob matches', () => {
    assert.ok(!runs({ cudaOnly: ['bench/**'] }, 'bench/matmul.py').has('DD005' as never));
    assert.ok(runs({ cudaOnly: ['bench/**'] }, 'train.py').has('DD005' as never));
    assert.ok(runs({ cudaOnly: false }, 'bench/matmul.py').has('DD005' as never));
  });
});
