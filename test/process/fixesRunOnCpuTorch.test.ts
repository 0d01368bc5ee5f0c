// Every fix offered on test/fixtures/fixRuns, applied one at a time and all together
// (`lint --fix`, the real bundle), and the result RUN with Debian's CPU PyTorch: a fix may
// leave an error the script already had (another unfixed call), never a NameError,
// UnboundLocalError or any error it did not have (issue 28 item 1: DD011's fix guarded
// `peak = torch.cuda.max_memory_allocated()` and left the next line's `print(peak)` unbound).
import * as assert from 'assert';
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { initPythonParser } from '../../src/core/analysis';
import { coreFindings } from '../unit/helpers/analysis';
import { applyFix } from '../unit/helpers/fixes';
import { listPythonFiles } from '../unit/helpers/fixtures';

const ROOT = path.join(__dirname, '..', '..');
const CLI = path.join(ROOT, 'dist', 'cli.js');
const CORPUS = path.join(ROOT, 'test', 'fixtures', 'fixRuns');
/** Debian's python3-torch (TESTING.md): a real CPU-only PyTorch. */
const PYTHON = '/usr/bin/python3';
/** Never reached by these tiny scripts; a run still going then hangs. */
const RUN_MS = 60_000;

interface Outcome {
  /** `ok`, or the class of the exception that ended the script (`AssertionError`). */
  error: string;
  output: string;
}

function runScript(file: string): Outcome {
  const result = spawnSync(PYTHON, [file], { cwd: path.dirname(file), encoding: 'utf8', timeout: RUN_MS });
  assert.strictEqual(result.signal, null, `${file} did not finish in ${RUN_MS} ms`);
  if (result.status === 0) return { error: 'ok', output: result.stdout };
  const last = result.stderr.trim().split('\n').pop() ?? '';
  return { error: /^([\w.]+)/.exec(last)?.[1] ?? `exit ${result.status}`, output: `${result.stdout}${result.stderr}` };
}

const UNBOUND = /^(NameError|UnboundLocalError)$/;

describe('fixes keep the script running: every offered fix applied and run with Debian CPU PyTorch', function () {
  this.timeout(600_000);
  const files = listPythonFiles(CORPUS);
  let tmp: string;

  before(async () => {
    await initPythonParser();
    const torch = spawnSync(PYTHON, ['-c', 'import torch'], { encoding: 'utf8' });
    assert.strictEqual(torch.status, 0, `Debian's python3-torch is needed at ${PYTHON}:\n${torch.stderr}`);
    const build = spawnSync(process.execPath, [path.join(ROOT, 'esbuild.js')], { cwd: ROOT, encoding: 'utf8' });
    assert.strictEqual(build.status, 0, `npm run build failed:\n${build.stderr}`);
    tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'dd-fix-runs-')));
  });

  after(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('the corpus has scripts whose fixes are offered', () => {
    assert.ok(files.length >= 6, `${files.length} scripts in ${CORPUS}`);
    const offered = files.filter((f) => coreFindings(fs.readFileSync(f, 'utf8')).some((x) => x.fixes.length > 0));
    assert.strictEqual(offered.length, files.length, 'a script without any fix offered tests nothing');
  });

  for (const file of files) {
    const name = path.basename(file);

    it(`${name}: each fix alone leaves no unbound name and no error the script did not have`, () => {
      const source = fs.readFileSync(file, 'utf8');
      const before = runScript(file);
      const problems: string[] = [];
      coreFindings(source).forEach((finding, i) => finding.fixes.forEach((fix, j) => {
        const fixed = path.join(tmp, `${name.replace(/\.py$/, '')}_${i}_${j}.py`);
        fs.writeFileSync(fixed, applyFix(source, fix));
        const after = runScript(fixed);
        if (UNBOUND.test(after.error) || (after.error !== 'ok' && after.error !== before.error)) {
          problems.push(`${finding.code} line ${finding.range.start.line + 1}, "${fix.title}": ${after.error} (before: ${before.error})\n${after.output}`);
        }
      }));
      assert.deepStrictEqual(problems, []);
    });

    it(`${name}: lint --fix leaves a script that runs to its end on a CPU`, () => {
      const copy = path.join(tmp, name);
      fs.copyFileSync(file, copy);
      const lint = spawnSync(process.execPath, [CLI, 'lint', '--fix', name], { cwd: tmp, encoding: 'utf8', timeout: RUN_MS });
      assert.strictEqual(lint.stderr, '');
      assert.match(lint.stdout, /fixed/);
      const after = runScript(copy);
      assert.strictEqual(after.error, 'ok', `${fs.readFileSync(copy, 'utf8')}\n${after.output}`);
    });
  }
});
