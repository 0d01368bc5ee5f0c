// Muted rounds replay the runs whose tree and reads did not change (runCache.ts), within an
// analysis and from a document's earlier analyses. A replay must be indistinguishable from
// interpreting again: the same findings as a fresh analysis after every edit, and a run
// that reads a changed value (a global, a parameter's state, an edited callee) runs again.
import * as assert from 'assert';
import * as v8 from 'v8';
import * as vm from 'vm';
import { analyzeSource, analyzeTree, initPythonParser, marimoScript, RULES, withoutFixesNamingOtherCells } from '../../src/core/analysis';
import { RunCache, sameDeep } from '../../src/core/analysis/runCache';
import { scanScope, scopeFacts } from '../../src/core/analysis/scopeScan';
import { ImportTable } from '../../src/core/analysis/imports';
import { parsePython } from '../../src/core/python/parser';
import { KeptPlainTree, NodeRegistry } from '../../src/core/python/pyNode';
import { FileAnalyzer } from '../../src/server/fileAnalyzer';
import { loadRuleFixtures, type RuleFixture } from './helpers/fixtures';
import { range } from './serverFindings';

/** One document analysed again and again, as the server does: kept tree, kept runs. */
class Document {
  private readonly kept = new KeptPlainTree();
  readonly runs = new RunCache();

  analyze(text: string) {
    // A marimo notebook is analysed as the script its cells make, as the server does.
    const notebook = marimoScript(text);
    const script = notebook?.script ?? text;
    const tree = parsePython(script);
    try {
      const findings = analyzeTree(tree, script, {}, this.kept, this.runs);
      return notebook ? withoutFixesNamingOtherCells(findings, notebook) : findings;
    } finally {
      tree.delete();
    }
  }

  /** Scopes interpreted and replayed by the muted rounds of the next analysis. */
  countsOf(text: string): { ran: number; replayed: number; findings: ReturnType<typeof analyzeSource> } {
    const before = { ...this.runs.counts };
    const findings = this.analyze(text);
    return { ran: this.runs.counts.ran - before.ran, replayed: this.runs.counts.replayed - before.replayed, findings };
  }
}

function allFixtures(): RuleFixture[] {
  return RULES.filter((r) => r.implemented).flatMap((r) => [...loadRuleFixtures(r.code, 'fire'), ...loadRuleFixtures(r.code, 'silent')]);
}

