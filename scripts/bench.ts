// npm run bench: the analyzer's speed as ratios against references measured in the
// same run on the same inputs (machines are noisy; ratios are what we compare), beside
// the goals of the issue "Analysis engine". It measures and prints; nothing here is a test.
//   1. analysis / Ruff (wasm build, pyflakes + pycodestyle rules, a linter people already
//      run on every keystroke) and analysis / tree-sitter parse (the floor any analysis
//      pays), in process, on the rule corpus and on 1k, 5k and 20k lines of real code;
//   2. keystroke -> publishDiagnostics through the real server (dist/server.js --stdio), and a
//      code action on a small file while the server analyses a 20,000-line one;
//   3. the server's memory after opening a 10,000-line file;
//   4. the start-up of `device-doctor lint` on a 10-line file over `node -e 0`;
//   5. across files: first diagnostics of a file importing a 200-file project, and its
//      re-analysis after an edit in an imported module (scripts/bench-cross-file.ts).
//   6. the torch engine against a direct torch timing (scripts/bench-torch-agreement.ts, its
//      rule in that file's header);
//   7. `device-doctor detect` against `python -c "import torch"` with the same interpreter,
//      the floor of any detect (goal: detect <= 1.2x), in turn, with probe.py alone beside them;
//   8. whole repositories linted as users lint them, against Ruff on the same files, with the
//      slowest file (scripts/bench-repositories.ts; BENCH_REPOSITORY=DIR adds one, e.g. timm).
//   9. the server's memory in a 1,000-file workspace, 30 files opened (scripts/bench-server-memory.ts;
//      the real code folder when given, else a generated package).
// Real code: `npm run bench -- --real-code DIR` or BENCH_REAL_CODE=DIR, a folder of .py
// files and notebooks from public PyTorch repositories (../shared/tools/extract.sh). They
// are read at bench time and never committed. Without one, the generated training script
// of test/unit/helpers/bigScript.ts stands in, and the output says so.
// `--only N[,M]` runs just those sections (e.g. `npm run bench -- --only 4` for the start-up).
// Environment: BENCH_REPEATS (timed runs per figure, default 5), BENCH_KEYSTROKES
// (timed keystrokes per size, default 40), BENCH_STARTS (lint start-ups, default 10),
// BENCH_TORCH_STARTS (rounds of section 7, default 5).
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { Workspace, PositionEncoding } from '@astral-sh/ruff-wasm-nodejs';
import { analyzeSource, initPythonParser } from '../src/core/analysis';
import { parsePython } from '../src/core/python/parser';
import { blankIPythonSyntax } from '../src/core/analysis/notebook';
import { generateTrainingScript } from '../test/unit/helpers/bigScript';
import { TestClient } from '../test/process/serverClient';
import { DD003_SOURCE } from '../test/process/serverProbe';
import { buildDist, torchAgreementSection } from './bench-torch-agreement';
import { crossFileSection } from './bench-cross-file';
import { repositoriesSection } from './bench-repositories';
import { serverMemorySection } from './bench-server-memory';
import { startProcess } from '../src/node/processRunner';

const ROOT = path.join(__dirname, '..');
const REPEATS = Number(process.env.BENCH_REPEATS ?? 5);
const KEYSTROKES = Number(process.env.BENCH_KEYSTROKES ?? 40);
const STARTS = Number(process.env.BENCH_STARTS ?? 10);
const TORCH_STARTS = Number(process.env.BENCH_TORCH_STARTS ?? 5);

// ---- inputs ----

function ruleCorpus(): string {
  const root = path.join(ROOT, 'test', 'fixtures', 'rules');
  const files: string[] = [];
  for (const rule of fs.readdirSync(root)) {
    for (const verdict of ['fire', 'silent']) {
      const dir = path.join(root, rule, verdict);
      if (!fs.existsSync(dir)) continue;
      for (const f of fs.readdirSync(dir).sort()) files.push(fs.readFileSync(path.join(dir, f), 'utf8'));
    }
  }
  return files.join('\n\n');
}

function realCodeFolder(): string | undefined {
  const flag = process.argv.indexOf('--real-code');
  const dir = flag >= 0 ? process.argv[flag + 1] : process.env.BENCH_REAL_CODE;
  return dir ? path.resolve(dir) : undefined;
}

