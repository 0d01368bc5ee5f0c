// `lint --jobs N` checks files in N threads (src/cli/lint/lintThreads.ts): the report must be
// the one a single thread gives, file for file and in the same order, on stdout and stderr,
// across files (an import resolved in another thread's file set) and with the cache on disk.
import * as assert from 'assert';
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { buildDist, CLI_JS as CLI, ROOT } from './workerTestKit';

const RULES = path.join(ROOT, 'test', 'fixtures', 'rules');
const CROSS_FILE = path.join(ROOT, 'test', 'fixtures', 'workspace', 'crossfile');

function lint(args: string[], cwd: string) {
  return spawnSync(process.execPath, [CLI, 'lint', ...args], { cwd, encoding: 'utf8', timeout: 300_000 });
}

describe('cli: lint --jobs (files checked in threads)', function () {
  this.timeout(600_000);
  let tmp: string;

  before(() => {
    buildDist();
    tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'dd-threads-')));
    // Two rules' fixtures (some 150 files), a project whose train.py needs model.py and config.py,
    // and a file that cannot be read as Python text.
    for (const code of ['DD001', 'DD003']) fs.cpSync(path.join(RULES, code), path.join(tmp, code), { recursive: true });
    fs.cpSync(CROSS_FILE, path.join(tmp, 'crossfile'), { recursive: true });
    fs.writeFileSync(path.join(tmp, 'not_text.py'), Buffer.from([0x69, 0x6d, 0xff, 0xfe, 0x00, 0x81]));
  });

  after(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('gives the report of one thread, file for file, with three threads (JSON and text, stdout and stderr, a selection)', () => {
    // The command line's selection and PyTorch version reach every thread.
    for (const args of [['--format', 'json'], ['--format', 'text'], ['--format', 'json', '--select', 'DD003', '--torch-version', '2.6']]) {
      const one = lint(['--no-cache', ...args, '--jobs', '1', '.'], tmp);
      const three = lint(['--no-cache', ...args, '--jobs', '3', '.'], tmp);
      assert.strictEqual(three.stdout, one.stdout, `${args.join(' ')}: stdout`);
      assert.strictEqual(three.stderr, one.stderr, `${args.join(' ')}: stderr`);
      assert.strictEqual(three.status, one.status, `${args.join(' ')}: exit status`);
    }
    const found = JSON.parse(lint(['--no-cache', '--format', 'json', '--jobs', '3', '.'], tmp).stdout) as Array<{ code: string; filename: string; location: { row: number } }>;
    assert.ok(found.length > 100, `${found.length} findings`);
    // train.py's DD001 is certain only through model.py and config.py (cliCrossFile.test.ts).
    assert.ok(found.some((f) => f.code === 'DD001' && f.filename.endsWith(path.join('crossfile', 'train.py')) && f.location.row === 8), 'the cross-file finding');
    assert.match(lint(['--no-cache', '--jobs', '3', '.'], tmp).stderr, /^error: not_text\.py: /m);
  });

  it('fills the cache from threads, and a second run with threads reads it', () => {
    const cache = path.join(tmp, '..', `${path.basename(tmp)}-cache`);
    try {
      const first = lint(['--format', 'json', '--jobs', '2', '--cache-dir', cache, '.'], tmp);
      const entries = fs.readdirSync(cache, { recursive: true }).filter((f) => String(f).endsWith('.json'));
      assert.ok(entries.length > 100, `${entries.length} cache entries`);
      assert.ok(!fs.readdirSync(cache, { recursive: true }).some((f) => String(f).endsWith('.tmp')), 'no half-written entry left');
      const second = lint(['--format', 'json', '--jobs', '2', '--cache-dir', cache, '.'], tmp);
      assert.strictEqual(second.stdout, first.stdout);
      assert.strictEqual(second.stdout, lint(['--format', 'json', '--no-cache', '--jobs', '1', '.'], tmp).stdout);
    } finally {
      fs.rmSync(cache, { recursive: true, force: true });
    }
  });

  it('refuses a --jobs that is no whole number of threads, as a usage error', () => {
    for (const bad of ['0', 'two', '1.5', '65']) {
      const result = lint(['--jobs', bad, '.'], tmp);
      assert.strictEqual(result.status, 2, `--jobs ${bad}`);
      assert.match(result.stderr, /--jobs needs a whole number of threads from 1 to 64/);
    }
  });
});
