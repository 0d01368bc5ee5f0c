// Seeded inputs for the fuzzer: the rule corpus and the notebooks, mutated the ways real
// editor buffers go wrong (half-typed code, pasted line endings, invisible characters),
// plus rare pathological inputs (a 1 MB line, thousands of nested brackets or ifs) and
// random notebooks. Input `index` of run `seed` is a pure function of both, so any
// failure is reproduced from the pair.
import { SeededRandom } from '../unit/helpers/prng';
import { mutate as tokenMutate } from '../unit/helpers/robustInputs';
import type { Corpus } from './corpus';

export type FuzzInput =
  | { kind: 'source'; label: string; source: string }
  | { kind: 'notebook'; label: string; cells: string[] };

/** One rng per input: input `index` does not depend on how many random numbers earlier inputs drew. */
export function inputRandom(seed: number, index: number): SeededRandom {
  let h = (seed ^ Math.imul(index + 1, 0x9e3779b1)) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return new SeededRandom((h ^ (h >>> 16)) >>> 0);
}

/** Lines with their line breaks (`\n`, `\r\n`, lone `\r`), so that joining gives the text back. */
export function splitKeepingBreaks(text: string): string[] {
  const lines: string[] = [];
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (ch === 13 && text.charCodeAt(i + 1) === 10) i++;
    if (ch === 13 || ch === 10) {
      lines.push(text.slice(start, i + 1));
      start = i + 1;
    }
  }
  if (start < text.length) lines.push(text.slice(start));
  return lines;
}

function insertAt(text: string, at: number, piece: string): string {
  return text.slice(0, at) + piece + text.slice(at);
}

function times(rng: SeededRandom, max: number, f: () => void): void {
  for (let i = 1 + rng.int(max); i > 0; i--) f();
}

/** A random line boundary (0 = the start, lines.length = after the last line). */
function lineBoundary(rng: SeededRandom, lines: string[]): number {
  return rng.int(lines.length + 1);
}

/** Joins `lines`, making sure the line before `at` ends with a break so an inserted block stays a block. */
function insertLines(lines: string[], at: number, block: string): string {
  const before = lines.slice(0, at);
  if (before.length && !/[\r\n]$/.test(before[before.length - 1])) before[before.length - 1] += '\n';
  return before.join('') + block + lines.slice(at).join('');
}

/** Replaces some of the `\n` breaks (not those of `\r\n`) by `to`. */
function replaceSomeNewlines(rng: SeededRandom, text: string, to: string, share: number): string {
  return text.replace(/(\r?)\n/g, (m, cr: string) => (cr || rng.next() >= share ? m : to));
}

const BIDI = ['\u202e', '\u202d', '\u202a', '\u202b', '\u202c', '\u2066', '\u2067', '\u2068', '\u2069', '\u200f', '\u200e', '\u061c'];
const ODD_CHARS = ['\ufeff', '\u200b', '\u00a0', '\u2028', '\u2029', '\f', '\v', '\u0085', '\u3000', '\t', '\x1b', '\x7f', 'é', '🔥', '\u0301'];

/** A line's code and its `#` comment (a `#` inside a simple string literal is not one). */
function splitComment(line: string): [string, string] {
  let quote = '';
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    if (quote) {
      if (ch === '\\') i++;
      else if (ch === quote) quote = '';
    } else if (ch === '"' || ch === "'") quote = ch;
    else if (ch === '#') return [line.slice(0, i), line.slice(i)];
  }
  return [line, ''];
}

export interface Mutator {
  name: string;
  weight: number;
  apply(rng: SeededRandom, text: string, corpus: Corpus): string;
}

