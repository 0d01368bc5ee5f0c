// A syntax error must not hide the rest of the file (src/core/python/recovery.ts). Every
// firing fixture of the rule corpus is broken the ways people break code while typing: a
// statement cut off in the middle, an unclosed `(` on a line of its own between two
// statements, a closing bracket deleted. Each break comes after the statement of the file's
// first finding. Then:
//  - every finding outside the broken statement is found that the analysis finds when that
//    statement is replaced by `pass`. Findings that depend on the broken statement may go:
//    a `.to(device)` cut in half, or the call after it that carries a model onto the device
//    into a function above (call-site propagation), so "every finding of the original outside
//    the broken statement" cannot hold; only recovery's own losses are failures;
//  - the broken statement is reported as skipped, starting on its own first line.
// When written: 349 broken variants with a syntax error; of the 372 original findings outside
// the broken statement 342 were found (before recovery.ts: 312), and the 30 others are lost
// with `pass` in its place too; of the 342 `pass` findings all were found (before: 310).
import { strict as assert } from 'assert';
import type { Node as TsNode } from 'web-tree-sitter';
import { analyzeSource, initPythonParser } from '../../src/core/analysis';
import type { Finding, SkippedStatement } from '../../src/core/analysis';
import { CORE_RULES } from './helpers/analysis';
import { loadRuleFixtures } from './helpers/fixtures';
import { parsePython } from '../../src/core/python/parser';

interface Statement {
  start: number;
  end: number;
  simple: boolean;
}

/** Every statement of a clean `source` (children of the module and of blocks), as rows. */
function statementsOf(source: string): Statement[] {
  const tree = parsePython(source);
  const out: Statement[] = [];
  const visit = (node: TsNode): void => {
    for (const child of node.namedChildren) {
      if (!child || child.type === 'comment') continue;
      if (node.type === 'module' || node.type === 'block') {
        out.push({ start: child.startPosition.row, end: child.endPosition.row, simple: !child.namedChildren.some((c) => c?.type === 'block') });
      }
      visit(child);
    }
  };
  try {
    visit(tree.rootNode);
  } finally {
    tree.delete();
  }
  return out;
}

/** The innermost statement containing `row`. */
function statementAt(statements: readonly Statement[], row: number): Statement | undefined {
  return statements.filter((s) => s.start <= row && row <= s.end).sort((a, b) => (a.end - a.start) - (b.end - b.start))[0];
}

interface Mutation {
  name: string;
  text: string;
  /** Rows of the broken statement in the original. */
  broken: Statement;
  /** The original with the broken statement replaced by `pass`, and how its rows map to the mutated text. */
  oracle: string;
  mapRow: (row: number) => number;
  /** Row of the mutated text where the broken statement starts. */
  brokenRow: number;
}

function withPass(lines: readonly string[], s: Statement): string {
  return lines.map((line, row) => {
    if (row < s.start || row > s.end) return line;
    return row === s.start ? `${line.match(/^\s*/)![0]}pass` : '';
  }).join('\n');
}

