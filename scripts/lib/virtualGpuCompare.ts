// The virtual-GPU check's judgement, pure: a virtual run's findings (read from the SARIF that
// `device-doctor run --format sarif` prints) against where a plain run of the same script raised
// on a real GPU. The pass rule is in scripts/device-check.ts's header; in short, a script agrees
// when the virtual run's fatal findings are none and the real run ends without an exception, or
// the real run raises at a line where one of them says a real GPU raises.
import * as path from 'path';
import type { CorpusEntry, ExpectedFinding } from './virtualGpuCorpus';

/** A line of a corpus file (relative to the corpus folder, '/'-separated); `cell` in a notebook. */
export interface Place {
  file: string;
  cell?: number;
  line: number;
}

export interface VirtualFinding {
  rule: string;
  /** Where the finding is reported: a mismatch's CPU tensor origin, or the failing use itself. */
  at: Place;
  /** Where a real run raises for it: the first frame of its stack that is not the CPU tensor's origin. */
  raisesAt: Place;
  fatal: boolean;
  message: string;
}

/** How a plain run ended. `at`: its innermost frame in the corpus's files (null when none was). */
export type PlainOutcome = { failed: false } | { failed: true; at: Place | null; type: string; message: string };

/** What the plain-run harness writes (scripts/lib/plainRunPython.ts). */
export interface PlainReport {
  failed: boolean;
  type?: string;
  message?: string;
  frames?: Array<{ file: string; line: number; function?: string; cell?: number }>;
}

export type Verdict = 'agrees' | 'virtual-only' | 'real-only' | 'not-run' | 'excluded';

export interface ScriptComparison {
  script: string;
  verdict: Verdict;
  /** Why excluded, why not run, or what disagrees. */
  reason?: string;
  /** The virtual run's findings equal the manifest's (rule, place, raising line, fatal); null when not run. */
  asManifest: boolean | null;
  virtual: VirtualFinding[] | null;
  real: PlainOutcome | null;
  /** Fatal findings the real run raised at. */
  confirmed: number;
  /** In a script that agrees: fatal findings past the real run's first failure, which a real run cannot reach. */
  unreached: number;
}

/** virtual_gpu_mode.py's note on the frame a mismatch's CPU tensor was made at (SARIF: "<function>: <note>"). */
export const ORIGIN_NOTE = 'the cpu tensor comes from here';

type Json = Record<string, any>;

function placeOf(physical: Json | undefined, cell: unknown): Place | null {
  const uri = physical?.artifactLocation?.uri;
  const line = physical?.region?.startLine;
  if (typeof uri !== 'string' || typeof line !== 'number') return null;
  return { file: decodeURIComponent(uri), line, ...(typeof cell === 'number' ? { cell } : {}) };
}

/** The findings of `run --format sarif` (run with the corpus folder as its working folder, so URIs are relative to it). */
export function findingsFromSarif(sarif: unknown): VirtualFinding[] {
  const results = (sarif as Json)?.runs?.[0]?.results;
  if (!Array.isArray(results)) throw new Error('the virtual run printed no SARIF results');
  return results.map((result: Json): VirtualFinding => {
    const frames: Json[] = result.stacks?.[0]?.frames ?? [];
    // A SARIF stack frame holds a location, and the location its message ("<function>: <note>") and properties.
    const places = frames.map(({ location }) => ({ place: placeOf(location?.physicalLocation, location?.properties?.cell), origin: String(location?.message?.text ?? '').endsWith(ORIGIN_NOTE) }));
    const at = places[0]?.place ?? placeOf(result.locations?.[0]?.physicalLocation, undefined);
    if (!at) throw new Error(`a ${result.ruleId ?? 'finding'} without a location in the SARIF`);
    const raisesAt = places.find((p) => !p.origin && p.place)?.place ?? at;
    return { rule: String(result.ruleId), at, raisesAt, fatal: result.level === 'error', message: String(result.message?.text ?? '') };
  });
}

/** The plain run's outcome, its failure placed at the innermost frame inside `corpusDir`. */
export function plainOutcome(report: PlainReport, corpusDir: string): PlainOutcome {
  if (!report.failed) return { failed: false };
  const inCorpus = (report.frames ?? []).flatMap((frame): Place[] => {
    if (frame.file.startsWith('<')) return [];
    const relative = path.relative(corpusDir, frame.file);
    if (relative.startsWith('..') || path.isAbsolute(relative)) return [];
    return [{ file: relative.split(path.sep).join('/'), line: frame.line, ...(frame.cell === undefined ? {} : { cell: frame.cell }) }];
  });
  return { failed: true, at: inCorpus[inCorpus.length - 1] ?? null, type: report.type ?? 'Exception', message: report.message ?? '' };
}

export const samePlace = (a: Place, b: Place): boolean => a.file === b.file && a.line === b.line && (a.cell ?? -1) === (b.cell ?? -1);

export function describePlace(place: Place | null): string {
  if (!place) return 'outside the corpus files';
  return `${place.file}${place.cell === undefined ? '' : ` cell ${place.cell}`}:${place.line}`;
}

const key = (f: { rule: string; file: string; cell?: number; line: number; raisesAt: number; fatal: boolean }): string =>
  `${f.rule} ${f.file}#${f.cell ?? '-'}:${f.line}>${f.raisesAt} ${f.fatal ? 'fatal' : 'not-fatal'}`;