/** Edits inside function bodies and at module level: a line typed and removed, a move deleted, the file's start changed. */
function editsOf(text: string): string[] {
  const lines = text.split('\n');
  const body = lines.findIndex((l) => /^\s+\S/.test(l) && !/[:\\,([{]\s*$/.test(l));
  const move = lines.findIndex((l) => /\.(to|cuda)\(/.test(l) && !/[:\\,([{]\s*$/.test(l));
  const out: string[] = [];
  if (body >= 0) {
    const indent = /^\s*/.exec(lines[body])![0];
    out.push([...lines.slice(0, body + 1), `${indent}total = total + 1`, ...lines.slice(body + 1)].join('\n'));
    out.push(text);
    // Typing within a line: no line moves, so the findings of runs that replay are reported again.
    out.push([...lines.slice(0, body), `${lines[body]}  # typed`, ...lines.slice(body + 1)].join('\n'));
    out.push(text);
  }
  if (move >= 0) {
    const indent = /^\s*/.exec(lines[move])![0];
    out.push([...lines.slice(0, move), `${indent}pass`, ...lines.slice(move + 1)].join('\n'));
    out.push(text);
  }
  out.push(`# a comment\n${text}`);
  return out;
}

describe('replayed runs (runCache.ts)', () => {
  before(() => initPythonParser());

  it('finds after every edit what a fresh analysis finds, on the whole rule corpus', function () {
    this.timeout(240_000); // about 2,000 analyses
    let compared = 0;
    for (const fixture of allFixtures()) {
      const doc = new Document();
      doc.analyze(fixture.source);
      for (const edited of editsOf(fixture.source)) {
        assert.deepStrictEqual(doc.analyze(edited), analyzeSource(edited), `${fixture.relPath} after an edit`);
        compared++;
      }
    }
    assert.ok(compared >= 300, `compared ${compared} analyses`);
  });

  const script = [
    'import torch',
    'device = torch.device("cuda" if torch.cuda.is_available() else "cpu")',
    '',
    'def make():',
    '    return torch.nn.Linear(4, 2).to(device)',
    '',
    'def batch():',
    '    x = torch.randn(8, 4)',
    '    return x',
    '',
    'def helper(n):',
    '    return n + 1',
    '',
    'model = make()',
    'print(model(batch()))',
    '',
  ].join('\n');

  it('interprets again only the function an edit changed (and a scope that reports); the other runs replay', () => {
    const doc = new Document();
    doc.analyze(script);
    const edited = script.replace('    return n + 1', '    m = n * 2\n    return m + 1');
    const { ran, replayed, findings } = doc.countsOf(edited);
    assert.deepStrictEqual(findings, analyzeSource(edited));
    // The script tests availability: it is interpreted once, in the world with an accelerator
    // (world.ts). Muted round 1 interprets `helper` and replays the module scope, make and batch; round 2
    // replays all four; the reporting round interprets `helper` and the module scope (which
    // reported the mismatch: its findings are made afresh) and skips make and batch.
    assert.strictEqual(ran, 3, `ran ${ran} scopes (replayed ${replayed})`);
    assert.strictEqual(replayed, 9, `replayed ${replayed} scopes`);
  });

  it('a function that loads a checkpoint replays after an edit elsewhere: DD013 reads the file as a fact, not its text', () => {
    const loading = [
      'import torch',
      '',
      'def restore(path):',
      '    return torch.load(path, map_location="cpu")',
      '',
      'def helper(n):',
      '    return n + 1',
      '',
      'state = restore("model.pt")',
      'print(helper(2), state)',
      '',
    ].join('\n');
    const doc = new Document();
    doc.analyze(loading);
    const edited = loading.replace('    return n + 1', '    m = n * 2\n    return m + 1');
    const { ran, findings } = doc.countsOf(edited);
    assert.deepStrictEqual(findings, analyzeSource(edited));
    // `helper` runs again (muted rounds 1 and 2, the reporting round); `restore` replays in
    // every round, the reporting one included, and so does the module scope, whose call of
    // `helper` still gives what it gave: 3 runs. Reading the file's text made `restore` run
    // again in the reporting round, on every keystroke anywhere in the file.
    assert.strictEqual(ran, 3, `ran ${ran} scopes after the edit`);
  });

  it('a module scope that builds the program\'s own module replays after an edit elsewhere: DD018/DD019 read what the class holds as a fact', () => {
    const building = [
      'import torch',
      'import torch.nn as nn',
      '',
      'class Block(nn.Module):',
      '    def __init__(self):',
      '        super().__init__()',
      '        self.fc = nn.Linear(2, 2)',
      '',
      '    def forward(self, x):',
      '        return self.fc(x)',
      '',
      'class Net(nn.Module):',
      '    def __init__(self):',
      '        super().__init__()',
      '        self.fc = Block()',
      '',
      '    def forward(self, x):',
      '        return self.fc(x)',
      '',
      'def unused(n):',
      '    return n + 1',
      '',
      'model = Net()',
      'print(model)',
      '',
    ].join('\n');
    const doc = new Document();
    doc.analyze(building);
    const edited = building.replace('    return n + 1', '    m = n * 2\n    return m + 1');
    const { ran, findings } = doc.countsOf(edited);
    assert.deepStrictEqual(findings, analyzeSource(edited));
    // `unused` runs again (a muted round and the reporting one); the module scope replays.
    // Reading what Block holds through the program's modules made the module scope run
    // again in the reporting round as well (3), on every keystroke anywhere in the file.
    assert.strictEqual(ran, 2, `ran ${ran} scopes after the edit`);
  });

  it('runs replay in both worlds after an edit in a function body, when a device flag splits the program', () => {
    // `opt.accel` splits the program into two worlds, and `device` depends on it: each world
    // has its own runs of `place` and `prepare`, one per muted round (three rounds, since
    // prepare's return depends on place's). Too few runs kept per scope made the worlds
    // evict each other's, and every keystroke interpreted them again (12 runs, not 2).
    const flagged = [
      'import argparse',
      'import torch',
      'import torch.nn as nn',
      '',
      'parser = argparse.ArgumentParser()',
      'parser.add_argument("--accel", action="store_true")',
      'opt = parser.parse_args()',
      'device = torch.device("cuda" if opt.accel else "cpu")',
      '',
      'def place(t):',
      '    return t.to(device)',
      '',
      'def prepare(t):',
      '    return place(t) * 2',
      '',
      'def scale(n):',
      '    return n + 1',
      '',
      'model = nn.Linear(2, 2).to(device)',
      'batch = prepare(torch.ones(1, 2))',
      'print(model(batch))',
      '',
    ].join('\n');
    const doc = new Document();
    doc.analyze(flagged);
    const edited = flagged.replace('    return n + 1', '    m = n * 2\n    return m + 1');
    const { ran, findings } = doc.countsOf(edited);
    assert.deepStrictEqual(findings, analyzeSource(edited));
    // Only `scale` runs again: in a muted round and in the reporting one.
    assert.strictEqual(ran, 2, `ran ${ran} scopes after the edit`);
  });

  it('keeps the findings of a replayed run while no line moves, and makes them afresh after one did', () => {
    const doc = new Document();
    const first = doc.analyze(script);
    assert.ok(first.some((f) => f.code === 'DD001' && f.range.start.line === 14), JSON.stringify(first));
    // Typed within a line of `helper`: the module scope, which reported the mismatch, replays.
    const typed = script.replace('    return n + 1', '    return n + 12');
    const within = doc.countsOf(typed);
    assert.deepStrictEqual(within.findings, analyzeSource(typed));
    assert.deepStrictEqual(within.findings, first, 'the same findings, on the same lines');
    // Muted round 1 interprets `helper` (round 2 replays it), the reporting round interprets it again; nothing else runs.
    assert.strictEqual(within.ran, 2, `ran ${within.ran} scopes (replayed ${within.replayed})`);
    // A line added above the finding moves it: its run is interpreted again, the finding one line down.
    const moved = `${typed.replace('def helper(n):', '# helper\ndef helper(n):')}`;
    const after = doc.countsOf(moved);
    assert.deepStrictEqual(after.findings, analyzeSource(moved));
    assert.ok(after.findings.some((f) => f.code === 'DD001' && f.range.start.line === 15), JSON.stringify(after.findings));
    // Typed within a line again: the findings made after the move are kept, on their new lines.
    const again = moved.replace('n + 12', 'n + 123');
    assert.deepStrictEqual(doc.countsOf(again).findings, analyzeSource(again));
  });

  it('runs a function again when a global it reads changed, and finds what the change means', () => {
    const doc = new Document();
    const first = doc.analyze(script);
    assert.ok(first.some((f) => f.code === 'DD001'), 'the CPU batch meets the model on the device');
    // The model stays on the CPU now: no mismatch, and `make` (which reads `device`) runs again.
    const edited = script.replace('device = torch.device("cuda" if torch.cuda.is_available() else "cpu")', 'device = "cpu"');
    const { ran, findings } = doc.countsOf(edited);
    assert.deepStrictEqual(findings, analyzeSource(edited));
    assert.ok(!findings.some((f) => f.code === 'DD001'), JSON.stringify(findings));
    assert.ok(ran >= 2, `ran ${ran}: the module scope and make`);
  });

  it('a class that places one layer is judged again when an edit names it outside its body (a fact kept per statement)', () => {
    const model = [
      'import torch',
      'import torch.nn as nn',
      '',
      'class Translator(nn.Module):',
      '    def __init__(self, vocab, hidden):',
      '        super().__init__()',
      '        self.rnn = nn.LSTM(vocab, hidden)',
      '        self.project = nn.Linear(hidden, vocab).cuda()',
      '',
      '    def forward(self, tokens):',
      '        h0 = torch.zeros(1, tokens.size(1), 8)',
      '        out, _ = self.rnn(tokens, (h0, h0))',
      '        return self.project(out)',
      '',
    ].join('\n');
    const doc = new Document();
    const silent = doc.analyze(model);
    assert.deepStrictEqual(silent, analyzeSource(model));
    // Built here and never moved: its LSTM stays on the CPU while its projection is on the GPU.
    const built = `${model}\nnet = Translator(10, 8)\nprint(net(torch.ones(3, 2, 10)))\n`;
    const found = doc.analyze(built);
    assert.deepStrictEqual(found, analyzeSource(built));
    const mismatch = (fs: typeof found) => fs.some((f) => f.code === 'DD001' && f.range.start.line === 12);
    assert.ok(mismatch(found) && !mismatch(silent), JSON.stringify({ found, silent }));
    // And the use removed again: the fact follows the edit back.
    assert.deepStrictEqual(doc.analyze(model), silent);
  });

  it('a run that called an edited function runs again (the callee body is a read)', () => {
    const text = 'import torch\n\ndef place(t):\n    return t.cuda()\n\ndef step():\n    x = place(torch.ones(2))\n    return x.numpy()\n';
    const doc = new Document();
    const first = doc.analyze(text);
    assert.ok(first.some((f) => f.code === 'DD003'), JSON.stringify(first));
    const edited = text.replace('return t.cuda()', 'return t.cpu()');
    const { findings } = doc.countsOf(edited);
    assert.deepStrictEqual(findings, analyzeSource(edited));
    assert.ok(!findings.some((f) => f.code === 'DD003'), JSON.stringify(findings));
  });

  it('a helper that ran only from __init__ runs again once an edit elsewhere calls it after the move', () => {
    const text = [
      'import torch',
      'import torch.nn as nn',
      'from torch import autograd',
      '',
      'class Net(nn.Module):',
      '    def __init__(self):',
      '        super().__init__()',
      '        self.conv = nn.Conv2d(1, 4, 3)',
      '        self.fc = nn.Linear(self.flat_size(), 10)',
      '',
      '    def flat_size(self):',
      '        return self.conv(autograd.Variable(torch.zeros(1, 1, 8, 8))).view(1, -1).size(1)',
      '',
      'net = Net()',
      'if torch.cuda.is_available():',
      '    net = net.cuda()',
      '',
    ].join('\n');
    const doc = new Document();
    const first = doc.analyze(text);
    const meets = (f: { code: string }): boolean => f.code === 'DD001' || f.code === 'DD015';
    assert.ok(!first.some(meets), `before the move the probe meets CPU layers: ${JSON.stringify(first)}`);
    const edited = text + 'print(net.flat_size())\n';
    const { findings } = doc.countsOf(edited);
    assert.deepStrictEqual(findings, analyzeSource(edited));
    assert.ok(findings.some(meets), `after the move the probe meets GPU layers: ${JSON.stringify(findings)}`);
  });

  describe('calls made while the module scope runs', () => {
    const moduleCalls = [
      'import torch',
      'device = torch.device("cuda" if torch.cuda.is_available() else "cpu")',
      '',
      'def make(n):',
      '    return torch.nn.Linear(n, 2).to(device)',
      '',
      'def helper(n):',
      '    return n + 1',
      '',
      'model = make(4)',
      'helper(3)',
      'print(model(torch.randn(8, 4)))',
      '',
    ].join('\n');

    /** Calls interpreted for their arguments (not replayed) by the next analysis. */
    const callsRan = (doc: Document, text: string) => {
      const before = doc.runs.counts.callsRan;
      const findings = doc.analyze(text);
      return { calls: doc.runs.counts.callsRan - before, findings };
    };

    it('are interpreted once per analysis, and replayed by later rounds while the globals they read are the same', () => {
      const doc = new Document();
      const { calls, findings } = callsRan(doc, moduleCalls);
      assert.deepStrictEqual(findings, analyzeSource(moduleCalls));
      assert.ok(findings.some((f) => f.code === 'DD001'), JSON.stringify(findings));
      // make(4) and helper(3), each once: the later rounds replay them (the module scope reads an edited nothing).
      assert.strictEqual(calls, 2, `interpreted ${calls} calls`);
    });

    it('are replayed by the next analysis when no line moved and their arguments are the same nodes; the edited callee runs again', () => {
      const doc = new Document();
      doc.analyze(moduleCalls);
      const typed = moduleCalls.replace('    return n + 1', '    return n + 12');
      const { calls, findings } = callsRan(doc, typed);
      assert.deepStrictEqual(findings, analyzeSource(typed));
      assert.strictEqual(calls, 1, `interpreted ${calls} calls: only helper(3), whose body changed`);
      // A line added above: what the kept calls name is on other lines now, so they run again.
      const moved = `# a comment\n${typed}`;
      const after = callsRan(doc, moved);
      assert.deepStrictEqual(after.findings, analyzeSource(moved));
      assert.strictEqual(after.calls, 2, `interpreted ${after.calls} calls`);
    });

    it('leave the scope replayable when an edited callee still gives what it gave; a call that gives something else runs the scope again', () => {
      const doc = new Document();
      doc.analyze(moduleCalls);
      const typed = moduleCalls.replace('    return n + 1', '    return n + 12');
      const same = doc.countsOf(typed);
      assert.deepStrictEqual(same.findings, analyzeSource(typed));
      // Only `helper` runs again (its own run in muted rounds 1 and 2 and in the reporting round);
      // the module scope, whose call helper(3) is interpreted again and returns a number as before, replays.
      assert.strictEqual(same.ran, 3, `ran ${same.ran} scopes`);
      // make(4) now returns a model left on the CPU: the scope runs again and the mismatch is gone.
      const unmoved = typed.replace('torch.nn.Linear(n, 2).to(device)', 'torch.nn.Linear(n, 2)');
      const other = doc.countsOf(unmoved);
      assert.deepStrictEqual(other.findings, analyzeSource(unmoved));
      assert.ok(!other.findings.some((f) => f.code === 'DD001'), JSON.stringify(other.findings));
      assert.ok(other.ran >= 3, `ran ${other.ran} scopes: make, and the module scope in the muted and reporting rounds`);
    });

    it('one that sets a global (`global model`) is interpreted again each time: a replay would not set it', () => {
      const setsGlobal = [
        'import torch',
        'device = torch.device("cuda" if torch.cuda.is_available() else "cpu")',
        'model = None',
        '',
        'def setup(n):',
        '    global model',
        '    model = torch.nn.Linear(n, 2).to(device)',
        '',
        'def helper(n):',
        '    return n + 1',
        '',
        'setup(4)',
        'helper(3)',
        'print(model(torch.randn(8, 4)))',
        '',
      ].join('\n');
      const doc = new Document();
      const first = doc.analyze(setsGlobal);
      assert.ok(first.some((f) => f.code === 'DD001' && f.range.start.line === 13), JSON.stringify(first));
      // Typed in the module's code: the scope runs again, and so must setup(4).
      const typed = setsGlobal.replace('helper(3)', 'helper(34)');
      const { calls, findings } = callsRan(doc, typed);
      assert.deepStrictEqual(findings, analyzeSource(typed));
      assert.ok(findings.some((f) => f.code === 'DD001' && f.range.start.line === 13), JSON.stringify(findings));
      assert.ok(calls >= 2, `interpreted ${calls} calls: setup(4) and helper(34) at least`);
    });
  });

  it('the server (FileAnalyzer) keeps runs per document and forgets them with the document', () => {
    const files = new FileAnalyzer();
    try {
      const uri = 'file:///w/train.py';
      files.analyze(uri, script, {});
      files.recordChanges(uri, [{ range: range(11, 16, 11, 16), text: ' + 2' }]);
      const edited = script.replace('return n + 1', 'return n + 1 + 2');
      assert.deepStrictEqual(files.analyze(uri, edited, {}), analyzeSource(edited));
      files.release(uri);
      assert.strictEqual(files.size, 0);
    } finally {
      files.dispose();
    }
  });
});

describe('what a document\'s analyses leave behind', () => {
  /** A full collection, from a test run without --expose-gc (the flag is set for this process, then gc taken from a fresh context). */
  const collect = (): void => {
    v8.setFlagsFromString('--expose-gc');
    (vm.runInNewContext('gc') as () => void)();
  };

  before(() => initPythonParser());

  it('nothing of an analysis outlives its run cache: the program facts rules read are kept with the runs', async () => {
    // Rules read facts of the whole program (programFacts.ts) through closures that may hold
    // the interpreter; a process-wide table of them kept the last analysis to ask each fact
    // alive (a closed document's cache, program and trees), and the server runs for days.
    const source = [
      'import torch',
      'import torch.nn as nn',
      '',
      'class Net(nn.Module):',
      '    def __init__(self):',
      '        super().__init__()',
      '        self.fc = nn.Linear(4, 2)',
      '',
      '    def forward(self, x):',
      '        return self.fc(x)',
      '',
      'net = Net()',
      'state = torch.load("model.pt")',
      'torch.cuda.synchronize()',
      'print(net(torch.zeros(1, 4).cuda()))',
      '',
    ].join('\n');
    // Analysed and dropped in a call of its own, so that no stack slot of this test holds it.
    const analysedAndDropped = (): WeakRef<RunCache> => {
      const doc = new Document();
      const findings = doc.analyze(source);
      assert.ok(findings.some((f) => f.code === 'DD001'), 'the fixture reports its mismatch');
      assert.ok(doc.runs.factComputes.size > 0, 'rules read program facts in this analysis');
      return new WeakRef(doc.runs);
    };
    const dropped = analysedAndDropped();
    // WeakRefs hold their targets until the current job ends.
    await new Promise((resolve) => setImmediate(resolve));
    collect();
    assert.strictEqual(dropped.deref(), undefined, 'the dropped document\'s run cache is still reachable');
  });
});

describe('scope facts of a module, joined from its statements', () => {
  before(() => initPythonParser());

  it('equal the facts of one scan over the whole module, on the whole rule corpus', () => {
    let compared = 0;
    for (const fixture of allFixtures()) {
      const tree = parsePython(fixture.source);
      try {
        const root = new NodeRegistry().root(tree, fixture.source);
        const imports = new ImportTable();
        imports.addFrom(root);
        const joined = scopeFacts(root, imports);
        const whole = scanScope(root, imports);
        assert.deepStrictEqual([...joined.names].sort(), [...whole.names].sort(), fixture.relPath);
        assert.deepStrictEqual(new Map([...joined.evidence].sort()), new Map([...whole.evidence].sort()), fixture.relPath);
        assert.deepStrictEqual([...joined.moduleMethods].sort(), [...whole.moduleMethods].sort(), fixture.relPath);
        assert.strictEqual(joined.deviceAware, whole.deviceAware, fixture.relPath);
        compared++;
      } finally {
        tree.delete();
      }
    }
    assert.ok(compared >= 100, `compared ${compared}`);
  });
});

describe('the same value for a replay (sameDeep)', () => {
  before(() => initPythonParser());

  it('compares fields all the way down, maps by entries, and syntax nodes by identity', () => {
    const tree = parsePython('x = 1\ny = 2\n');
    try {
      const registry = new NodeRegistry();
      const [a, b] = registry.root(tree, 'x = 1\ny = 2\n').namedChildren;
      const v = (node: typeof a, place: 1 | 2) => ({ kind: 'tensor', place, grad: 'no', origin: { unit: 0, node, what: 'moved here' }, entries: new Map([['k', { kind: 'tensor', place }]]) });
      assert.ok(sameDeep(v(a, 1), v(a, 1)));
      assert.ok(!sameDeep(v(a, 1), v(a, 2)), 'a different place inside a map');
      assert.ok(!sameDeep(v(a, 1), v(b, 1)), 'an origin at another node');
      assert.ok(sameDeep({ kind: 'other', param: undefined }, { kind: 'other' }), 'an absent field is an undefined one');
      assert.ok(sameDeep({ kind: 'other' }, { kind: 'other', param: undefined }), 'either way round');
      assert.ok(!sameDeep({ kind: 'other' }, { kind: 'other', param: 'x' }), 'a field only the second has');
      assert.ok(!sameDeep({ kind: 'other', param: 'x' }, { kind: 'other' }), 'a field only the first has');
      assert.ok(!sameDeep([v(a, 1), v(a, 1)], [v(a, 1), v(a, 2)]), 'arrays element by element');
      assert.ok(!sameDeep([v(a, 1)], [v(a, 1), v(a, 1)]));
    } finally {
      tree.delete();
    }
  });
});
