import * as assert from 'assert';
import type { Finding } from '../../src/core/analysis/types';
import { fixUntilStable, MAX_FIX_PASSES, type LocatedFinding } from '../../src/cli/lint/fixes';
import { isPythonNotebook, parseNotebook, serializeNotebook } from '../../src/cli/lint/notebookFile';
import { decodePythonSource, encodePythonSource, UnreadableFileError } from '../../src/cli/lint/pythonFile';

/** A stand-in for DD003: every `.numpy()` not preceded by `.cpu()` gets "insert .cpu()". */
function numpyFindings(source: string, cellIndex?: number): LocatedFinding[] {
  const found: LocatedFinding[] = [];
  source.split('\n').forEach((line, lineNo) => {
    for (const match of line.matchAll(/(?<!\.cpu\(\))\.numpy\(\)/g)) {
      const at = match.index ?? 0;
      const finding: Finding = {
        code: 'DD003', message: 'numpy on accelerator', severity: 'error', related: [],
        range: { start: { line: lineNo, character: at }, end: { line: lineNo, character: at + 8 } },
        fixes: [{ title: 'Insert .cpu()', preferred: true, edits: [{ range: { start: { line: lineNo, character: at }, end: { line: lineNo, character: at } }, newText: '.cpu()' }] }],
      };
      found.push({ finding, cellIndex });
    }
  });
  return found;
}

const analyzeFile = (sources: readonly string[]) => numpyFindings(sources[0]);

describe('cli: --fix passes', () => {
  it('applies every non-conflicting preferred fix and reports what remains', () => {
    const result = fixUntilStable(['a.numpy()\nb = c.numpy() + d.numpy()\n'], analyzeFile);
    assert.deepStrictEqual(result.sources, ['a.cpu().numpy()\nb = c.cpu().numpy() + d.cpu().numpy()\n']);
    assert.strictEqual(result.fixed, 3);
    assert.deepStrictEqual(result.remaining, []);
  });

  it('is idempotent: fixing fixed code changes nothing', () => {
    const once = fixUntilStable(['x.numpy()\n'], analyzeFile);
    const twice = fixUntilStable(once.sources, analyzeFile);
    assert.deepStrictEqual(twice.sources, once.sources);
    assert.strictEqual(twice.fixed, 0);
  });

  it('applies identical fixes of two findings once and counts both (DD003 + DD010 merged fix)', () => {
    const analyze = (sources: readonly string[]): LocatedFinding[] => {
      const base = numpyFindings(sources[0]);
      return base.flatMap((f) => [f, { finding: { ...f.finding, code: 'DD010' } }]);
    };
    const result = fixUntilStable(['y.numpy()\n'], analyze);
    assert.deepStrictEqual(result.sources, ['y.cpu().numpy()\n']);
    assert.strictEqual(result.fixed, 2);
  });

  it('defers a conflicting fix to the next pass, re-analysing in between', () => {
    const analyses: string[] = [];
    // Both findings insert at the start of the file: their order would be a guess, so one waits.
    const analyze = (sources: readonly string[]): LocatedFinding[] => {
      analyses.push(sources[0]);
      const at = { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };
      return ['A', 'B'].filter((mark) => !sources[0].includes(mark)).map((mark): LocatedFinding => ({ finding: {
        code: 'DD004', message: `needs ${mark}`, severity: 'warning', related: [], range: at,
        fixes: [{ title: `insert ${mark}`, preferred: true, edits: [{ range: at, newText: mark }] }],
      } }));
    };
    const result = fixUntilStable(['x\n'], analyze);
    assert.deepStrictEqual(analyses, ['x\n', 'Ax\n', 'BAx\n']);
    assert.deepStrictEqual(result.sources, ['BAx\n']);
    assert.strictEqual(result.fixed, 2);
  });

  it('ignores non-preferred fixes', () => {
    const analyze = (sources: readonly string[]): LocatedFinding[] => numpyFindings(sources[0]).map((f) => ({
      finding: { ...f.finding, fixes: f.finding.fixes.map((fix) => ({ ...fix, preferred: false })) },
    }));
    const result = fixUntilStable(['a.numpy()\n'], analyze);
    assert.deepStrictEqual(result.sources, ['a.numpy()\n']);
    assert.strictEqual(result.remaining.length, 1);
  });

  it('stops after MAX_FIX_PASSES when a fix never converges', () => {
    let calls = 0;
    // Always one more '#' to insert: a fix that never converges.
    const analyze = (): LocatedFinding[] => {
      calls++;
      const edit = { range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, newText: '#' };
      return [{ finding: { code: 'DD004', message: 'm', severity: 'warning', related: [], range: edit.range,
        fixes: [{ title: 'grow', preferred: true, edits: [edit] }] } }];
    };
    const result = fixUntilStable(['x\n'], analyze);
    assert.strictEqual(result.sources[0], `${'#'.repeat(MAX_FIX_PASSES)}x\n`);
    assert.strictEqual(calls, MAX_FIX_PASSES + 1);
    assert.strictEqual(result.remaining.length, 1);
  });

  it('stops when a fix would bring back an earlier text', () => {
    const analyze = (sources: readonly string[]): LocatedFinding[] => {
      const next = sources[0] === 'a\n' ? 'b' : 'a';
      const range = { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } };
      return [{ finding: { code: 'DD004', message: 'm', severity: 'warning', related: [], range,
        fixes: [{ title: 'flip', preferred: true, edits: [{ range, newText: next }] }] } }];
    };
    const result = fixUntilStable(['a\n'], analyze);
    assert.deepStrictEqual(result.sources, ['b\n']);
  });

  it('fixes notebook cells, including an edit that lands in another cell', () => {
    const analyze = (sources: readonly string[]): LocatedFinding[] => {
      const found = sources.flatMap((s, i) => numpyFindings(s, i));
      if (found.length === 0 || sources[0].startsWith('import numpy')) return found;
      // The first finding's fix also adds an import to the first cell.
      found[0].finding.fixes[0].edits.push({ range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, newText: 'import numpy\n', cellIndex: 0 });
      return found;
    };
    const result = fixUntilStable(['import torch\n', 'x.numpy()\n'], analyze);
    assert.deepStrictEqual(result.sources, ['import numpy\nimport torch\n', 'x.cpu().numpy()\n']);
  });
});