function mutationsOf(source: string, firstFindingRow: number): Mutation[] {
  const lines = source.split('\n');
  const statements = statementsOf(source);
  const first = statementAt(statements, firstFindingRow);
  const after = statements.filter((s) => s.simple && s.start > (first?.end ?? firstFindingRow) && lines[s.start].trim() !== '');
  // A few statements spread over the rest of the file keep the test fast.
  // And the statement just before the finding's, which a break must not take down with it
  // (a half-typed line in a loop body once hid the whole loop).
  const before = statements.filter((s) => s.simple && s.end < (first?.start ?? firstFindingRow) && lines[s.start].trim() !== '').pop();
  const picked = [...new Set([after[0], after[after.length >> 1], after[after.length - 1], before])].filter((s): s is Statement => !!s);
  const out: Mutation[] = [];
  const same = (row: number) => row;
  for (const s of picked) {
    const line = lines[s.start];
    const indent = line.match(/^\s*/)![0];
    const code = line.slice(indent.length);
    const oracle = withPass(lines, s);
    for (const fraction of [1 / 3, 1 / 2, 2 / 3]) {
      const cut = Math.max(1, Math.floor(code.length * fraction));
      const text = [...lines.slice(0, s.start), indent + code.slice(0, cut), ...lines.slice(s.start + 1)].join('\n');
      out.push({ name: `line ${s.start + 1} cut to \`${code.slice(0, cut)}\``, text, broken: s, oracle, mapRow: same, brokenRow: s.start });
    }
    // Typing a call on an object: the line stops after its first dot (`optimizer.`), which
    // tree-sitter reads on into the next line (`optimizer.with …`).
    const dot = /^[A-Za-z_]\w*\./.exec(code);
    if (dot) {
      const text = [...lines.slice(0, s.start), indent + dot[0], ...lines.slice(s.start + 1)].join('\n');
      out.push({ name: `line ${s.start + 1} cut to \`${dot[0]}\``, text, broken: s, oracle, mapRow: same, brokenRow: s.start });
    }
    const opened = [...lines.slice(0, s.start), `${indent}(`, ...lines.slice(s.start)].join('\n');
    out.push({
      name: `an unclosed ( before line ${s.start + 1}`, text: opened, broken: { start: s.start, end: s.start - 1, simple: true },
      oracle: source, mapRow: (row) => (row >= s.start ? row + 1 : row), brokenRow: s.start,
    });
    const close = Math.max(line.lastIndexOf(')'), line.lastIndexOf(']'));
    if (close >= 0) {
      const text = [...lines.slice(0, s.start), line.slice(0, close) + line.slice(close + 1), ...lines.slice(s.start + 1)].join('\n');
      out.push({ name: `the last ${line[close]} of line ${s.start + 1} deleted`, text, broken: s, oracle, mapRow: same, brokenRow: s.start });
    }
  }
  return out;
}

function key(f: Finding, mapRow: (row: number) => number = (r) => r): string {
  return `${f.code}@${mapRow(f.range.start.line) + 1}`;
}

function hasSyntaxError(text: string): boolean {
  const tree = parsePython(text);
  try {
    return tree.rootNode.hasError;
  } finally {
    tree.delete();
  }
}

describe('syntax errors: the rest of the file is analysed (every firing fixture, broken while typing)', () => {
  before(async () => {
    await initPythonParser();
  });

  for (const rule of CORE_RULES) {
    for (const fx of loadRuleFixtures(rule, 'fire')) {
      it(fx.relPath, () => {
        const original = analyzeSource(fx.source);
        if (original.length === 0) return;
        const statements = statementsOf(fx.source);
        // Broken near the finding the fixture is about (its first one of the fixture's rule).
        const target = original.find((f) => f.code === rule) ?? original[0];
        const mutations = mutationsOf(fx.source, target.range.start.line);
        const failures: string[] = [];
        for (const m of mutations) {
          if (!hasSyntaxError(m.text)) continue; // a cut that is still valid Python (`x = fo`) is another program
          const skipped: SkippedStatement[] = [];
          const found = new Set(analyzeSource(m.text, { onSyntaxError: (s) => skipped.push(s) }).map((f) => key(f)));
          const outside = (f: Finding) => {
            const s = statementAt(statements, f.range.start.line);
            return !!s && (s.end < m.broken.start || s.start > m.broken.end);
          };
          const expected = analyzeSource(m.oracle).filter(outside).map((f) => key(f, m.mapRow));
          const missing = expected.filter((k) => !found.has(k));
          if (missing.length > 0) failures.push(`${m.name}: lost ${missing.join(', ')} (found ${[...found].join(', ') || 'nothing'})`);
          if (!skipped.some((s) => s.range.start.line === m.brokenRow)) {
            failures.push(`${m.name}: skipped ${skipped.map((s) => `lines ${s.range.start.line + 1}-${s.range.end.line + 1}`).join(', ') || 'nothing'}, not the statement on line ${m.brokenRow + 1}`);
          }
        }
        assert.deepEqual(failures, []);
      });
    }
  }
});
