// The real bundle, as a user runs it: `node dist/cli.js ...` in a child process.
import * as assert from 'assert';
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

const ROOT = path.join(__dirname, '..', '..');
const CLI = path.join(ROOT, 'dist', 'cli.js');

function cli(args: string[], cwd: string, env: NodeJS.ProcessEnv = {}) {
  const result = spawnSync(process.execPath, [CLI, ...args], { cwd, encoding: 'utf8', env: { ...process.env, ...env }, timeout: 60_000 });
  return { status: result.status, out: result.stdout, err: result.stderr };
}

describe('cli: the bundled dist/cli.js', function () {
  this.timeout(120_000);
  let tmp: string;

  before(() => {
    const build = spawnSync(process.execPath, [path.join(ROOT, 'esbuild.js')], { cwd: ROOT, encoding: 'utf8' });
    assert.strictEqual(build.status, 0, `npm run build failed:\n${build.stderr}`);
  });

  beforeEach(() => {
    tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'dd-process-')));
  });

  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('is an executable script with a node shebang', () => {
    assert.ok(fs.readFileSync(CLI, 'utf8').startsWith('#!/usr/bin/env node\n'));
    if (process.platform !== 'win32') assert.ok((fs.statSync(CLI).mode & 0o111) !== 0);
  });

  it('prints its version and help', () => {
    const version = cli(['--version'], tmp);
    assert.match(version.out, /^device-doctor \d+\.\d+\.\d+\n$/);
    assert.strictEqual(version.status, 0);
    const help = cli(['lint', '--help'], tmp);
    assert.match(help.out, /^Usage: device-doctor lint/);
    assert.strictEqual(help.status, 0);
  });

  it('exits 0 on clean code, without colour when piped', () => {
    fs.writeFileSync(path.join(tmp, 'ok.py'), 'import torch\nx = torch.zeros(2)\nprint(x.numpy())\n');
    const result = cli(['lint'], tmp, { FORCE_COLOR: '1' });
    assert.strictEqual(result.out, 'All checks passed!\n');
    assert.strictEqual(result.status, 0);
  });

  it('exits 2 on usage errors, with a message and no stack trace', () => {
    for (const args of [['lint', '--bogus'], ['lint', '--format', 'xml'], ['lint', '--select', 'DD999'], ['lint', 'missing.py'], ['frobnicate'], []]) {
      const result = cli(args, tmp);
      assert.strictEqual(result.status, 2, args.join(' '));
      assert.match(result.err, /^error: /, args.join(' '));
      assert.ok(!/^\s+at /m.test(result.err), `stack trace for ${args.join(' ')}`);
    }
  });

  it('prints [] for a clean folder in JSON and a SARIF log in SARIF', () => {
    fs.writeFileSync(path.join(tmp, 'ok.py'), 'x = 1\n');
    assert.strictEqual(cli(['lint', '--format', 'json'], tmp).out, '[]\n');
    const sarif = JSON.parse(cli(['lint', '--format', 'sarif'], tmp).out);
    assert.strictEqual(sarif.version, '2.1.0');
  });

  it('exits 1 with the finding when code has a device mistake (needs the analyzer)', () => {
    fs.writeFileSync(path.join(tmp, 'bad.py'), 'import torch\nt = torch.tensor([1.0]).to("cuda" if torch.cuda.is_available() else "cpu")\nt.numpy()\n');
    const result = cli(['lint'], tmp);
    assert.match(result.out, /^bad\.py:3:\d+: DD003 \[\*\] /m);
    assert.strictEqual(result.status, 1);
    const fixed = cli(['lint', '--ignore', 'DD005', '--fix'], tmp);
    assert.strictEqual(fixed.status, 0);
    assert.strictEqual(fs.readFileSync(path.join(tmp, 'bad.py'), 'utf8'), 'import torch\nt = torch.tensor([1.0]).to("cuda" if torch.cuda.is_available() else "cpu")\nt.cpu().numpy()\n');
  });

  it('names each statement skipped for a syntax error on stderr and reports the findings around it, in every format', () => {
    const broken = [
      'import torch',
      'model = torch.nn.Linear(4, 2).cuda()',
      'a = torch.zeros(4)',
      'model(a)',
      '    (',
      'for step in range(3):',
      '    y = model(torch.randn(4).cuda())',
      '    z = torch.zeros(3, device=',
      '    y.numpy()',
      'b = torch.randn(4)',
      'model(b)',
      '',
    ].join('\n');
    fs.writeFileSync(path.join(tmp, 'broken.py'), broken);
    const cell = (source: string) => ({ cell_type: 'code', metadata: {}, outputs: [], execution_count: null, source });
    const notebook = { cells: [{ cell_type: 'markdown', metadata: {}, source: '# notes' }, cell('import torch\nx = torch.ones(2).cuda()\n'), cell('y = x.sum(\nx.numpy()\n')],
      metadata: { kernelspec: { name: 'python3', language: 'python', display_name: 'Python 3' } }, nbformat: 4, nbformat_minor: 5 };
    fs.writeFileSync(path.join(tmp, 'broken.ipynb'), JSON.stringify(notebook));
    const expectedErr = [
      'broken.ipynb:cell 3:1:1: syntax error; analysis of this statement skipped',
      'broken.py:5:5: syntax error; analysis of this statement skipped',
      'broken.py:8:5: syntax error; analysis of this statement skipped',
      '',
    ].join('\n');
    // About recovery, not portability: the .cuda() calls are shorthand (DD005 is left out).
    const text = cli(['lint', '--ignore', 'DD005'], tmp);
    assert.strictEqual(text.err, expectedErr);
    assert.deepStrictEqual([...text.out.matchAll(/^(broken\.\w+(?::cell \d+)?:\d+):\d+: (DD\d+)/gm)].map((m) => `${m[1]} ${m[2]}`),
      ['broken.ipynb:cell 3:2 DD003', 'broken.py:4 DD001', 'broken.py:9 DD003', 'broken.py:9 DD010', 'broken.py:11 DD001']);
    assert.strictEqual(text.status, 1);
    const json = cli(['lint', '--ignore', 'DD005', '--format', 'json'], tmp);
    assert.strictEqual(json.err, expectedErr);
    assert.strictEqual((JSON.parse(json.out) as unknown[]).length, 5);
    // --fix fixes around the broken statements, adds no syntax error and leaves them as they were.
    const fixed = cli(['lint', '--ignore', 'DD005', '--fix'], tmp);
    assert.strictEqual(fixed.err, expectedErr);
    const after = fs.readFileSync(path.join(tmp, 'broken.py'), 'utf8').split('\n');
    assert.deepStrictEqual([after[2], after[4], after[7], after[8], after[9]],
      ['a = torch.zeros(4, device="cuda")', '    (', '    z = torch.zeros(3, device=', '    y.detach().cpu().numpy()', 'b = torch.randn(4, device="cuda")']);
  });

  it('runs doctor (what npm start runs) and exits 0', () => {
    const result = cli(['doctor'], tmp);
    assert.strictEqual(result.status, 0, result.err);
    assert.match(result.out, /^Device Doctor \d+\.\d+\.\d+\n/);
    assert.match(result.out, /Node\.js {4}v\d+/);
    assert.match(result.out, /No Python files or notebooks here\./);
  });
});