/** True when the virtual run reported exactly the manifest's findings (in any order). */
export function matchesManifest(found: VirtualFinding[], expected: ExpectedFinding[]): boolean {
  const a = found.map((f) => key({ rule: f.rule, file: f.at.file, cell: f.at.cell, line: f.at.line, raisesAt: f.raisesAt.line, fatal: f.fatal })).sort();
  const b = expected.map(key).sort();
  return a.length === b.length && a.every((k, i) => k === b[i]);
}

/** A script's verdict once both runs are made (`virtual`/`real` are an error's text when a run could not be made). */
export function compareScript(script: string, expected: ExpectedFinding[], virtual: VirtualFinding[] | string, real: PlainOutcome | string): ScriptComparison {
  const asManifest = typeof virtual === 'string' ? null : matchesManifest(virtual, expected);
  const result = (verdict: Verdict, reason?: string, confirmed = 0, unreached = 0): ScriptComparison => ({
    script, verdict, ...(reason ? { reason } : {}), asManifest,
    virtual: typeof virtual === 'string' ? null : virtual, real: typeof real === 'string' ? null : real, confirmed, unreached,
  });
  if (typeof virtual === 'string' || typeof real === 'string') {
    return result('not-run', [typeof virtual === 'string' ? `virtual run: ${virtual}` : '', typeof real === 'string' ? `real run: ${real}` : ''].filter(Boolean).join('; '));
  }
  const fatal = virtual.filter((f) => f.fatal);
  const lines = fatal.map((f) => describePlace(f.raisesAt)).join(', ');
  if (!real.failed) {
    return fatal.length === 0 ? result('agrees') : result('virtual-only', `the real run ended without an exception; the virtual run said it raises at ${lines}`);
  }
  const confirmed = real.at ? fatal.filter((f) => samePlace(f.raisesAt, real.at as Place)).length : 0;
  if (confirmed === 0) {
    const said = fatal.length ? `the virtual run said ${lines}` : 'the virtual run reported no fatal mistake';
    return result('real-only', `the real run raised ${real.type} at ${describePlace(real.at)}; ${said}`);
  }
  return result('agrees', undefined, confirmed, fatal.length - confirmed);
}

/** An excluded script: the manifest's reason, or more devices than the plain runs have. Undefined when it is compared. */
export function exclusionOf(entry: CorpusEntry, devices: number): string | undefined {
  if (entry.exclude) return entry.exclude;
  if (entry.devices > devices) return `needs ${entry.devices} devices; the real runs have ${devices}`;
  return undefined;
}

export function excluded(script: string, reason: string): ScriptComparison {
  return { script, verdict: 'excluded', reason, asManifest: null, virtual: null, real: null, confirmed: 0, unreached: 0 };
}

export const LIMITATION = 'a real run stops at its first exception: in a script with several fatal mistakes, those after it are counted as unreached, not confirmed; each kind of mistake also stands alone in a script of its own, where a real run reaches it';

export interface CorpusTotals {
  scripts: number;
  compared: number;
  agree: number;
  disagree: number;
  notRun: number;
  excluded: number;
  unlikeManifest: number;
  fatalFindings: number;
  confirmed: number;
  unreached: number;
  notFatal: number;
}

export interface CorpusVerdict {
  ok: boolean;
  problem?: string;
  totals: CorpusTotals;
  scripts: ScriptComparison[];
  limitation: string;
}

/** Passed when at least one script was compared, and every compared one agrees and reported the manifest's findings. */
export function judgeCorpus(scripts: ScriptComparison[]): CorpusVerdict {
  const compared = scripts.filter((s) => s.verdict !== 'excluded');
  const disagree = compared.filter((s) => s.verdict === 'virtual-only' || s.verdict === 'real-only');
  const notRun = compared.filter((s) => s.verdict === 'not-run');
  const unlike = compared.filter((s) => s.asManifest === false);
  const found = compared.flatMap((s) => s.virtual ?? []);
  const totals: CorpusTotals = {
    scripts: scripts.length, compared: compared.length, agree: compared.filter((s) => s.verdict === 'agrees').length,
    disagree: disagree.length, notRun: notRun.length, excluded: scripts.length - compared.length, unlikeManifest: unlike.length,
    fatalFindings: found.filter((f) => f.fatal).length, confirmed: compared.reduce((n, s) => n + s.confirmed, 0),
    unreached: compared.reduce((n, s) => n + s.unreached, 0), notFatal: found.filter((f) => !f.fatal).length,
  };
  const problems = [
    ...(compared.length === 0 ? ['no script was compared'] : []),
    ...(disagree.length ? [`the virtual and the real run disagree on ${disagree.map((s) => `${s.script} (${s.verdict})`).join(', ')}`] : []),
    ...(notRun.length ? [`not run: ${notRun.map((s) => `${s.script} (${s.reason})`).join(', ')}`] : []),
    ...(unlike.length ? [`the virtual run's findings differ from the manifest's on ${unlike.map((s) => s.script).join(', ')}`] : []),
  ];
  return { ok: problems.length === 0, ...(problems.length ? { problem: problems.join('; ') } : {}), totals, scripts, limitation: LIMITATION };
}
