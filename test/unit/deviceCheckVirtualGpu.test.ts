// device-check's virtual-gpu judgement without a GPU: findings read from `run --format sarif`,
// where a plain run raised, and the pass rule (agreement, a virtual-only finding, a real-only
// failure, excluded scripts, a virtual run unlike the manifest), and the corpus manifest's checks.
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import { compareScript, excluded, exclusionOf, findingsFromSarif, judgeCorpus, plainOutcome, type PlainOutcome, type VirtualFinding } from '../../scripts/lib/virtualGpuCompare';
import { CorpusError, parseCorpus, readCorpus, targetFile, type ExpectedFinding } from '../../scripts/lib/virtualGpuCorpus';

const CORPUS = path.join(__dirname, '..', 'fixtures', 'virtualGpu');

const frame = (line: number, text: string, cell?: number) => ({
  location: { physicalLocation: { artifactLocation: { uri: 'train%20it.py', uriBaseId: '%SRCROOT%' }, region: { startLine: line } }, message: { text }, ...(cell === undefined ? {} : { properties: { cell } }) },
});
const sarifOf = (...results: unknown[]) => ({ version: '2.1.0', runs: [{ results }] });
const mismatch = {
  ruleId: 'DD001', level: 'error', message: { text: 'Expected all tensors to be on the same device' },
  locations: [{ physicalLocation: { artifactLocation: { uri: 'train%20it.py' }, region: { startLine: 21 } } }],
  stacks: [{ frames: [frame(21, '<module>: the cpu tensor comes from here'), frame(17, 'forward: it meets cuda:0 here'), frame(29, '<module>')] }],
};

const found = (line: number, raisesAt: number, fatal = true, rule = 'DD001'): VirtualFinding => ({
  rule, at: { file: 'a.py', line }, raisesAt: { file: 'a.py', line: raisesAt }, fatal, message: 'm',
});
const expected = (line: number, raisesAt: number, fatal = true, rule = 'DD001'): ExpectedFinding => ({ rule, file: 'a.py', line, raisesAt, fatal });
const raisedAt = (line: number, file = 'a.py'): PlainOutcome => ({ failed: true, at: { file, line }, type: 'RuntimeError', message: 'Expected all tensors to be on the same device' });
const CLEAN: PlainOutcome = { failed: false };

describe('device-check virtual-gpu: reading the two runs', () => {
  it('a mismatch raises at the first frame of its stack that is not its CPU tensor\'s origin; the level says whether it is fatal', () => {
    const warning = { ruleId: 'DD004', level: 'warning', message: { text: 'discarded' }, stacks: [{ frames: [frame(11, '<module>')] }] };
    const [first, second] = findingsFromSarif(sarifOf(mismatch, warning));
    assert.deepStrictEqual(first.at, { file: 'train it.py', line: 21 });
    assert.deepStrictEqual(first.raisesAt, { file: 'train it.py', line: 17 });
    assert.strictEqual(first.fatal, true);
    assert.deepStrictEqual([second.rule, second.at.line, second.raisesAt.line, second.fatal], ['DD004', 11, 11, false]);
  });

  it('a notebook finding keeps its cell index; a finding without a stack falls back to its location; no results is an error', () => {
    const cell = { ruleId: 'DD001', level: 'error', stacks: [{ frames: [frame(1, '<module>: the cpu tensor comes from here', 1), frame(3, '<module>: it meets cuda:0 here', 1)] }] };
    assert.deepStrictEqual(findingsFromSarif(sarifOf(cell))[0].raisesAt, { file: 'train it.py', cell: 1, line: 3 });
    const bare = { ruleId: 'DD003', level: 'error', locations: mismatch.locations };
    assert.deepStrictEqual(findingsFromSarif(sarifOf(bare))[0].raisesAt, { file: 'train it.py', line: 21 });
    assert.throws(() => findingsFromSarif({ runs: [{}] }), /no SARIF results/);
    assert.throws(() => findingsFromSarif(sarifOf({ ruleId: 'DD001', level: 'error' })), /DD001 without a location/);
  });

  it('a plain run is placed at its innermost frame in the corpus, past the harness, <frozen runpy> and torch\'s own frames', () => {
    const frames = [
      { file: '/tmp/harness.py', line: 40 }, { file: '<frozen runpy>', line: 291 },
      { file: '/corpus/pkg/evaluate.py', line: 8 }, { file: '/corpus/pkg/model.py', line: 3 },
      { file: '/usr/lib/python3/dist-packages/torch/nn/modules/linear.py', line: 114 },
    ];
    assert.deepStrictEqual(plainOutcome({ failed: true, type: 'RuntimeError', message: 'x', frames }, '/corpus'), { failed: true, at: { file: 'pkg/model.py', line: 3 }, type: 'RuntimeError', message: 'x' });
    const inCell = plainOutcome({ failed: true, type: 'TypeError', message: 'y', frames: [{ file: '/corpus/nb.ipynb', line: 3, cell: 1 }] }, '/corpus');
    assert.deepStrictEqual(inCell, { failed: true, at: { file: 'nb.ipynb', line: 3, cell: 1 }, type: 'TypeError', message: 'y' });
    assert.strictEqual((plainOutcome({ failed: true, type: 'ImportError', message: 'z', frames: [{ file: '/elsewhere/x.py', line: 1 }] }, '/corpus') as { at: unknown }).at, null);
    assert.deepStrictEqual(plainOutcome({ failed: false }, '/corpus'), CLEAN);
  });
});

