// The virtual-GPU run's report as the CLI and the editor read it: checked field by field,
// turned into lint's shapes and into the editor's diagnostics, without running anything.
import * as assert from 'assert';
import { parseRunArgs } from '../../src/cli/run/runArgs';
import { UsageError } from '../../src/cli/args';
import { runLintReport } from '../../src/cli/formats/runReport';
import { formatRunText } from '../../src/cli/formats/runText';
import { formatRunSarif } from '../../src/cli/formats/runSarif';
import { toRuffJson } from '../../src/cli/formats/json';
import { planDiagnostics, runSummary } from '../../src/core/virtualRun/diagnostics';
import { mainGuardLines } from '../../src/core/virtualRun/mainGuard';
import { isMistake, parseRunReport, ReportError, type VirtualRunReport } from '../../src/core/virtualRun/report';

const TRAIN = '/project/train.py';
const MODEL = '/project/model.py';
const SOURCES: Record<string, string> = {
  [TRAIN]: 'import torch\nfrom model import Net\nnet = Net().cuda()\nfor x in data:\n    out = net(x)\n    print(out.numpy())\n',
  [MODEL]: 'class Net:\n    def forward(self, x):\n        return self.fc(x)\n',
};

function report(overrides: Partial<Record<string, unknown>> = {}): VirtualRunReport {
  return parseRunReport(JSON.stringify({
    version: 1, outcome: 'finished', stoppedBy: null, virtual: { kind: 'cuda', devices: 1 }, torch: '1.13.1', steps: 4, seconds: 1.5, error: null,
    findings: [
      { code: 'DD001', message: 'Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu! (in linear)', fatal: true, count: 4,
        stack: [{ file: MODEL, line: 3, function: 'forward' }, { file: TRAIN, line: 5, function: '<module>' }] },
      { code: 'DD003', message: "can't convert cuda:0 device type tensor to numpy.", fatal: true, count: 1, stack: [{ file: TRAIN, line: 6, function: '<module>' }] },
      { code: 'DD007', message: '.item() waits for the device in every training step', fatal: false, count: 4, stack: [{ file: TRAIN, line: 5, function: '<module>' }] },
    ],
    ...overrides,
  }));
}

const read = (file: string): { sources: string[] } | undefined => (SOURCES[file] === undefined ? undefined : { sources: [SOURCES[file]] });
const display = (file: string): string => file.replace('/project/', '');

describe('virtual GPU run: the report', () => {
  it('keeps what is well formed and drops findings with an unknown rule or a malformed frame', () => {
    const parsed = parseRunReport(JSON.stringify({
      outcome: 'stopped', stoppedBy: 'steps', steps: 2,
      findings: [
        { code: 'DD999', message: 'no such rule', stack: [] },
        { code: 'DD001', message: 'm', fatal: true, count: 2, stack: [{ file: TRAIN, line: 0 }, { file: TRAIN, line: 7, function: 'f', cell: 1 }] },
      ],
    }));
    assert.strictEqual(parsed.outcome, 'stopped');
    assert.strictEqual(parsed.stoppedBy, 'steps');
    assert.deepStrictEqual(parsed.findings.map((f) => f.code), ['DD001']);
    assert.deepStrictEqual(parsed.findings[0].stack, [{ file: TRAIN, line: 7, function: 'f', cell: 1 }]);
  });

  it('refuses text that is not JSON, or JSON that is not a report, with a sentence', () => {
    assert.throws(() => parseRunReport('{"outcome":'), (e: unknown) => e instanceof ReportError && /not JSON/.test(e.message));
    assert.throws(() => parseRunReport('[1, 2]'), (e: unknown) => e instanceof ReportError && /not its report/.test(e.message));
  });

  it('counts DD007 as a note, not a mistake', () => {
    assert.deepStrictEqual(report().findings.map(isMistake), [true, true, false]);
  });
});