describe('cli: notebook files', () => {
  const jupyterText = `${JSON.stringify({
    cells: [
      { cell_type: 'markdown', metadata: {}, source: ['# Title\n', 'text'] },
      { cell_type: 'code', execution_count: 1, metadata: {}, outputs: [], source: ['import torch\n', 't = torch.ones(2)'] },
      { cell_type: 'code', execution_count: null, metadata: {}, outputs: [], source: 't.numpy()' },
      { cell_type: 'raw', metadata: {}, source: [] },
    ],
    metadata: { kernelspec: { display_name: 'Python 3', language: 'python', name: 'python3' }, language_info: { name: 'python' } },
    nbformat: 4,
    nbformat_minor: 5,
  }, null, 1)}\n`;

  it('reads code cells in order, joining list sources', () => {
    const notebook = parseNotebook(jupyterText);
    assert.deepStrictEqual(notebook.sources, ['import torch\nt = torch.ones(2)', 't.numpy()']);
    assert.deepStrictEqual(notebook.codeCellPositions, [1, 2]);
    assert.strictEqual(notebook.indent, ' ');
    assert.ok(isPythonNotebook(notebook));
  });

  it('writes back byte-for-byte when nothing changed', () => {
    const notebook = parseNotebook(jupyterText);
    assert.strictEqual(serializeNotebook(notebook, notebook.sources), jupyterText);
  });

  it('changes only the edited cells, keeping list or string source form and the indent', () => {
    const notebook = parseNotebook(jupyterText);
    const written = serializeNotebook(notebook, ['import torch\nt = torch.ones(2)\nu = t\n', 't.cpu().numpy()']);
    const parsed = JSON.parse(written);
    assert.deepStrictEqual(parsed.cells[1].source, ['import torch\n', 't = torch.ones(2)\n', 'u = t\n']);
    assert.strictEqual(parsed.cells[2].source, 't.cpu().numpy()');
    assert.deepStrictEqual(parsed.cells[0], JSON.parse(jupyterText).cells[0]);
    assert.ok(written.startsWith('{\n "cells": [\n  {'));
    assert.ok(written.endsWith('}\n'));
  });

  it('keeps a compact notebook compact', () => {
    const compact = JSON.stringify({ cells: [{ cell_type: 'code', source: 'a.numpy()', metadata: {}, outputs: [] }], metadata: {}, nbformat: 4, nbformat_minor: 5 });
    const notebook = parseNotebook(compact);
    assert.strictEqual(serializeNotebook(notebook, ['a.cpu().numpy()']), compact.replace('a.numpy()', 'a.cpu().numpy()'));
  });

  it('refuses broken JSON and JSON that is not a notebook, with a reason', () => {
    assert.throws(() => parseNotebook('{"cells": ['), (err: Error) => err instanceof UnreadableFileError && /not valid notebook JSON/.test(err.message));
    assert.throws(() => parseNotebook('{"worksheets": []}'), /not a Jupyter notebook/);
    assert.throws(() => parseNotebook('[1, 2]'), /not a Jupyter notebook/);
    assert.throws(() => parseNotebook('{"cells": [{"cell_type": "code", "source": 5}]}'), /cell 1 has a source/);
  });

  it('recognizes notebooks in other languages', () => {
    const r = parseNotebook(JSON.stringify({ cells: [], metadata: { kernelspec: { language: 'R' } } }));
    assert.ok(!isPythonNotebook(r));
    assert.ok(isPythonNotebook(parseNotebook('{"cells": []}')));
  });
});

describe('cli: Python source files', () => {
  it('decodes UTF-8 and keeps a byte-order mark for writing back', () => {
    const withBom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('x = "é"\n')]);
    const decoded = decodePythonSource(withBom);
    assert.deepStrictEqual(decoded, { text: 'x = "é"\n', hasBom: true });
    assert.ok(encodePythonSource(decoded).equals(withBom));
    assert.ok(encodePythonSource(decodePythonSource(Buffer.from('y\n'))).equals(Buffer.from('y\n')));
  });

  it('refuses binary data and other encodings with a reason', () => {
    assert.throws(() => decodePythonSource(Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 1, 2])), /binary file/);
    assert.throws(() => decodePythonSource(Buffer.from('# coding: latin-1\nx = "\xe9"\n', 'latin1')), /not valid UTF-8/);
  });
});
