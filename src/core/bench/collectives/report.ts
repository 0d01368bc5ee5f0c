// collectives.py's JSON (rank 0's one line) read and checked: every field the CLI and the
// editor show is validated here, the median is recomputed from the times (Python's
// statistics.median and ours agree: both average the two middle values), and the bandwidths
// come from bandwidth.ts, not from the script. A malformed line is an error message, never
// a half-filled report.
import { median } from '../statistics';
import { algorithmBandwidth, busBandwidth, isCollective, type Collective } from './bandwidth';
import { p2pProblem, type P2pMatrix } from './p2p';

export const COLLECTIVE_SCHEMA_VERSION = 1;

export interface CollectiveMeasurement {
  collective: Collective;
  /** nccl-tests' size: per rank for all-reduce, broadcast and send-recv; in all for all-gather. */
  bytes: number;
  /** Each timed iteration on the slowest rank. */
  timesSec: number[];
  medianSec: number;
  algBwGBps: number | null;
  busBwGBps: number | null;
  /** Every rank's result matched the expected one in every iteration, warm-ups included. */
  correct: boolean;
  wrongRanks: number[];
}

export interface CollectiveReport {
  schemaVersion: 1;
  torch: string;
  /** gloo, nccl (NCCL or RCCL on ROCm). */
  backend: string;
  device: 'cpu' | 'cuda';
  deviceName: string | null;
  worldSize: number;
  /** Who started the ranks: device-doctor, or torchrun. */
  launcher: string;
  dtype: string;
  warmup: number;
  iters: number;
  results: CollectiveMeasurement[];
  /** Rank 0's GPU-to-GPU copy bandwidths (--p2p on CUDA with two GPUs or more); absent otherwise. */
  p2p?: P2pMatrix;
}

export type ParsedCollectiveReport = { ok: true; report: CollectiveReport } | { ok: false; error: string };

class Invalid extends Error {}

type Fields = Record<string, unknown>;

function objectAt(value: unknown, where: string): Fields {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Invalid(`${where} is not a JSON object`);
  return value as Fields;
}

function wholeNumber(fields: Fields, key: string, least: number, where: string): number {
  const value = fields[key];
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < least) throw new Invalid(`${where}.${key} must be a whole number >= ${least} (got ${JSON.stringify(value)})`);
  return value;
}

function text(fields: Fields, key: string, where: string): string {
  const value = fields[key];
  if (typeof value !== 'string' || value === '') throw new Invalid(`${where}.${key} must be a non-empty string (got ${JSON.stringify(value)})`);
  return value;
}

function measurementOf(value: unknown, index: number, top: { worldSize: number; iters: number }): CollectiveMeasurement {
  const where = `results[${index}]`;
  const fields = objectAt(value, where);
  const collective = text(fields, 'collective', where);
  if (!isCollective(collective)) throw new Invalid(`${where}.collective '${collective}' is not a collective Device Doctor knows`);
  const bytes = wholeNumber(fields, 'bytes', 1, where);
  const times = fields.timesSec;
  if (!Array.isArray(times) || times.length !== top.iters || !times.every((t) => typeof t === 'number' && Number.isFinite(t) && t >= 0)) {
    throw new Invalid(`${where}.timesSec must be ${top.iters} finite times >= 0, one per timed iteration`);
  }
  const wrong = fields.wrongRanks;
  if (!Array.isArray(wrong) || !wrong.every((r) => Number.isSafeInteger(r) && r >= 0 && r < top.worldSize)) {
    throw new Invalid(`${where}.wrongRanks must list ranks between 0 and ${top.worldSize - 1}`);
  }
  if (typeof fields.correct !== 'boolean' || fields.correct !== (wrong.length === 0)) {
    throw new Invalid(`${where}.correct must be true exactly when no rank is wrong`);
  }
  const timesSec = times as number[];
  const medianSec = median(timesSec);
  return {
    collective,
    bytes,
    timesSec,
    medianSec,
    algBwGBps: algorithmBandwidth(bytes, medianSec),
    busBwGBps: busBandwidth(collective, top.worldSize, bytes, medianSec),
    correct: fields.correct,
    wrongRanks: wrong as number[],
  };
}

function reportOf(value: unknown): CollectiveReport {
  const fields = objectAt(value, 'the report');
  if (fields.schemaVersion !== COLLECTIVE_SCHEMA_VERSION) throw new Invalid(`schemaVersion ${JSON.stringify(fields.schemaVersion)} is not ${COLLECTIVE_SCHEMA_VERSION}`);
  const device = fields.device;
  if (device !== 'cpu' && device !== 'cuda') throw new Invalid(`device must be "cpu" or "cuda" (got ${JSON.stringify(device)})`);
  const deviceName = fields.deviceName;
  if (deviceName !== null && typeof deviceName !== 'string') throw new Invalid('deviceName must be a string or null');
  const top = { worldSize: wholeNumber(fields, 'worldSize', 1, 'the report'), iters: wholeNumber(fields, 'iters', 1, 'the report') };
  if (!Array.isArray(fields.results) || fields.results.length === 0) throw new Invalid('results must be a non-empty list');
  return {
    schemaVersion: COLLECTIVE_SCHEMA_VERSION,
    torch: text(fields, 'torch', 'the report'),
    backend: text(fields, 'backend', 'the report'),
    device,
    deviceName,
    worldSize: top.worldSize,
    launcher: text(fields, 'launcher', 'the report'),
    dtype: text(fields, 'dtype', 'the report'),
    warmup: wholeNumber(fields, 'warmup', 0, 'the report'),
    iters: top.iters,
    results: fields.results.map((r, i) => measurementOf(r, i, top)),
    ...p2pOf(fields.p2p),
  };
}

function p2pOf(value: unknown): { p2p?: P2pMatrix } {
  if (value === undefined) return {};
  const problem = p2pProblem(value);
  if (problem) throw new Invalid(problem);
  return { p2p: value as P2pMatrix };
}

/** Rank 0's stdout: its last non-blank line is the report (anything before it is not ours). */
export function parseCollectiveReport(stdout: string): ParsedCollectiveReport {
  const line = stdout.split('\n').map((l) => l.trim()).filter((l) => l !== '').pop();
  if (line === undefined) return { ok: false, error: 'rank 0 printed no report' };
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    return { ok: false, error: `rank 0's report is not JSON (${(error as Error).message})` };
  }
  try {
    return { ok: true, report: reportOf(value) };
  } catch (error) {
    if (error instanceof Invalid) return { ok: false, error: `rank 0's report is malformed: ${error.message}` };
    throw error;
  }
}

/** Whether any collective gave a wrong result on any rank. */
export function wrongMeasurements(report: CollectiveReport): CollectiveMeasurement[] {
  return report.results.filter((r) => !r.correct);
}