describe('virtual GPU run: lint\'s shapes', () => {
  it('puts each finding at its innermost user frame, in that frame\'s file, with the whole line as its range, in reading order', () => {
    const lint = runLintReport(report(), read, display);
    const json = toRuffJson(lint);
    assert.deepStrictEqual(json.map((d) => `${d.filename}:${d.location.row}:${d.location.column} ${d.code}`), [
      `${MODEL}:3:9 DD001`, `${TRAIN}:5:5 DD007`, `${TRAIN}:6:5 DD003`,
    ]);
    assert.match(json[0].message, /\[4 times\]$/);
  });

  it('gives fatal mistakes the error severity and DD007 the information severity', () => {
    const lint = runLintReport(report(), read, display);
    assert.deepStrictEqual(lint.files.flatMap((f) => f.findings.map((x) => x.finding.severity)), ['error', 'error', 'information']);
  });

  it('leaves out a finding without a user frame rather than inventing a place', () => {
    const lint = runLintReport(report({ findings: [{ code: 'DD001', message: 'm', fatal: true, count: 1, stack: [] }] }), read, display);
    assert.deepStrictEqual(lint.files, []);
  });
});

describe('virtual GPU run: SARIF', () => {
  it('is lint\'s SARIF with each result\'s runtime stack across files, innermost first', () => {
    const origins = new Map();
    const lint = runLintReport(report(), read, display, origins);
    const sarif = JSON.parse(formatRunSarif(lint, origins, { cwd: '/project', version: '0.0.0' }));
    const first = sarif.runs[0].results[0];
    assert.strictEqual(first.ruleId, 'DD001');
    assert.deepStrictEqual(first.stacks[0].frames.map((f: { location: { physicalLocation: { artifactLocation: { uri: string }; region: { startLine: number } } } }) =>
      `${f.location.physicalLocation.artifactLocation.uri}:${f.location.physicalLocation.region.startLine}`), ['model.py:3', 'train.py:5']);
  });
});

describe('virtual GPU run: the text', () => {
  it('prints each mistake with its stack, the script\'s failure, and one line on the run', () => {
    const text = formatRunText(report({ outcome: 'failed', error: { type: 'ValueError', message: 'empty folder', stack: [{ file: TRAIN, line: 9, function: 'main' }] } }), display, (_f, cell) => cell + 1);
    const lines = text.trimEnd().split('\n');
    assert.strictEqual(lines[0], 'model.py:3: DD001 error: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu! (in linear) [4 times]');
    assert.deepStrictEqual(lines.slice(1, 3), ['    at model.py:3 in forward', '    at train.py:5 in <module>']);
    assert.ok(lines.includes('The script stopped with ValueError: empty folder'));
    assert.strictEqual(lines[lines.length - 1], 'Found 2 device mistakes and 1 note on 1 virtual CUDA device (PyTorch 1.13.1 on the CPU); the script failed after 4 optimizer steps in 1.5 s.');
  });

  it('names notebook cells as Jupyter counts them', () => {
    const text = formatRunText(report({ findings: [{ code: 'DD001', message: 'm', fatal: true, count: 1, stack: [{ file: '/project/nb.ipynb', line: 2, function: '<module>', cell: 0 }] }] }), display, () => 3);
    assert.match(text, /^nb\.ipynb:cell 3:2: DD001 error: m$/m);
  });
});