function filesUnder(dir: string, ext: string): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...filesUnder(full, ext));
    else if (entry.isFile() && entry.name.endsWith(ext)) out.push(full);
  }
  return out;
}

/** A notebook's code cells as one Python text, IPython syntax blanked as notebook analysis does. */
function notebookCode(file: string): string | undefined {
  try {
    const notebook = JSON.parse(fs.readFileSync(file, 'utf8')) as { cells?: Array<{ cell_type?: string; source?: string | string[] }> };
    const cells = (notebook.cells ?? []).filter((c) => c.cell_type === 'code');
    // The analyzer's own blanking of IPython syntax (a %%writefile cell is not Python), so
    // the inputs are what notebook analysis reads, not syntax errors of the concatenation.
    return cells.map((c) => blankIPythonSyntax(Array.isArray(c.source) ? c.source.join('') : c.source ?? '')).join('\n\n');
  } catch {
    return undefined;
  }
}

/** Real code in units (one file or notebook each): per repository, .py files that use torch, other .py files, then notebooks. */
interface RealCode {
  units: string[][]; // per repository, in the order they are taken
  sources: number;
  repositories: number;
  lines: number;
}

function readRealCode(dir: string): RealCode {
  const repos = fs.readdirSync(dir, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => path.join(dir, e.name)).sort();
  if (repos.length === 0) repos.push(dir);
  const units: string[][] = [];
  let sources = 0;
  let lines = 0;
  for (const repo of repos) {
    const py = filesUnder(repo, '.py').map((f) => fs.readFileSync(f, 'utf8').replace(/\r\n?/g, '\n'));
    const notebooks = filesUnder(repo, '.ipynb').map(notebookCode).filter((t): t is string => t !== undefined && t.trim() !== '');
    const texts = [...py.filter((t) => /\bimport torch\b/.test(t)), ...py.filter((t) => !/\bimport torch\b/.test(t)), ...notebooks]
      .filter((t) => t.length < 256 * 1024);
    if (texts.length === 0) continue;
    units.push(texts);
    sources += texts.length;
    lines += texts.reduce((n, t) => n + t.split('\n').length, 0);
  }
  return { units, sources, repositories: units.length, lines };
}

/**
 * `n` lines of real code: whole files taken in turn from each repository (so every size
 * mixes them), the last one cut after a top-level statement. Cycles when the folder is short.
 */
function realCodeOfLines(code: RealCode, n: number): string {
  const out: string[] = [];
  const next = code.units.map(() => 0);
  for (let r = 0; out.length < n; r = (r + 1) % code.units.length) {
    const unit = code.units[r][next[r]++ % code.units[r].length];
    const lines = unit.replace(/\n+$/, '').split('\n');
    const room = n - out.length;
    if (lines.length + 2 <= room) {
      out.push(...lines, '', '');
      continue;
    }
    // Cut before the last top-level line that fits, so no block is left open.
    let cut = room;
    while (cut > 0 && !/^[A-Za-z@_]/.test(lines[cut] ?? '')) cut--;
    out.push(...lines.slice(0, cut));
    while (out.length < n) out.push('');
  }
  return out.join('\n') + '\n';
}

function generatedOfLines(n: number): string {
  return generateTrainingScript(n).text.split('\n').slice(0, n).join('\n') + '\n';
}

// ---- helpers ----

function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

const median = (xs: readonly number[]) => quantile([...xs].sort((a, b) => a - b), 0.5);

function timeMs(run: () => void): number {
  const t0 = process.hrtime.bigint();
  run();
  return Number(process.hrtime.bigint() - t0) / 1e6;
}

/**
 * Each run once to warm up (JIT, wasm tier-up), then REPEATS rounds of all of them in turn,
 * so that a slow stretch of a shared machine slows every side of a ratio alike.
 */
function rounds(runs: ReadonlyArray<() => void>): number[][] {
  for (const run of runs) run();
  const times = runs.map((): number[] => []);
  for (let r = 0; r < REPEATS; r++) runs.forEach((run, i) => times[i].push(timeMs(run)));
  return times;
}

