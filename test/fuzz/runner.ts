// One fuzz run: generate `count` seeded inputs, check every property on each, group the
// failures, save each failing input and a minimized copy of the first of each group.
import * as fs from 'fs';
import * as path from 'path';
import { initPythonParser } from '../../src/core/analysis';
import { CPythonParser } from './cpython';
import type { PythonOracle } from './cpython';
import { loadCorpus } from './corpus';
import { inputSize, minimizeInput } from './minimize';
import { generateInput } from './mutators';
import { WorkerAnalyzer } from './workerAnalyzer';
import type { FuzzInput, GenerateOptions } from './mutators';
import { checkInput, FAILURE_KINDS } from './properties';
import type { Analyzer, FailureKind, Violation } from './properties';

export interface FuzzOptions {
  count: number;
  seed: number;
  /** First input index (default 0): `--index i --count 1` replays one input. */
  start?: number;
  /** Inputs to check instead of generated ones (a replay of saved failures; their labels name the files). */
  inputs?: FuzzInput[];
  /** Where failing inputs are saved; undefined: nowhere. */
  outDir?: string;
  /** Minimize the first input of each failure group (default true). */
  minimize?: boolean;
  /** Total time for minimizing, all groups together (default 60 s). */
  minimizeMs?: number;
  /** Default: the real analyzer in a worker thread (started and closed by the run), with `timeoutMs`. */
  analyzer?: Analyzer;
  /** Time one analysis may take before it counts as a hang (default 10 s). */
  timeoutMs?: number;
  /** The Python judge; default: a long-lived /usr/bin/python3 started (and closed) by the run. */
  oracle?: PythonOracle;
  generate?: GenerateOptions;
  onProgress?: (done: number, summary: FuzzSummary) => void;
}

export interface FailureRecord {
  kind: FailureKind;
  signature: string;
  detail: string;
  seed: number;
  index: number;
  label: string;
  size: number;
  savedPath?: string;
}

export interface FailureGroup {
  kind: FailureKind;
  signature: string;
  /** Inputs that failed this way. */
  count: number;
  first: FailureRecord;
  /** A few more (seed, index) pairs that failed this way. */
  others: Array<{ index: number; label: string }>;
  minimized?: { size: number; path?: string; text: string; checks: number };
}

export interface FuzzSummary {
  seed: number;
  /** The inputs were given (a replay), not generated from the seed. */
  replay: boolean;
  start: number;
  inputs: number;
  notebooks: number;
  /** Inputs every cell of which CPython parsed (their fixes were judged). */
  parsedByCPython: number;
  findings: number;
  preferredFixes: number;
  judgedFixes: number;
  /** Inputs whose fix-all changed something. */
  fixAllInputs: number;
  pythonChecks: number;
  pythonCrashes: number;
  /** Inputs with at least one violation of each kind. */
  failures: Record<FailureKind, number>;
  groups: FailureGroup[];
  slowest: Array<{ ms: number; index: number; label: string; size: number }>;
  ms: number;
  /** Of `ms`: waiting for analyses that hung, and minimizing failures. */
  hangMs: number;
  minimizeMs: number;
  outDir?: string;
}

const MAX_SAVED = 200;
const MAX_MINIMIZED_GROUPS = 25;

export function emptyFailures(): Record<FailureKind, number> {
  return Object.fromEntries(FAILURE_KINDS.map((k) => [k, 0])) as Record<FailureKind, number>;
}

export function totalFailures(summary: FuzzSummary): number {
  return FAILURE_KINDS.reduce((n, k) => n + summary.failures[k], 0);
}

function save(outDir: string, name: string, record: object, input: FuzzInput): string {
  fs.mkdirSync(outDir, { recursive: true });
  const file = path.join(outDir, `${name}.json`);
  // JSON keeps the input exact (lone surrogates as \udXXX); the .py/.ipynb beside it is for reading and for the CLI.
  fs.writeFileSync(file, JSON.stringify({ ...record, input }, null, 1) + '\n');
  if (input.kind === 'source') fs.writeFileSync(path.join(outDir, `${name}.py`), input.source);
  else {
    const nb = { nbformat: 4, nbformat_minor: 5, metadata: {}, cells: input.cells.map((source) => ({ cell_type: 'code', metadata: {}, execution_count: null, outputs: [], source })) };
    fs.writeFileSync(path.join(outDir, `${name}.ipynb`), JSON.stringify(nb, null, 1) + '\n');
  }
  return file;
}

/** Reads inputs saved by a run (a failure file, or a directory of them). */
export function loadSavedInputs(target: string): FuzzInput[] {
  const files = fs.statSync(target).isDirectory() ? fs.readdirSync(target).filter((f) => f.endsWith('.json') && f !== 'summary.json').sort().map((f) => path.join(target, f)) : [target];
  return files.map((f) => {
    const saved = JSON.parse(fs.readFileSync(f, 'utf8')) as { input: FuzzInput; seed?: number; index?: number };
    const origin = saved.seed !== undefined ? ` (seed ${saved.seed} index ${saved.index})` : '';
    return { ...saved.input, label: `${path.relative(process.cwd(), f)}${origin}: ${saved.input.label}` };
  });
}