describe('device-check virtual-gpu: the pass rule', () => {
  it('agrees when the real run raises where a fatal finding says it does; the findings past it are unreached, not confirmed', () => {
    const result = compareScript('a.py', [expected(9, 15), expected(12, 14)], [found(9, 15), found(12, 14)], raisedAt(14));
    assert.deepStrictEqual([result.verdict, result.confirmed, result.unreached, result.asManifest], ['agrees', 1, 1, true]);
  });

  it('agrees when neither run fails, however many non-fatal findings the virtual run reports', () => {
    const result = compareScript('a.py', [expected(11, 11, false, 'DD004')], [found(11, 11, false, 'DD004')], CLEAN);
    assert.deepStrictEqual([result.verdict, result.confirmed, result.unreached], ['agrees', 0, 0]);
  });

  it('a virtual-only finding: the virtual run says a real GPU raises, and the real run ends without an exception', () => {
    const result = compareScript('a.py', [expected(6, 12)], [found(6, 12)], CLEAN);
    assert.strictEqual(result.verdict, 'virtual-only');
    assert.match(String(result.reason), /ended without an exception; the virtual run said it raises at a\.py:12/);
  });

  it('a real-only failure: the real run raises where no fatal finding is, even where a non-fatal one is or the line is only the origin', () => {
    assert.match(String(compareScript('a.py', [], [], raisedAt(6)).reason), /raised RuntimeError at a\.py:6; the virtual run reported no fatal mistake/);
    assert.strictEqual(compareScript('a.py', [expected(6, 6, false, 'DD004')], [found(6, 6, false, 'DD004')], raisedAt(6)).verdict, 'real-only');
    const atOrigin = compareScript('a.py', [expected(6, 12)], [found(6, 12)], raisedAt(6));
    assert.strictEqual(atOrigin.verdict, 'real-only');
    assert.match(String(atOrigin.reason), /the virtual run said a\.py:12/);
    assert.strictEqual(compareScript('a.py', [expected(6, 12)], [found(6, 12)], raisedAt(12, 'b.py')).verdict, 'real-only', 'another file');
    assert.strictEqual(compareScript('a.py', [], [], { failed: true, at: null, type: 'ImportError', message: 'no torch' }).verdict, 'real-only');
  });

  it('a run that could not be made is not-run, with the side and the reason', () => {
    const result = compareScript('a.py', [], 'exited 2: no PyTorch', CLEAN);
    assert.deepStrictEqual([result.verdict, result.reason, result.asManifest], ['not-run', 'virtual run: exited 2: no PyTorch', null]);
    assert.strictEqual(compareScript('a.py', [], [], 'did not end within 90 s').reason, 'real run: did not end within 90 s');
  });

  it('excludes the manifest\'s exclusions and scripts needing more devices than the real runs have', () => {
    const entry = { run: ['two.py'], virtual: 'cuda', devices: 2, findings: [] };
    assert.strictEqual(exclusionOf(entry, 2), undefined);
    assert.strictEqual(exclusionOf(entry, 1), 'needs 2 devices; the real runs have 1');
    assert.strictEqual(exclusionOf({ ...entry, devices: 1, exclude: 'MPS only' }, 8), 'MPS only');
  });

  it('the corpus passes only when every compared script agrees and matches the manifest; excluded scripts count for nothing', () => {
    const agree = compareScript('a.py', [expected(9, 15)], [found(9, 15)], raisedAt(15));
    const skipped = excluded('mps.py', 'MPS only');
    const passed = judgeCorpus([agree, skipped]);
    assert.strictEqual(passed.ok, true, passed.problem);
    assert.deepStrictEqual([passed.totals.compared, passed.totals.excluded, passed.totals.confirmed, passed.totals.fatalFindings], [1, 1, 1, 1]);
    const failed = judgeCorpus([agree, skipped, compareScript('b.py', [], [], raisedAt(3, 'b.py')), compareScript('c.py', [expected(2, 2)], [found(2, 2)], CLEAN)]);
    assert.strictEqual(failed.ok, false);
    assert.match(String(failed.problem), /disagree on b\.py \(real-only\), c\.py \(virtual-only\)/);
    assert.deepStrictEqual([failed.totals.agree, failed.totals.disagree], [1, 2]);
    const unlike = judgeCorpus([compareScript('d.py', [expected(9, 15)], [found(9, 14)], raisedAt(14))]);
    assert.match(String(unlike.problem), /differ from the manifest's on d\.py/);
    assert.match(String(judgeCorpus([skipped]).problem), /no script was compared/);
  });
});

describe('device-check virtual-gpu: the corpus manifest', () => {
  it('the shipped manifest parses and names files that exist', () => {
    const entries = readCorpus(path.join(CORPUS, 'corpus.json'));
    assert.ok(entries.filter((e) => !e.exclude).length >= 14);
    for (const entry of entries) {
      for (const file of [targetFile(entry.run), targetFile(entry.setup ?? ['-m']), ...entry.findings.map((f) => f.file)]) {
        if (file) assert.ok(fs.existsSync(path.join(CORPUS, file)), `${file} is in the corpus folder`);
      }
    }
  });

  it('every rule fatal in a script with several fatal mistakes is also the one fatal mistake of a compared script (a real run reaches it)', () => {
    const entries = readCorpus(path.join(CORPUS, 'corpus.json')).filter((e) => !e.exclude && e.devices === 1);
    const fatal = (e: (typeof entries)[number]) => e.findings.filter((f) => f.fatal);
    const alone = new Set(entries.filter((e) => fatal(e).length === 1).map((e) => fatal(e)[0].rule));
    const several = entries.filter((e) => fatal(e).length > 1);
    assert.ok(several.length >= 2);
    for (const entry of several) for (const f of fatal(entry)) assert.ok(alone.has(f.rule), `${f.rule} of ${entry.run.join(' ')} stands alone somewhere`);
  });

  it('says what is wrong with a bad manifest', () => {
    assert.throws(() => parseCorpus('{'), (e: unknown) => e instanceof CorpusError && /not JSON/.test(e.message));
    assert.throws(() => parseCorpus('{"scripts": []}'), /non-empty "scripts"/);
    assert.throws(() => parseCorpus('{"scripts": [{"run": "a.py", "findings": []}]}'), /"run" must be a list/);
    assert.throws(() => parseCorpus('{"scripts": [{"run": ["a.py"]}]}'), /"findings" must be a list/);
    assert.throws(() => parseCorpus('{"scripts": [{"run": ["a.py"], "findings": [{"rule": "DD001", "line": 0, "raisesAt": 1, "fatal": true}]}]}'), /\(a\.py\), finding 1: "line" and "raisesAt"/);
    assert.throws(() => parseCorpus('{"scripts": [{"run": ["-m", "pkg"], "findings": [{"rule": "DD001", "line": 1, "raisesAt": 1, "fatal": true}]}]}'), /"file" is needed/);
    assert.throws(() => parseCorpus('{"scripts": [{"run": ["a.py"], "exclude": " ", "findings": []}]}'), /"exclude" must say why/);
  });
});