describe('virtual GPU run: the editor\'s diagnostics', () => {
  it('one diagnostic per finding, labelled as found by running, with the whole stack as related locations', () => {
    const [first] = planDiagnostics(report());
    assert.strictEqual(first.file, MODEL);
    assert.strictEqual(first.line, 2);
    assert.match(first.message, /\(4 times\) \[found by running on a virtual GPU\]$/);
    assert.deepStrictEqual(first.related.map((r) => [r.file, r.line, r.message]), [[MODEL, 2, 'raised here, in forward'], [TRAIN, 4, 'called from <module>']]);
  });

  it('a mismatch reported where its CPU tensor came from says so in its related locations, the text and SARIF\'s stack', () => {
    const made = report({ findings: [{ code: 'DD001', message: 'Expected all tensors to be on the same device (in linear); the cpu tensor comes from this line', fatal: true, count: 1,
      stack: [{ file: TRAIN, line: 3, function: '<module>', note: 'the cpu tensor comes from here' }, { file: MODEL, line: 3, function: 'forward', note: 'it meets cuda:0 here' }, { file: TRAIN, line: 5, function: '<module>' }] }] });
    const [first] = planDiagnostics(made);
    assert.deepStrictEqual([first.file, first.line], [TRAIN, 2]);
    assert.deepStrictEqual(first.related.map((r) => [r.file, r.line, r.message]),
      [[TRAIN, 2, 'the cpu tensor comes from here, in <module>'], [MODEL, 2, 'it meets cuda:0 here, in forward'], [TRAIN, 4, 'called from <module>']]);
    assert.match(formatRunText(made, display, () => 1), /^train\.py:3: DD001 .*\n {4}at train\.py:3 in <module> \(the cpu tensor comes from here\)\n {4}at model\.py:3 in forward \(it meets cuda:0 here\)\n {4}at train\.py:5 in <module>\n/);
    const origins = new Map();
    const sarif = JSON.parse(formatRunSarif(runLintReport(made, read, display, origins), origins, { cwd: '/project', version: '0.0.0' }));
    assert.deepStrictEqual(sarif.runs[0].results[0].stacks[0].frames.map((f: { location: { message: { text: string } } }) => f.location.message.text),
      ['<module>: the cpu tensor comes from here', 'forward: it meets cuda:0 here', '<module>']);
  });

  it('summarizes the run in one sentence', () => {
    assert.strictEqual(runSummary(report({ outcome: 'stopped', stoppedBy: 'steps', steps: 20 })), 'Virtual GPU run: 2 device mistakes and 1 note, stopped after 20 steps.');
    assert.strictEqual(runSummary(report({ findings: [] })), 'Virtual GPU run: no device mistakes.');
  });

  it('offers the dry run above each top-level main guard, in either quoting', () => {
    assert.deepStrictEqual(mainGuardLines('import x\nif __name__ == "__main__":\n    main()\n    if __name__ == "__main__":\nif __name__=="__main__" :\n'), [1, 4]);
    assert.deepStrictEqual(mainGuardLines("if __name__ == '__main__':\n"), [0]);
    assert.deepStrictEqual(mainGuardLines("if __name__ == '__main__\":\n"), []);
  });
});

describe('device-doctor run: its command line', () => {
  it('reads its own options up to the script, and gives the rest to the script', () => {
    const options = parseRunArgs(['--virtual', 'cuda:1', '--steps', '5', 'train.py', '--epochs', '2', '--format', 'x']);
    assert.deepStrictEqual(options.target, { script: 'train.py' });
    assert.deepStrictEqual(options.args, ['--epochs', '2', '--format', 'x']);
    assert.strictEqual(options.virtual, 'cuda:1');
    assert.strictEqual(options.devices, 2, 'cuda:1 needs a second device');
    assert.strictEqual(options.steps, 5);
    assert.strictEqual(options.format, 'text');
  });

  it('takes -m module and a notebook as targets, and --name=value spellings', () => {
    assert.deepStrictEqual(parseRunArgs(['--format=json', '-m', 'pkg.train', '--lr', '1']), { ...parseRunArgs(['--format=json', '-m', 'pkg.train']), args: ['--lr', '1'] });
    assert.deepStrictEqual(parseRunArgs(['book.IPYNB']).target, { notebook: 'book.IPYNB' });
  });

  it('says what is wrong with a bad value, an unknown option or a missing target', () => {
    const message = (argv: string[]): string => {
      try {
        parseRunArgs(argv);
      } catch (err) {
        assert.ok(err instanceof UsageError);
        return err.message;
      }
      return 'no error';
    };
    assert.strictEqual(message(['--virtual', 'rocm', 'a.py']), "--virtual takes cuda, cuda:N or mps (got 'rocm')");
    assert.strictEqual(message(['--steps', '0', 'a.py']), "--steps needs a whole number of at least 1 (got '0')");
    assert.strictEqual(message(['--time', 'soon', 'a.py']), "--time needs a positive number of seconds (got 'soon')");
    assert.strictEqual(message(['--frobnicate', 'a.py']), "unknown option '--frobnicate'");
    assert.strictEqual(message(['--steps']), "option '--steps' needs a value");
    assert.strictEqual(message([]), 'give a script, a notebook or -m module to run');
  });
});
