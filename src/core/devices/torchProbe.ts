// The JSON object printed by src/worker/python/probe.py: TorchStatus without the
// interpreter field, or {"error": "..."} when torch cannot be imported. Anything the
// interpreter prints is checked field by field: a user's sitecustomize can print anything.
import type { TorchDevice, TorchStatus } from './report';
import { integerOrNull, isRecord, numberOrNull, parseJsonOrUndefined } from './fields';
import { endedHow, firstLine, outputTooLargeText, secondsText, type ToolRun } from './toolRun';

export const NO_VALID_JSON = 'the PyTorch probe printed no valid JSON';
export const INTERPRETER_NOT_FOUND = 'Python interpreter not found';
/** The probe was killed at its timeout: almost always `import torch` (or CUDA's initialisation) hanging. */
export const IMPORT_TIMEOUT = 'importing torch did not finish within';

type TorchOk = Exclude<TorchStatus, { error: string }>;

/** The probe's object: the whole stdout, or else its last line that parses as an object. */
function probeObject(stdout: string): Record<string, unknown> | undefined {
  const whole = parseJsonOrUndefined(stdout.trim());
  if (isRecord(whole)) return whole;
  const lines = stdout.split(/\r?\n/).map((line) => line.trim()).filter((line) => line.startsWith('{'));
  for (const line of lines.reverse()) {
    const parsed = parseJsonOrUndefined(line);
    if (isRecord(parsed)) return parsed;
  }
  return undefined;
}

function bool(raw: unknown): boolean {
  return raw === true;
}

function stringOrNull(raw: unknown): string | null {
  if (typeof raw === 'number' && Number.isFinite(raw)) return String(raw);
  return typeof raw === 'string' ? raw : null;
}

function capability(raw: unknown): [number, number] | null {
  if (!Array.isArray(raw) || raw.length !== 2) return null;
  const [major, minor] = raw.map(integerOrNull);
  return major !== null && minor !== null ? [major, minor] : null;
}

function bytes(raw: unknown): number | null {
  const value = numberOrNull(raw);
  return value === null || value < 0 ? null : Math.round(value);
}

function torchDevice(raw: Record<string, unknown>, position: number): TorchDevice {
  const index = integerOrNull(raw['index']) ?? position;
  return {
    index,
    name: stringOrNull(raw['name']) ?? `cuda:${index}`,
    capability: capability(raw['capability']),
    totalMemoryBytes: bytes(raw['totalMemoryBytes']),
    uuid: stringOrNull(raw['uuid']),
    pciBusId: stringOrNull(raw['pciBusId']),
    freeBytes: bytes(raw['freeBytes']),
    allocatedBytes: bytes(raw['allocatedBytes']),
    reservedBytes: bytes(raw['reservedBytes']),
  };
}

function cudaStatus(raw: unknown): TorchOk['cuda'] {
  const cuda = isRecord(raw) ? raw : {};
  const devices = Array.isArray(cuda['devices']) ? cuda['devices'].filter(isRecord).map(torchDevice) : [];
  const available = bool(cuda['available']);
  return {
    built: bool(cuda['built']),
    available,
    version: stringOrNull(cuda['version']),
    deviceCount: available ? integerOrNull(cuda['deviceCount']) ?? devices.length : 0,
    devices,
    cudnnVersion: numberOrNull(cuda['cudnnVersion']),
  };
}

function mpsStatus(raw: unknown): TorchOk['mps'] {
  const mps = isRecord(raw) ? raw : {};
  const available = bool(mps['available']);
  return {
    built: bool(mps['built']),
    available,
    // An older probe that did not try an allocation is taken at its word.
    allocates: available && (mps['allocates'] === undefined || bool(mps['allocates'])),
    error: stringOrNull(mps['error']),
  };
}

/** probe.py's stdout as the report's TorchStatus. */
export function parseTorchProbe(stdout: string, interpreter: string): TorchStatus {
  const probe = probeObject(stdout);
  if (!probe) {
    const shown = stdout.trim().slice(0, 200);
    return { interpreter, error: `${NO_VALID_JSON}: ${shown === '' ? '(empty output)' : shown}` };
  }
  if (typeof probe['error'] === 'string' && probe['version'] === undefined) return { interpreter, error: probe['error'] };
  const version = stringOrNull(probe['version']);
  if (version === null) return { interpreter, error: `${NO_VALID_JSON}: no torch version in ${JSON.stringify(probe).slice(0, 200)}` };
  return {
    interpreter,
    version,
    cuda: cudaStatus(probe['cuda']),
    hip: stringOrNull(probe['hip']),
    mps: mpsStatus(probe['mps']),
    currentAccelerator: stringOrNull(probe['currentAccelerator']),
    cudaVisibleDevices: stringOrNull(probe['cudaVisibleDevices']),
  };
}

function lastLine(text: string): string {
  const lines = text.split(/\r?\n/).map((line) => line.trim()).filter((line) => line !== '');
  return lines[lines.length - 1] ?? '';
}

/** What Python said as it died: its "Fatal Python error" line (faulthandler), else the last line (an exception). */
function dyingWords(stderr: string): string {
  const fatal = stderr.split(/\r?\n/).find((line) => line.startsWith('Fatal Python error'));
  return fatal?.trim() ?? lastLine(stderr);
}

/** How the interpreter run ended, as TorchStatus: a missing interpreter or a hung import is a result too. */
export function torchStatusFromRun(run: ToolRun, interpreter: string): TorchStatus {
  if (run.errorCode === 'ENOENT') return { interpreter, error: `${INTERPRETER_NOT_FOUND}: ${interpreter}` };
  if (run.errorCode === 'TIMEOUT') {
    return { interpreter, error: `${IMPORT_TIMEOUT} ${secondsText(run.timeoutMs)}; the probe was stopped` };
  }
  if (run.errorCode === 'OUTPUT_TOO_LARGE') return { interpreter, error: `the PyTorch probe was stopped: ${outputTooLargeText(run)}` };
  if (run.errorCode !== undefined) {
    const detail = run.errorMessage ?? firstLine(run);
    return { interpreter, error: `the PyTorch probe could not run (${run.errorCode})${detail ? `: ${detail}` : ''}` };
  }
  const status = parseTorchProbe(run.stdout, interpreter);
  if ('error' in status && status.error.startsWith(NO_VALID_JSON) && run.exitCode !== 0) {
    const detail = dyingWords(run.stderr);
    const how = run.signal ? endedHow(run) : `failed (exit code ${run.exitCode ?? 'unknown'})`;
    return { interpreter, error: `the PyTorch probe ${how}${detail ? `: ${detail}` : ''}` };
  }
  return status;
}