export const MUTATORS: readonly Mutator[] = [
  {
    name: 'delete-chars',
    weight: 3,
    apply: (rng, text) => {
      let t = text;
      times(rng, 4, () => {
        const at = rng.int(t.length + 1);
        t = t.slice(0, at) + t.slice(at + 1 + rng.int(6));
      });
      return t;
    },
  },
  {
    name: 'delete-lines',
    weight: 3,
    apply: (rng, text) => {
      const lines = splitKeepingBreaks(text);
      times(rng, 3, () => {
        if (lines.length) lines.splice(rng.int(lines.length), 1 + rng.int(3));
      });
      return lines.join('');
    },
  },
  {
    name: 'duplicate-lines',
    weight: 3,
    apply: (rng, text) => {
      const lines = splitKeepingBreaks(text);
      if (!lines.length) return text;
      const from = rng.int(lines.length);
      const block = lines.slice(from, from + 1 + rng.int(4));
      const at = rng.int(2) ? from + block.length : lineBoundary(rng, lines);
      return insertLines(lines, at, block.map((l) => (/[\r\n]$/.test(l) ? l : l + '\n')).join(''));
    },
  },
  {
    name: 'truncate',
    weight: 3,
    apply: (rng, text) => text.slice(0, rng.int(text.length + 1)),
  },
  {
    name: 'lone-cr',
    weight: 2,
    apply: (rng, text) => {
      const how = rng.int(3);
      if (how === 0) return text.replace(/\r?\n/g, '\r');
      if (how === 1) return replaceSomeNewlines(rng, text, '\r', 0.5);
      let t = text;
      times(rng, 3, () => (t = insertAt(t, rng.int(t.length + 1), '\r')));
      return t;
    },
  },
  {
    name: 'crlf-mix',
    weight: 2,
    apply: (rng, text) => (rng.int(3) === 0 ? text.replace(/\r?\n/g, '\r\n') : replaceSomeNewlines(rng, text, rng.int(4) ? '\r\n' : '\n\r', 0.5)),
  },
  {
    name: 'nul',
    weight: 1,
    apply: (rng, text) => {
      let t = text;
      times(rng, 3, () => (t = insertAt(t, rng.int(t.length + 1), '\0')));
      return t;
    },
  },
  {
    name: 'lone-surrogate',
    weight: 1,
    apply: (rng, text) => {
      let t = text;
      times(rng, 3, () => {
        const code = rng.int(2) ? 0xd800 + rng.int(0x400) : 0xdc00 + rng.int(0x400);
        t = insertAt(t, rng.int(t.length + 1), String.fromCharCode(code));
      });
      return t;
    },
  },
  {
    name: 'bidi-mark',
    weight: 2,
    apply: (rng, text) => {
      let t = text;
      times(rng, 3, () => {
        // Half of them inside a comment or string (valid Python, "Trojan Source"), half anywhere.
        const anchors = [...t.matchAll(/#|"|'/g)].map((m) => m.index! + 1);
        const at = anchors.length && rng.int(2) ? rng.pick(anchors) : rng.int(t.length + 1);
        t = insertAt(t, at, rng.pick(BIDI));
      });
      return t;
    },
  },
  {
    name: 'odd-whitespace',
    weight: 2,
    apply: (rng, text) => {
      const how = rng.int(4);
      if (how === 0) return '\ufeff' + text;
      if (how === 1) return text.replace(/^((?: {4})+)/gm, (spaces) => '\t'.repeat(spaces.length / 4));
      let t = text;
      times(rng, 3, () => (t = insertAt(t, rng.int(t.length + 1), rng.pick(ODD_CHARS))));
      return t;
    },
  },
  {
    name: 'tokens',
    weight: 3,
    apply: (rng, text) => tokenMutate(rng, text, 1 + rng.int(3)),
  },
  {
    name: 'splice-corpus',
    weight: 2,
    apply: (rng, text, corpus) => {
      const other = splitKeepingBreaks(rng.pick(corpus.files).source);
      const from = rng.int(other.length);
      return insertLines(splitKeepingBreaks(text), lineBoundary(rng, splitKeepingBreaks(text)), other.slice(from, from + 1 + rng.int(12)).join(''));
    },
  },
  {
    // Mostly keeps the file valid: the rest of the file moves into a block, so fixes meet new indentation.
    name: 'wrap-in-block',
    weight: 3,
    apply: (rng, text) => {
      const lines = splitKeepingBreaks(text);
      const at = lineBoundary(rng, lines);
      const header = rng.pick(['if True:', 'for _ in range(2):', 'with torch.no_grad():', 'def wrapper(model, device):', 'while True:', 'try:', 'class Wrapper:']);
      const indent = rng.pick(['    ', '  ', '\t']);
      const body = lines.slice(at).map((l) => (/^\s*$/.test(l) ? l : indent + l));
      const tail = header === 'try:' ? 'except Exception:\n    pass\n' : '';
      const last = body.length ? body[body.length - 1] : '';
      return insertLines(lines.slice(0, at), at, `${header}\n${body.join('') || indent + 'pass\n'}${tail && !/[\r\n]$/.test(last) ? '\n' : ''}${tail}`);
    },
  },
  {
    // Two statements on one line: `a; b` is valid, `a, b` makes one tuple expression statement.
    name: 'join-statements',
    weight: 3,
    apply: (rng, text) => {
      const lines = splitKeepingBreaks(text);
      const indent = (l: string) => /^[ \t]*/.exec(l)![0];
      const joinable = lines.flatMap((l, i) => (i + 1 < lines.length && /\S/.test(l) && !/[:\\,(\[{]\s*$/.test(l.replace(/#.*/, '')) && indent(lines[i + 1]) === indent(l) && /\S/.test(lines[i + 1]) ? [i] : []));
      // A comma makes valid Python only between expressions: pick lines without an assignment for it.
      const assigns = (l: string) => /(^|[^=!<>+\-*/%&|^@:])=(?!=)/.test(l.replace(/#.*/, '').replace(/"[^"]*"|'[^']*'|\([^()]*\)/g, ''));
      const statement = (l: string) => /^\s*(#|@|(import|from|with|if|elif|else|for|while|def|class|return|try|except|finally|raise|assert|del|pass|break|continue|global|nonlocal|async|yield)\b)/.test(l);
      const expression = (l: string) => !assigns(l) && !statement(l);
      const expressions = joinable.filter((i) => expression(lines[i]) && expression(lines[i + 1]));
      const comma = expressions.length > 0 && rng.int(3) > 0;
      if (!joinable.length) return text;
      const i = comma ? rng.pick(expressions) : rng.pick(joinable);
      const sep = comma ? rng.pick([', ', ',']) : rng.pick(['; ', ';', ', ']);
      // The first line's comment moves to the end, so the second statement is not swallowed by it.
      const [code, comment] = splitComment(lines[i].replace(/[\r\n]+$/, ''));
      const [next, nextComment] = splitComment(lines[i + 1].trimStart());
      const brk = /[\r\n]+$/.exec(next + nextComment)?.[0] ?? '';
      const tail = `${nextComment.replace(/[\r\n]+$/, '')}${comment ? (nextComment ? ' ' : '  ') + comment.trim() : ''}`;
      lines.splice(i, 2, `${code.trimEnd()}${sep}${next.replace(/[\r\n]+$/, '')}${tail}${brk}`);
      return lines.join('');
    },
  },
  {
    name: 'trailing-comma',
    weight: 1,
    apply: (rng, text) => {
      const lines = splitKeepingBreaks(text);
      const candidates = lines.flatMap((l, i) => (/\)\s*$/.test(l.replace(/[\r\n]+$/, '')) ? [i] : []));
      if (!candidates.length) return text;
      const i = rng.pick(candidates);
      lines[i] = lines[i].replace(/^([^\r\n]*?)(\s*)([\r\n]*)$/, '$1,$2$3');
      return lines.join('');
    },
  },
  {
    name: 'line-ends',
    weight: 2,
    apply: (rng, text) => {
      const how = rng.int(4);
      if (how === 0) return text.replace(/[\r\n]+$/, '');
      const lines = splitKeepingBreaks(text);
      if (!lines.length) return text;
      const i = rng.int(lines.length);
      const suffix = how === 1 ? '  # noqa' : how === 2 ? '   \t' : '  # trailing comment ()[]{"\'';
      lines[i] = lines[i].replace(/^([^\r\n]*)/, `$1${suffix}`);
      return lines.join('');
    },
  },
];

const TOTAL_WEIGHT = MUTATORS.reduce((sum, m) => sum + m.weight, 0);

export function pickMutator(rng: SeededRandom): Mutator {
  let r = rng.next() * TOTAL_WEIGHT;
  for (const m of MUTATORS) {
    r -= m.weight;
    if (r < 0) return m;
  }
  return MUTATORS[MUTATORS.length - 1];
}

/**
 * Mutators that usually keep a valid file valid: most mutants are broken Python, on which
 * fixes are not judged, so a share of the inputs gets only these.
 */
export const GENTLE = new Set(['wrap-in-block', 'join-statements', 'trailing-comma', 'crlf-mix', 'lone-cr', 'line-ends', 'duplicate-lines']);
const GENTLE_MUTATORS = MUTATORS.filter((m) => GENTLE.has(m.name));

/** Applies 1..max random mutators; returns the text and their names. */
export function mutateRandomly(rng: SeededRandom, text: string, corpus: Corpus, max = 3): { text: string; names: string[] } {
  const names: string[] = [];
  let t = text;
  times(rng, max, () => {
    const m = pickMutator(rng);
    names.push(m.name);
    t = m.apply(rng, t, corpus);
  });
  return { text: t, names };
}

const ONE_MB = 1 << 20;

/** A line of about 1 MB; most are cheap to analyse (a string, a comment, a long name), a few are long expressions. */
export function hugeLine(rng: SeededRandom): { name: string; line: string } {
  const variants: Array<[string, () => string]> = [
    ['string', () => `s = "${'x'.repeat(ONE_MB)}"; t_gpu.numpy()`],
    ['comment', () => `t_gpu.numpy()  # ${'é'.repeat(ONE_MB / 2)}`],
    ['identifier', () => {
      const name = 'a'.repeat(ONE_MB / 2);
      return `${name} = torch.ones(3).cuda(); ${name}.numpy()`;
    }],
    ['emoji-string', () => `s = "${'🔥'.repeat(ONE_MB / 4)}"; x = torch.randn(3); model(x)`],
    ['list', () => `x = [${'1, '.repeat(ONE_MB / 6)}]`],
  ];
  const [name, make] = rng.next() < 0.9 ? rng.pick(variants.slice(0, 4)) : variants[4];
  return { name: `huge-line:${name}`, line: make() };
}

/** Thousands of brackets, hundreds of nested blocks, long chains. */
export function deepConstruct(rng: SeededRandom): { name: string; block: string } {
  const n = 1000 + rng.int(4000);
  const ind = (i: number) => ' '.repeat(i);
  const variants: Array<[string, () => string]> = [
    ['parens', () => `x = ${'('.repeat(n)}t_gpu${')'.repeat(n)}\nx.numpy()\n`],
    ['open-brackets', () => `x = ${Array.from({ length: n }, (_, i) => '([{'[i % 3]).join('')}\n`],
    ['close-brackets', () => `x = t_gpu${')]}'.repeat(n / 3)}\n`],
    ['lists', () => `x = ${'['.repeat(n)}t_gpu${']'.repeat(n)}\n`],
    ['calls', () => `x = ${'torch.relu('.repeat(n)}t_gpu${')'.repeat(n)}\nx.numpy()\n`],
    ['dicts', () => `x = ${'{"k": '.repeat(n)}t_gpu${'}'.repeat(n)}\n`],
    ['subscripts', () => `x = ${'t_gpu['.repeat(n)}0${']'.repeat(n)}\n`],
    ['lambdas', () => `f = ${'lambda: '.repeat(n)}t_gpu.numpy()\n`],
    ['unary', () => `x = ${'not '.repeat(n)}t_gpu\ny = ${'-'.repeat(n)}t_gpu\n`],
    ['method-chain', () => `x = t_gpu${'.to(device)'.repeat(n)}.numpy()\n`],
    ['binary', () => `x = ${Array(n).fill('t_gpu').join(' + ')}\nx.numpy()\n`],
    ['ifs', () => {
      const d = 100 + rng.int(1400);
      return Array.from({ length: d }, (_, i) => `${ind(i)}if t_gpu.sum() > ${i}:\n`).join('') + `${ind(d)}t_gpu.numpy()\n`;
    }],
    ['defs', () => {
      const d = 50 + rng.int(300);
      return Array.from({ length: d }, (_, i) => `${ind(i)}def f${i}(model, device):\n`).join('') + `${ind(d)}return model(torch.randn(2).to(device))\n`;
    }],
    ['loops', () => {
      // Loop bodies are iterated to a fixed point: nesting depth is where that can blow up.
      const d = 6 + rng.int(30);
      const header = (i: number) => [`for xb${i}, yb${i} in train_loader:`, `while step${i} < n:`, `for i${i} in range(3):`][rng.int(3)];
      return Array.from({ length: d }, (_, i) => `${ind(i)}${header(i)}\n`).join('') + `${ind(d)}loss = loss_fn(model(xb0), yb0)\n`;
    }],
    ['elifs', () => `if t_gpu.sum() > 0:\n    x = t_gpu\n${Array.from({ length: n }, (_, i) => `elif t_gpu.sum() > ${i}:\n    x = t_gpu.cpu()\n`).join('')}x.numpy()\n`],
    ['unclosed-ifs', () => Array.from({ length: 100 + rng.int(900) }, (_, i) => `${ind(i)}if (x${i}:\n`).join('')],
  ];
  const [name, make] = rng.pick(variants);
  return { name: `deep:${name}`, block: make() };
}

const ODD_CELLS = [
  '', '\n', '   ', '\r', '\r\n', '\n\n\n', '# just a comment', '"""a docstring cell"""',
  '%matplotlib inline', '%matplotlib inline\n', '!pip install torch\n', '!nvidia-smi', '%%bash\necho hi\n',
  '%%time\nx = 1\n', '%%time\nt = torch.ones(2).cuda()\nt.numpy()\n', 'files = !ls\n', 'f = !l\nf.numpy()\n',
  '%%writefile model.py\nimport torch\nt = torch.ones(2).cuda()\nt.numpy()\n', '%%capture --no-stdout\n', '?torch.randn', 'torch.randn??',
  '%time y = t_gpu.numpy()\n', '%timeit -n 10 x.to(device)\n', '%%html\n<b>hi</b>\n', '  %load_ext autoreload\n%autoreload 2\n',
  'import torch\nt = torch.ones(3).cuda()\n!nvidia-smi\nt.numpy()\n', '%%sh\r\nls\r\n', 'x = !echo 1\rprint(x)\r',
  '%env CUDA_VISIBLE_DEVICES=0\n', '!', '%', '%%', '%%\n', 'display(t_gpu)\n', '\ufeffimport torch\n', 'for xb, yb in train_loader:\n    %time model(xb)\n',
  'import torch\ndevice = torch.device("cuda")\nmodel = torch.nn.Linear(2, 2).to(device)\nx = torch.randn(2, 2)\n', 'model(x)\n', 'x.numpy()', 'x.to(device)',
];

function sliceLines(rng: SeededRandom, text: string): string {
  const lines = splitKeepingBreaks(text);
  const from = rng.int(lines.length + 1);
  return lines.slice(from, from + 1 + rng.int(15)).join('');
}

function randomNotebook(rng: SeededRandom, corpus: Corpus): { label: string; cells: string[] } {
  if (corpus.notebooks.length && rng.int(3) === 0) {
    // A real notebook, its cells mutated, dropped, duplicated or reordered.
    const nb = rng.pick(corpus.notebooks);
    let cells = [...nb.cells];
    const ops: string[] = [];
    if (rng.int(4) === 0 && cells.length > 1) {
      const i = rng.int(cells.length);
      cells.splice(i, 1);
      ops.push('drop-cell');
    }
    if (rng.int(4) === 0 && cells.length) {
      const i = rng.int(cells.length);
      cells.splice(rng.int(cells.length + 1), 0, cells[i]);
      ops.push('duplicate-cell');
    }
    if (rng.int(6) === 0) {
      cells = cells.map((c) => ({ c, k: rng.next() })).sort((a, b) => a.k - b.k).map((x) => x.c);
      ops.push('shuffle');
    }
    cells = cells.map((c, i) => {
      if (rng.int(3)) return c;
      const m = mutateRandomly(rng, c, corpus, 2);
      ops.push(`cell${i}:${m.names.join('+')}`);
      return m.text;
    });
    return { label: `${nb.relPath} ${ops.join(' ') || 'unchanged'}`, cells };
  }
  const parts: string[] = [];
  const cells = Array.from({ length: 1 + rng.int(8) }, () => {
    const r = rng.int(10);
    let cell: string;
    if (r < 3) {
      const f = rng.pick(corpus.files);
      parts.push(f.relPath.split('/').slice(-3).join('/'));
      cell = f.source;
    } else if (r < 5) {
      const f = rng.pick(corpus.files);
      parts.push(`slice(${f.relPath.split('/').slice(-3).join('/')})`);
      cell = sliceLines(rng, f.source);
    } else if (r < 7 && corpus.cells.length) {
      parts.push('notebook-cell');
      cell = rng.pick(corpus.cells);
    } else {
      parts.push('odd-cell');
      cell = rng.pick(ODD_CELLS);
    }
    if (rng.int(4) === 0) {
      const m = mutateRandomly(rng, cell, corpus, 2);
      parts.push(`(${m.names.join('+')})`);
      cell = m.text;
    }
    return cell;
  });
  return { label: `random notebook: ${parts.join(' ')}`, cells };
}

export interface GenerateOptions {
  /** Chance of a ~1 MB line (default 1/2000: a few per 10,000 inputs). */
  hugeLineRate?: number;
  /** Chance of a deeply nested construct (default 1/40). */
  deepRate?: number;
  /** Chance of a notebook (default 1/5). */
  notebookRate?: number;
}

/** Input `index` of the run with `seed`. */
export function generateInput(seed: number, index: number, corpus: Corpus, options: GenerateOptions = {}): FuzzInput {
  const rng = inputRandom(seed, index);
  const { hugeLineRate = 1 / 2000, deepRate = 1 / 40, notebookRate = 1 / 5 } = options;
  const roll = rng.next();
  if (roll < notebookRate) {
    const nb = randomNotebook(rng, corpus);
    return { kind: 'notebook', ...nb };
  }
  const file = rng.pick(corpus.files);
  const lines = splitKeepingBreaks(file.source);
  if (roll < notebookRate + hugeLineRate) {
    const { name, line } = hugeLine(rng);
    return { kind: 'source', label: `${file.relPath} + ${name}`, source: insertLines(lines, lineBoundary(rng, lines), line + '\n') };
  }
  if (roll < notebookRate + hugeLineRate + deepRate) {
    const { name, block } = deepConstruct(rng);
    return { kind: 'source', label: `${file.relPath} + ${name}`, source: insertLines(lines, lineBoundary(rng, lines), block) };
  }
  if (rng.int(20) === 0) return { kind: 'source', label: `${file.relPath} unchanged`, source: file.source };
  if (rng.int(4) === 0) {
    let text = file.source;
    const names: string[] = [];
    times(rng, 2, () => {
      const m = rng.pick(GENTLE_MUTATORS);
      names.push(m.name);
      text = m.apply(rng, text, corpus);
    });
    return { kind: 'source', label: `${file.relPath} + gentle ${names.join(' + ')}`, source: text };
  }
  const m = mutateRandomly(rng, file.source, corpus, 3);
  return { kind: 'source', label: `${file.relPath} + ${m.names.join(' + ')}`, source: m.text };
}