function table(header: readonly string[], rows: ReadonlyArray<readonly string[]>): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: readonly string[]) => cells.map((c, i) => (i === 0 || i === cells.length - 1 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ').trimEnd();
  console.log(line(header));
  for (const row of rows) console.log(line(row));
}

const fixed = (x: number, digits = 1) => (Number.isFinite(x) ? x.toFixed(digits) : 'n/a');
const verdict = (ok: boolean) => (ok ? 'met' : 'NOT met');

/** `new = name.replace("a0", "b0").replace(...)…` with `links` calls: each receiver was once evaluated twice (2^n). */
function methodChain(links: number): string {
  const chain = Array.from({ length: links }, (_, i) => `.replace("a${i}", "b${i}")`).join('');
  return `import torch\nstate = {}\nfor key, value in state.items():\n    name = key\n    new = name${chain}\n    print(new, value)\n`;
}

/**
 * `depth` module classes, each holding two blocks of the class below it and one of the class
 * two below, none placed on a device: whether a class places its own submodules was once
 * worked out along every path through them (3^depth).
 */
function nestedBlocks(depth: number): string {
  const lines = ['import torch', 'import torch.nn as nn', '', 'class Block0(nn.Module):', '    def __init__(self):', '        super().__init__()',
    '        self.w = nn.Linear(4, 4)', '', '    def forward(self, x):', '        return self.w(x)', ''];
  for (let i = 1; i < depth; i++) {
    lines.push(`class Block${i}(nn.Module):`, '    def __init__(self):', '        super().__init__()', `        self.a = Block${i - 1}()`,
      `        self.b = Block${i - 1}()`, `        self.c = Block${Math.max(i - 2, 0)}()`, '', '    def forward(self, x):',
      '        return self.c(self.b(self.a(x)))', '');
  }
  lines.push(`net = Block${depth - 1}()`, 'print(net(torch.randn(2, 4)))', '');
  return lines.join('\n');
}

// ---- 1. analysis against Ruff and tree-sitter, in process ----

async function analysisSection(inputs: Array<[string, string, number | undefined]>): Promise<void> {
  await initPythonParser();
  const ruff = new Workspace({ lint: { select: ['E', 'F'] } }, PositionEncoding.Utf16);
  console.log(`## 1. Analysis in process: medians of ${REPEATS} rounds (parse, analysis, Ruff in turn) after a warm-up; ratios: medians of the rounds' ratios`);
  const rows: string[][] = [];
  for (const [name, source, goalRuff] of inputs) {
    const [parse, analyze, lint] = rounds([() => parsePython(source).delete(), () => analyzeSource(source), () => ruff.check(source)]);
    const ratio = median(analyze.map((a, r) => a / lint[r]));
    rows.push([
      name, String(source.split('\n').length - 1), fixed(median(parse)), fixed(median(analyze)), fixed(median(lint)),
      fixed(median(analyze.map((a, r) => a / parse[r])), 2), fixed(ratio, 2),
      goalRuff === undefined ? '-' : `analysis/ruff <= ${goalRuff}: ${verdict(ratio <= goalRuff)}`,
    ]);
  }
  table(['input', 'lines', 'parse ms', 'analyze ms', 'ruff ms', 'analyze/parse', 'analyze/ruff', 'goal'], rows);
}

// ---- 2 and 3. the real server: keystroke latency and memory ----

function rssMb(pid: number | undefined): { rss: number; hwm: number } | undefined {
  if (pid === undefined) return undefined;
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
    return { rss: kb('VmRSS') / 1024, hwm: kb('VmHWM') / 1024 };
  } catch {
    return undefined;
  }
}