export async function runFuzz(options: FuzzOptions): Promise<FuzzSummary> {
  const started = Date.now();
  await initPythonParser();
  const corpus = loadCorpus();
  const ownAnalyzer = options.analyzer ? undefined : new WorkerAnalyzer(options.timeoutMs ?? 10_000);
  const analyzer: Analyzer = options.analyzer ?? ownAnalyzer!;
  // Hangs are shrunk with a shorter limit (each candidate that still hangs costs the whole limit).
  const hangAnalyzer = options.analyzer ? undefined : new WorkerAnalyzer(Math.min(options.timeoutMs ?? 10_000, 2_000));
  const ownOracle = options.oracle ? undefined : await CPythonParser.start();
  const oracle = options.oracle ?? ownOracle!;
  const start = options.start ?? 0;
  const count = options.inputs ? options.inputs.length : options.count;
  const summary: FuzzSummary = {
    seed: options.seed,
    replay: options.inputs !== undefined,
    start,
    inputs: 0,
    notebooks: 0,
    parsedByCPython: 0,
    findings: 0,
    preferredFixes: 0,
    judgedFixes: 0,
    fixAllInputs: 0,
    pythonChecks: 0,
    pythonCrashes: 0,
    failures: emptyFailures(),
    groups: [],
    slowest: [],
    ms: 0,
    hangMs: 0,
    minimizeMs: 0,
    outDir: options.outDir,
  };
  const groups = new Map<string, { group: FailureGroup; input: FuzzInput }>();
  let saved = 0;
  try {
    for (let i = 0; i < count; i++) {
      const index = start + i;
      const input = options.inputs ? options.inputs[i] : generateInput(options.seed, index, corpus, options.generate);
      const { violations, stats } = await checkInput(input, analyzer, oracle);
      summary.inputs++;
      if (input.kind === 'notebook') summary.notebooks++;
      if (stats.parsedByCPython) summary.parsedByCPython++;
      summary.findings += stats.findings;
      summary.preferredFixes += stats.preferredFixes;
      summary.judgedFixes += stats.judgedFixes;
      if (stats.fixAllRounds > 0) summary.fixAllInputs++;
      summary.slowest.push({ ms: stats.ms, index, label: input.label, size: inputSize(input) });
      summary.slowest = summary.slowest.sort((a, b) => b.ms - a.ms).slice(0, 5);
      if (violations.some((v) => v.kind === 'hang')) summary.hangMs += stats.ms;
      if (violations.length) {
        const byKind = new Map<FailureKind, Violation[]>();
        for (const v of violations) byKind.set(v.kind, [...(byKind.get(v.kind) ?? []), v]);
        let savedPath: string | undefined;
        if (options.outDir && saved < MAX_SAVED) {
          saved++;
          savedPath = save(options.outDir, `input-${options.seed}-${index}`, { seed: options.seed, index, label: input.label, violations }, input);
        }
        for (const [kind, vs] of byKind) {
          summary.failures[kind]++;
          for (const signature of new Set(vs.map((v) => v.signature))) {
            const v = vs.find((x) => x.signature === signature)!;
            const key = `${kind}\u0000${signature}`;
            const entry = groups.get(key);
            if (entry) {
              const { group } = entry;
              group.count++;
              // The smallest example is the one shown and minimized.
              const smaller = inputSize(input) < group.first.size;
              const other = smaller ? { index: group.first.index, label: group.first.label } : { index, label: input.label };
              if (group.others.length < 5) group.others.push(other);
              if (smaller) {
                group.first = { kind, signature, detail: v.detail, seed: options.seed, index, label: input.label, size: inputSize(input), savedPath };
                entry.input = input;
              }
            } else {
              const first: FailureRecord = { kind, signature, detail: v.detail, seed: options.seed, index, label: input.label, size: inputSize(input), savedPath };
              groups.set(key, { group: { kind, signature, count: 1, first, others: [] }, input });
            }
          }
        }
      }
      options.onProgress?.(i + 1, summary);
    }

    summary.groups = [...groups.values()].map((g) => g.group);
    const minimizeStarted = Date.now();
    if (options.minimize !== false) {
      const deadline = Date.now() + (options.minimizeMs ?? 60_000);
      const todo = [...groups.values()].slice(0, MAX_MINIMIZED_GROUPS);
      for (let g = 0; g < todo.length && Date.now() < deadline; g++) {
        const { group, input } = todo[g];
        const share = Math.max(2000, (deadline - Date.now()) / (todo.length - g));
        const judge = group.kind === 'hang' && hangAnalyzer ? hangAnalyzer : analyzer;
        const fails = async (candidate: FuzzInput) => (await checkInput(candidate, judge, oracle)).violations.some((v) => v.kind === group.kind && v.signature === group.signature);
        const { input: small, checks } = await minimizeInput(input, fails, { checks: 2000, deadline: Math.min(deadline, Date.now() + share) });
        const text = small.kind === 'source' ? small.source : JSON.stringify(small.cells);
        const name = `min-${group.kind}-${options.seed}-${group.first.index}`;
        const file = options.outDir ? save(options.outDir, name, { seed: options.seed, index: group.first.index, kind: group.kind, signature: group.signature }, small) : undefined;
        group.minimized = { size: inputSize(small), path: file, text, checks };
      }
    }
    summary.minimizeMs = Date.now() - minimizeStarted;
  } finally {
    await ownAnalyzer?.close();
    await hangAnalyzer?.close();
    if (ownOracle) {
      summary.pythonChecks = ownOracle.checks;
      summary.pythonCrashes = ownOracle.crashes;
      await ownOracle.close();
    }
  }
  summary.ms = Date.now() - started;
  if (options.outDir && totalFailures(summary) > 0) {
    fs.mkdirSync(options.outDir, { recursive: true });
    fs.writeFileSync(path.join(options.outDir, 'summary.json'), JSON.stringify(summary, null, 1) + '\n');
  }
  return summary;
}

