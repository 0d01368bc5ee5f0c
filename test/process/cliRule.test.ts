// `device-doctor rule DD003` as a user runs it: the bundled dist/cli.js in a child process,
// from a folder that is not the project, prints the bundled page (offline: no network here).
import * as assert from 'assert';
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { buildDist, CLI_JS, ROOT, tempDir } from './workerTestKit';
import { RULES } from '../../src/core/analysis/catalog';

function cli(args: string[], cwd: string) {
  const result = spawnSync(process.execPath, [CLI_JS, ...args], { cwd, encoding: 'utf8', timeout: 60_000 });
  return { status: result.status, out: result.stdout, err: result.stderr };
}

describe('cli: device-doctor rule', function () {
  this.timeout(120_000);
  let tmp: string;

  before(() => buildDist());
  beforeEach(() => { tmp = tempDir('dd-rule-'); });
  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('prints the rule\'s documentation page, byte for byte, and exits 0', () => {
    const run = cli(['rule', 'DD003'], tmp);
    assert.strictEqual(run.status, 0, run.err);
    assert.strictEqual(run.out, fs.readFileSync(path.join(ROOT, 'docs', 'rules', 'DD003.md'), 'utf8'));
    assert.match(run.out, /^# DD003 numpy-on-accelerator\n/);
    assert.strictEqual(run.err, '');
  });

  it('accepts a lower-case code, and lists every rule without one', () => {
    assert.match(cli(['rule', 'dd010'], tmp).out, /^# DD010 numpy-requires-grad/);
    const list = cli(['rule'], tmp);
    assert.strictEqual(list.status, 0);
    assert.match(list.out, /^DD001 {2}device-mismatch +warning +A CPU value meets/m);
    assert.match(list.out, /^DD005 {2}hard-coded-accelerator +warning +CUDA hard-coded/m);
    assert.strictEqual(list.out.split('\n').filter((l) => /^DD\d{3} /.test(l)).length, RULES.length, 'one line per catalogue entry');
    assert.match(list.out, /^DD007 {2}sync-every-step +information +\[performance, opt-in\] /m);
    assert.match(list.out, /^Opt-in groups \(off by default; every other implemented rule is on\):\n {2}performance: DD007, DD012, DD014 \(.*extend-select = \["performance"\]/m);
  });

  it('prints an opt-in group\'s rules and how to enable them', () => {
    const run = cli(['rule', 'performance'], tmp);
    assert.strictEqual(run.status, 0, run.err);
    assert.match(run.out, /^performance \(opt-in\): .*extend-select/);
    assert.deepStrictEqual(run.out.trim().split('\n').slice(1).map((l) => l.slice(0, 5)), ['DD007', 'DD012', 'DD014']);
  });

  it('refuses an unknown code with exit 2 and says how to list them', () => {
    const run = cli(['rule', 'DD999'], tmp);
    assert.strictEqual(run.status, 2);
    assert.strictEqual(run.out, '');
    assert.strictEqual(run.err, `error: unknown rule code 'DD999' (known: DD001 … ${RULES[RULES.length - 1].code}; 'device-doctor rule' lists them)\n`);
    assert.strictEqual(cli(['rule', 'DD001', 'DD002'], tmp).status, 2);
  });

  it('has help', () => {
    const run = cli(['rule', '--help'], tmp);
    assert.strictEqual(run.status, 0);
    assert.match(run.out, /Usage: device-doctor rule \[code\]/);
  });
});
