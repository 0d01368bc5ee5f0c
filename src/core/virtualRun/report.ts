// The report virtual_gpu.py writes (src/worker/python/virtual_gpu.py), read and checked.
// It comes from a process running the user's code: every field is checked before use, and
// anything else is a clear error, never a crash further on.
import { isRuleCode, type RuleCode } from '../analysis/catalog';

/** One frame of the user's stack: a file of theirs (or a notebook's code cell), innermost first. */
export interface RunFrame {
  /** Absolute path of the file or the notebook. */
  file: string;
  /** 1-based line, in the cell for a notebook. */
  line: number;
  function: string;
  /** Notebooks: the index among code cells (0-based, as lint's cellIndex). */
  cell?: number;
  /** What happens at this frame when it is not a plain call ("the cpu tensor comes from here"). */
  note?: string;
}

export interface RunFinding {
  code: RuleCode;
  /** What PyTorch would have said (or the rule's own words where PyTorch says nothing). */
  message: string;
  /** True when a real run on that device stops here with an exception. */
  fatal: boolean;
  /** How often the same mistake happened at the same place. */
  count: number;
  stack: RunFrame[];
}

export type RunOutcome = 'finished' | 'stopped' | 'failed' | 'unusable';

export interface VirtualRunReport {
  outcome: RunOutcome;
  /** 'steps' or 'time' when the run was stopped by --steps or --time. */
  stoppedBy: 'steps' | 'time' | null;
  virtual: { kind: 'cuda' | 'mps'; devices: number } | null;
  torch: string | null;
  steps: number;
  seconds: number | null;
  /** The script's own failure (or, 'unusable', why PyTorch could not be imported). */
  error: { type: string; message: string; stack: RunFrame[] } | null;
  findings: RunFinding[];
}

export class ReportError extends Error {}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function text(value: unknown, fallback = ''): string {
  return typeof value === 'string' ? value : fallback;
}

function count(value: unknown, fallback = 0): number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : fallback;
}

function frames(value: unknown): RunFrame[] {
  if (!Array.isArray(value)) return [];
  return value.filter(isObject).flatMap((f): RunFrame[] => {
    if (typeof f.file !== 'string' || typeof f.line !== 'number' || f.line < 1) return [];
    const frame: RunFrame = { file: f.file, line: Math.floor(f.line), function: text(f.function, '?') };
    if (typeof f.cell === 'number' && f.cell >= 0) frame.cell = Math.floor(f.cell);
    if (typeof f.note === 'string' && f.note) frame.note = f.note;
    return [frame];
  });
}

function finding(value: unknown): RunFinding[] {
  if (!isObject(value) || typeof value.code !== 'string' || !isRuleCode(value.code)) return [];
  return [{
    code: value.code,
    message: text(value.message, value.code),
    fatal: value.fatal === true,
    count: Math.max(1, Math.floor(count(value.count, 1))),
    stack: frames(value.stack),
  }];
}

const OUTCOMES: readonly RunOutcome[] = ['finished', 'stopped', 'failed', 'unusable'];

/** Parses the report's JSON text; throws ReportError when it is not a report. */
export function parseRunReport(json: string): VirtualRunReport {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    throw new ReportError('the virtual-GPU run wrote a report that is not JSON');
  }
  if (!isObject(value) || !OUTCOMES.includes(value.outcome as RunOutcome)) {
    throw new ReportError('the virtual-GPU run wrote something that is not its report');
  }
  const virtual = isObject(value.virtual) && (value.virtual.kind === 'cuda' || value.virtual.kind === 'mps')
    ? { kind: value.virtual.kind, devices: Math.max(1, Math.floor(count(value.virtual.devices, 1))) } as const
    : null;
  const error = isObject(value.error) ? { type: text(value.error.type, 'Error'), message: text(value.error.message), stack: frames(value.error.stack) } : null;
  return {
    outcome: value.outcome as RunOutcome,
    stoppedBy: value.stoppedBy === 'steps' || value.stoppedBy === 'time' ? value.stoppedBy : null,
    virtual,
    torch: typeof value.torch === 'string' ? value.torch : null,
    steps: Math.floor(count(value.steps)),
    seconds: typeof value.seconds === 'number' ? value.seconds : null,
    error,
    findings: Array.isArray(value.findings) ? value.findings.flatMap(finding) : [],
  };
}

/** Mistakes that make the run fail (exit 1): everything but DD007, which is about speed. */
export function isMistake(found: RunFinding): boolean {
  return found.code !== 'DD007';
}