const LABELS: Record<FailureKind, string> = {
  throw: 'throws',
  hang: 'hangs',
  'out-of-range': 'out-of-range ranges',
  'broken-fix': 'broken fixes',
  'non-idempotent': 'non-idempotent fixes',
};

function preview(text: string, max = 400): string {
  const s = JSON.stringify(text);
  return s.length > max ? s.slice(0, max) + `… (${text.length} chars)` : s;
}

/** Control characters, bidi controls and lone surrogates in failure details would garble a terminal: show them escaped. */
function printable(text: string): string {
  return text.replace(/[\x00-\x09\x0b-\x1f\x7f\x85\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\u061c\ufeff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

export function formatSummary(s: FuzzSummary): string {
  return printable(formatLines(s));
}

function formatLines(s: FuzzSummary): string {
  const out: string[] = [];
  const secs = (s.ms / 1000).toFixed(1);
  const parts = [s.hangMs ? `${(s.hangMs / 1000).toFixed(1)} s waiting on hangs` : '', s.minimizeMs >= 100 ? `${(s.minimizeMs / 1000).toFixed(1)} s minimizing` : ''].filter(Boolean);
  out.push(`fuzz: ${s.replay ? 'replay' : `seed ${s.seed}${s.start ? `, from index ${s.start}` : ''}`}: ${s.inputs} inputs (${s.notebooks} notebooks) in ${secs} s${parts.length ? ` (of which ${parts.join(', ')})` : ''}`);
  out.push(`  CPython parsed ${s.parsedByCPython} inputs before any fix; ${s.findings} findings, ${s.preferredFixes} preferred fixes, ${s.judgedFixes} fixed texts judged by CPython, fix-all changed ${s.fixAllInputs} inputs; ${s.pythonChecks} CPython checks${s.pythonCrashes ? `, ${s.pythonCrashes} CPython crashes` : ''}`);
  for (const kind of FAILURE_KINDS) out.push(`  ${LABELS[kind].padEnd(22)} ${s.failures[kind]}`);
  out.push(`  slowest: ${s.slowest.slice(0, 3).map((x) => `${x.ms} ms (#${x.index}, ${x.size} chars, ${x.label.slice(0, 80)})`).join('; ')}`);
  for (const g of s.groups) {
    out.push('');
    out.push(`FAIL ${g.kind} ×${g.count}: ${g.signature}`);
    out.push(s.replay
      ? `  first: ${g.first.label.slice(0, 200)}`
      : `  first: seed ${g.first.seed} index ${g.first.index} (${g.first.label.slice(0, 160)}) — replay: npm run fuzz -- --seed ${g.first.seed} --index ${g.first.index} --count 1`);
    out.push(`  ${g.first.detail.split('\n').join('\n  ')}`);
    if (g.first.savedPath) out.push(`  saved: ${g.first.savedPath}`);
    if (g.minimized) out.push(`  minimized${g.kind === 'hang' ? ' (to an input analysed in more than 2 s)' : ''} to ${g.minimized.size} chars${g.minimized.path ? `: ${g.minimized.path}` : ''}\n    ${preview(g.minimized.text)}`);
    if (g.others.length) out.push(`  also: ${g.others.map((o) => `#${o.index}`).join(', ')}${g.count > g.others.length + 1 ? ` and ${g.count - g.others.length - 1} more` : ''}`);
  }
  if (s.outDir && s.groups.length) out.push('', `failing inputs and summary.json in ${s.outDir}`);
  out.push(totalFailures(s) ? `\nfuzz: FAILED (${FAILURE_KINDS.filter((k) => s.failures[k]).map((k) => `${s.failures[k]} ${LABELS[k]}`).join(', ')})` : 'fuzz: OK (no failures)');
  return out.join('\n');
}