/** A line inside a function body near the middle: the edit point, with its indentation. */
function editPoint(text: string): { line: number; indent: string } {
  const lines = text.split('\n');
  const mid = Math.floor(lines.length / 2);
  for (let d = 0; d < lines.length; d++) {
    for (const i of [mid + d, mid - d]) {
      const m = /^(\s+)(?!#)\S/.exec(lines[i] ?? '');
      // An indented statement whose nearest less-indented line above is a def.
      if (!m || /[:\\,([{]\s*$/.test(lines[i]) || !/^\s+[A-Za-z_][\w.]*\s*(=|\(|\+=)/.test(lines[i])) continue;
      let j = i - 1;
      while (j >= 0 && !(lines[j].trim() !== '' && /^\s*/.exec(lines[j])![0].length < m[1].length)) j--;
      if (j >= 0 && /^\s*(async\s+)?def\s/.test(lines[j]) && /:\s*(#.*)?$/.test(lines[j])) return { line: i, indent: m[1] };
    }
  }
  throw new Error('no function body to type into');
}

interface KeystrokeFigures {
  lines: number;
  p50: number;
  p95: number;
  max: number;
  count: number;
  openMs: number;
  rssAfterOpen?: { rss: number; hwm: number };
  rssAfterTyping?: { rss: number; hwm: number };
}

async function typeInServer(text: string, keystrokes: number): Promise<KeystrokeFigures> {
  const { client } = await TestClient.start();
  client.settings = { debounceMs: 0, maxFileLines: 0, maxFileBytes: 0 };
  try {
    const uri = `file://${path.join(os.tmpdir(), 'device-doctor-bench', 'train.py')}`;
    let version = 1;
    const t0 = performance.now();
    const opened = client.diagnosticsFor(uri, (p) => p.version === version, 120_000);
    await client.openFile(uri, text, version);
    await opened;
    const openMs = performance.now() - t0;
    const rssAfterOpen = rssMb(client.child.pid);
    // Type a statement at the end of a body line, one character per didChange, then
    // delete it again, one backspace at a time: every other state is mid-word or a syntax error.
    const { line, indent } = editPoint(text);
    const lineText = text.split('\n')[line];
    const typed = `\n${indent}total = total + 1`;
    const edits: Array<{ range: { start: { line: number; character: number }; end: { line: number; character: number } }; text: string }> = [];
    let row = line;
    let col = lineText.length;
    for (const ch of typed) {
      edits.push({ range: { start: { line: row, character: col }, end: { line: row, character: col } }, text: ch });
      if (ch === '\n') { row++; col = 0; } else col++;
    }
    for (let k = typed.length - 1; k >= 0; k--) {
      const ch = typed[k];
      const start = ch === '\n' ? { line: row - 1, character: lineText.length } : { line: row, character: col - 1 };
      edits.push({ range: { start, end: { line: row, character: col } }, text: '' });
      if (ch === '\n') { row--; col = lineText.length; } else col--;
    }
    const WARM_UP = 3;
    const times: number[] = [];
    for (let k = 0; k < keystrokes + WARM_UP; k++) {
      const edit = edits[k % edits.length];
      version++;
      const expected = version;
      const published = client.diagnosticsFor(uri, (p) => p.version === expected, 120_000);
      const start = performance.now();
      await client.connection.sendNotification('textDocument/didChange', { textDocument: { uri, version }, contentChanges: [edit] });
      await published;
      if (k >= WARM_UP) times.push(performance.now() - start);
    }
    times.sort((a, b) => a - b);
    return {
      lines: text.split('\n').length - 1, p50: quantile(times, 0.5), p95: quantile(times, 0.95), max: times[times.length - 1],
      count: times.length, openMs, rssAfterOpen, rssAfterTyping: rssMb(client.child.pid),
    };
  } finally {
    await client.stop();
  }
}

interface CodeActionFigures {
  /** Answered while the large file's analysis ran, and after it. */
  during: number[];
  idle: number[];
  analysisMs: number;
}

/**
 * A code action on a small file, asked again and again while the server analyses a large file
 * it was just sent, then as many times with the server idle: the analysis runs in a worker
 * thread, so the first should cost what the second does (the issue's goal: within 100 ms).
 */
async function codeActionsDuringAnalysis(bigText: string): Promise<CodeActionFigures> {
  const { client } = await TestClient.start();
  client.settings = { debounceMs: 0, maxFileLines: 0, maxFileBytes: 0 };
  try {
    const dir = path.join(os.tmpdir(), 'device-doctor-bench');
    const small = `file://${path.join(dir, 'small.py')}`;
    const smallPublished = client.diagnosticsFor(small, () => true, 60_000);
    await client.openFile(small, DD003_SOURCE);
    const dd003 = (await smallPublished).diagnostics.find((d) => d.code === 'DD003');
    if (!dd003) throw new Error('the small file has no DD003 to ask a code action for');
    const ask = async (): Promise<number> => {
      const start = performance.now();
      await client.connection.sendRequest('textDocument/codeAction', { textDocument: { uri: small }, range: dd003.range, context: { diagnostics: [dd003] } });
      return performance.now() - start;
    };
    await ask(); // warm-up
    const big = `file://${path.join(dir, 'big.py')}`;
    let done = false;
    const t0 = performance.now();
    const published = client.diagnosticsFor(big, () => true, 180_000).then(() => { done = true; });
    await client.openFile(big, bigText);
    const during: number[] = [];
    while (!done) {
      const ms = await ask();
      if (!done) during.push(ms);
    }
    await published;
    const analysisMs = performance.now() - t0;
    const idle: number[] = [];
    for (let k = 0; k < Math.max(10, during.length); k++) idle.push(await ask());
    return { during: during.sort((a, b) => a - b), idle: idle.sort((a, b) => a - b), analysisMs };
  } finally {
    await client.stop();
  }
}

async function serverSections(texts: Array<[number, string]>, codeActionText?: string): Promise<void> {
  const figures: KeystrokeFigures[] = [];
  for (const [, text] of texts) figures.push(await typeInServer(text, KEYSTROKES));
  console.log('\n## 2. Keystroke -> publishDiagnostics, real server (dist/server.js --stdio), debounce 0');
  console.log(`typing "total = total + 1" on a new line in a function body, then deleting it: one didChange (incremental) per key, ` +
    `waiting for the diagnostics of that version; ${KEYSTROKES} keys after 3 not counted`);
  table(
    ['lines', 'open ms', 'p50 ms', 'p95 ms', 'max ms', 'keys', 'goal'],
    figures.map((f) => [String(f.lines), fixed(f.openMs, 0), fixed(f.p50), fixed(f.p95), fixed(f.max), String(f.count),
      f.lines >= 10_000 ? `p50 <= 50 ms: ${verdict(f.p50 <= 50)}` : '-']),
  );
  if (codeActionText) {
    const c = await codeActionsDuringAnalysis(codeActionText);
    const lines = codeActionText.split('\n').length - 1;
    console.log(`\nA code action on a small file while the server analyses a ${lines}-line file it was just sent (${fixed(c.analysisMs, 0)} ms), asked again as each answer arrives; then idle`);
    const row = (when: string, xs: number[], goal: string) => [when, String(xs.length), fixed(quantile(xs, 0.5)), fixed(quantile(xs, 0.95)), fixed(xs[xs.length - 1] ?? NaN), goal];
    table(['when', 'answers', 'p50 ms', 'p95 ms', 'max ms', 'goal'], [
      row('during the analysis', c.during, c.during.length === 0 ? 'none answered during it' : `max <= 100 ms: ${verdict(c.during[c.during.length - 1] <= 100)}`),
      row('server idle', c.idle, '-'),
    ]);
  }
  console.log('\n## 3. Server memory (VmRSS of the server process, /proc/<pid>/status)');
  const big = figures[figures.length - 1];
  if (!big.rssAfterOpen) {
    console.log('n/a: /proc/<pid>/status cannot be read here');
    return;
  }
  table(
    ['when', 'lines', 'VmRSS MB', 'VmHWM (peak) MB', 'goal'],
    [
      ['after opening (first diagnostics)', String(big.lines), fixed(big.rssAfterOpen.rss), fixed(big.rssAfterOpen.hwm), `RSS <= 150 MB: ${verdict(big.rssAfterOpen.rss <= 150)}`],
      ...(big.rssAfterTyping ? [['after the keystrokes', String(big.lines), fixed(big.rssAfterTyping.rss), fixed(big.rssAfterTyping.hwm), '-']] : []),
    ],
  );
}

// ---- 4. lint start-up ----

/** The CPU time (user + system, every thread) of one process, reported by itself as it exits. */
function childCpuMs(preload: string, args: readonly string[]): number {
  const p = spawnSync(process.execPath, ['-r', preload, ...args], { encoding: 'utf8', stdio: ['ignore', 'ignore', 'pipe'] });
  const m = /__bench_cpu_ms=([\d.]+)/.exec(p.stderr ?? '');
  if (!m) throw new Error(`no CPU figure from node ${args.join(' ')}: ${p.stderr}`);
  return Number(m[1]);
}

function startupSection(): void {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'device-doctor-bench-'));
  try {
    const preload = path.join(dir, 'cpu.js');
    fs.writeFileSync(preload, "process.on('exit', () => { const u = process.cpuUsage(); " +
      "require('fs').writeSync(2, `__bench_cpu_ms=${(u.user + u.system) / 1000}\\n`); });\n");
    const tiny = path.join(dir, 'tiny.py');
    fs.writeFileSync(tiny, 'import torch\n\nmodel = torch.nn.Linear(4, 2)\nx = torch.randn(3, 4)\ndevice = "cuda"\n' +
      'model.to(device)\ny = model(x)\nprint(y)\nz = y.sum()\nprint(z)\n');
    const cli = path.join(ROOT, 'dist', 'cli.js');
    const lint = [cli, 'lint', '--exit-zero', tiny];
    const version = [cli, '--version'];
    const bare = ['-e', '0'];
    childCpuMs(preload, lint); // warm the file cache
    const a: number[] = [], b: number[] = [], v: number[] = [], d: number[] = [];
    for (let i = 0; i < STARTS; i++) { // in turn, so drift hits both alike
      const x = childCpuMs(preload, lint);
      const y = childCpuMs(preload, bare);
      const z = childCpuMs(preload, version);
      a.push(x); b.push(y); v.push(z); d.push(x - y);
    }
    console.log(`\n## 4. Start-up: CPU ms (user + system, all threads) of one process, median of ${STARTS}, run in turn`);
    table(
      ['command', 'CPU ms', 'over node -e 0', 'goal'],
      [
        ['node -e 0', fixed(median(b)), '-', '-'],
        ['device-doctor --version', fixed(median(v)), fixed(median(v.map((x, i) => x - b[i]))), '-'],
        ['device-doctor lint (10-line file)', fixed(median(a)), fixed(median(d)), `<= +100 ms: ${verdict(median(d) <= 100)}`],
      ],
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The sections `--only 4` or `--only 1,4` names; every one without the flag. */
function sectionsToRun(): Set<number> {
  const flag = process.argv.indexOf('--only');
  if (flag < 0) return new Set([1, 2, 3, 4, 5, 6, 7, 8, 9]);
  return new Set((process.argv[flag + 1] ?? '').split(',').map(Number).filter((n) => n >= 1 && n <= 9));
}
const SECTIONS = sectionsToRun();

async function main(): Promise<void> {
  buildDist(); // sections 2, 3 and 4 measure the bundles: never stale ones
  if (![1, 2, 3].some((n) => SECTIONS.has(n))) {
    if (SECTIONS.has(4)) startupSection();
    if (SECTIONS.has(5)) await crossFileSection();
    if (SECTIONS.has(8)) await repositoriesSection(realCodeFolder());
    if (SECTIONS.has(9)) await serverMemorySection(realCodeFolder());
    return;
  }
  const folder = realCodeFolder();
  let ofLines: (n: number) => string = generatedOfLines;
  let kind = 'generated';
  if (folder && fs.existsSync(folder)) {
    const code = readRealCode(folder);
    if (code.sources > 0) {
      ofLines = (n) => realCodeOfLines(code, n);
      kind = 'real';
      console.log(`real code: ${code.sources} files and notebooks, ${code.lines} lines, from ${code.repositories} folders of ${folder}` +
        (code.lines < 20_000 ? ' (fewer than 20,000 lines: the 20k input repeats some)' : ''));
    } else {
      console.log(`real code: no .py files or notebooks in ${folder}; using the generated script instead`);
    }
  } else {
    console.log(`real code: ${folder ? `${folder} does not exist` : 'none given'} (npm run bench -- --real-code DIR, or BENCH_REAL_CODE=DIR: ` +
      'a folder of public PyTorch code, see ../shared/tools/extract.sh); using the generated script of test/unit/helpers/bigScript.ts instead');
  }
  console.log('');
  const sized = new Map<number, string>([1_000, 5_000, 10_000, 20_000].map((n) => [n, ofLines(n)]));
  if (SECTIONS.has(1)) await analysisSection([
    ['rule corpus', ruleCorpus(), undefined],
    // Shapes that once cost exponential time; each stays here with its figure.
    ['40-link .replace() chain', methodChain(40), undefined],
    ['24 levels of nested blocks', nestedBlocks(24), undefined],
    [`${kind} 1k`, sized.get(1_000)!, undefined],
    [`${kind} 5k`, sized.get(5_000)!, 3],
    [`${kind} 20k`, sized.get(20_000)!, 3],
  ]);
  if (SECTIONS.has(2) || SECTIONS.has(3)) await serverSections([[1_000, sized.get(1_000)!], [10_000, sized.get(10_000)!]], SECTIONS.has(2) ? sized.get(20_000) : undefined);
  if (SECTIONS.has(4)) startupSection();
  if (SECTIONS.has(5)) await crossFileSection();
  if (SECTIONS.has(8)) await repositoriesSection(folder);
  if (SECTIONS.has(9)) await serverMemorySection(folder && fs.existsSync(folder) ? folder : undefined);
}

// ---- the torch engine against a direct torch timing, within 10% (scripts/bench-torch-agreement.ts) ----
async function torchAgreement(): Promise<void> {
  if (!SECTIONS.has(6)) return;
  console.log('\n## 6. Torch engine against a direct torch timing');
  if (!(await torchAgreementSection())) process.exitCode = 1;
}

// ---- 7. detect against import torch ----

/** Wall ms of one command (stdout and stderr discarded); throws when it fails. */
function wallMs(command: string, args: readonly string[]): number {
  const t0 = process.hrtime.bigint();
  const run = spawnSync(command, args, { stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8', env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' } });
  if (run.status !== 0) throw new Error(`${command} ${args.join(' ')} exited ${run.status}: ${run.stderr}`);
  return Number(process.hrtime.bigint() - t0) / 1e6;
}

/** Wall ms of one command started through src/node/processRunner.ts, as the probes are. */
function wallMsLikeProbe(command: string, args: readonly string[]): Promise<number> {
  const t0 = process.hrtime.bigint();
  const child = startProcess(command, args, { env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' }, captureBytes: 1024 * 1024 });
  return child.ended.then((end) => {
    if (end.exitCode !== 0) throw new Error(`${command} ${args.join(' ')} exited ${end.exitCode}: ${child.stderrTail}`);
    return Number(process.hrtime.bigint() - t0) / 1e6;
  });
}

async function detectSection(): Promise<void> {
  if (!SECTIONS.has(7)) return;
  const python = process.env.DEVICE_DOCTOR_PYTHON ?? '/usr/bin/python3';
  const cli = path.join(ROOT, 'dist', 'cli.js');
  const sides: Array<[string, () => number | Promise<number>]> = [
    // Started the way detect starts its probe (the product's runner: its own session, so its
    // own scheduler autogroup), so that the floor is not slowed by where it was started from.
    [`${python} -c "import torch"`, () => wallMsLikeProbe(python, ['-c', 'import torch'])],
    // What of detect is Python's (the probe ends without torch's teardown) and what is Node's
    // start, the tool probes and, for the text form, the discovery of other interpreters.
    [`${python} dist/probe.py`, () => wallMsLikeProbe(python, [path.join(ROOT, 'dist', 'probe.py')])],
    ['device-doctor detect', () => wallMs(process.execPath, [cli, 'detect', '--python', python])],
    ['device-doctor detect --json', () => wallMs(process.execPath, [cli, 'detect', '--json', '--python', python])],
  ];
  for (const [, run] of sides) await run(); // warm the file cache
  const times = sides.map((): number[] => []);
  for (let r = 0; r < TORCH_STARTS; r++) for (const [i, [, run]] of sides.entries()) times[i].push(await run());
  console.log(`\n## 7. detect against import torch (the same interpreter): wall ms, median of ${TORCH_STARTS} rounds run in turn; ratio: median of the rounds' ratios`);
  table(
    ['command', 'wall ms', 'over import torch', 'goal'],
    sides.map(([name], i) => {
      if (i === 0) return [name, fixed(median(times[0]), 0), '-', '-'];
      const ratio = median(times[i].map((t, r) => t / times[0][r]));
      return [name, fixed(median(times[i]), 0), `${fixed(ratio, 2)}×`, name === 'device-doctor detect' ? `<= 1.2×: ${verdict(ratio <= 1.2)}` : '-'];
    }),
  );
}

main()
  .then(torchAgreement)
  .then(detectSection)
  .catch((err) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
