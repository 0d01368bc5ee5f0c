// nvidia-smi's failures (PROBES.md), told apart by message first and exit code second,
// because drivers disagree on exit codes but not on wording. "No devices" and "not
// installed" are normal machines, not problems. An inventory that exits 0 is still read
// line by line: a line that is not a GPU row is dropped with a warning, and one without
// any GPU row is unreadable output, never a GPU.
import { parseNvidiaInventory, type NvidiaGpuRow } from './nvidiaSmi';
import type { Problem } from './report';
import { endedHow, firstLine, isNotInstalled, isTimeout, quoteLine, secondsText, succeeded, type ToolRun } from './toolRun';

export type NvidiaSmiOutcome =
  | 'ok'
  | 'not-installed'
  | 'no-devices'
  | 'driver-not-loaded'
  | 'version-mismatch'
  | 'no-supported-gpus'
  | 'timeout'
  /** Exit 0, but not one line of the inventory is a GPU row. */
  | 'unreadable'
  | 'unknown';

export interface NvidiaSmiFailure {
  kind: NvidiaSmiOutcome;
  /** Absent for ok, not-installed and no-devices. */
  problem?: Problem;
}

const DRIVER_NOT_LOADED = /couldn't communicate with the NVIDIA driver/i;
const VERSION_MISMATCH = /Driver\/library version mismatch/i;
const NO_DEVICES = /No devices were found/i;
const NO_SUPPORTED = /No supported GPUs were found|Unable to determine the number of GPUs/i;

function textKind(text: string): NvidiaSmiOutcome | null {
  if (VERSION_MISMATCH.test(text)) return 'version-mismatch';
  if (DRIVER_NOT_LOADED.test(text)) return 'driver-not-loaded';
  if (NO_SUPPORTED.test(text)) return 'no-supported-gpus';
  if (NO_DEVICES.test(text)) return 'no-devices';
  return null;
}

const KIND_BY_EXIT_CODE: Record<number, NvidiaSmiOutcome> = {
  6: 'no-devices',
  9: 'driver-not-loaded',
  18: 'version-mismatch',
  255: 'no-supported-gpus',
};

function outcomeOf(run: ToolRun): NvidiaSmiOutcome {
  if (isNotInstalled(run)) return 'not-installed';
  if (isTimeout(run)) return 'timeout';
  // A flood is not the tool's message, whatever words it repeats.
  if (run.errorCode === 'OUTPUT_TOO_LARGE') return 'unknown';
  if (succeeded(run)) return 'ok';
  const byText = textKind(`${run.stdout}\n${run.stderr}`);
  if (byText) return byText;
  return (run.exitCode !== null && KIND_BY_EXIT_CODE[run.exitCode]) || 'unknown';
}

function problem(code: string, message: string, hint: string): Problem {
  return { source: 'nvidia-smi', code, message, hint };
}

function nvmlLibraryVersion(run: ToolRun): string | null {
  const match = /NVML library version:\s*([\d.]+)/i.exec(`${run.stdout}\n${run.stderr}`);
  return match ? match[1] : null;
}

function mismatchProblem(run: ToolRun): Problem {
  const library = nvmlLibraryVersion(run);
  return problem(
    'nvml-version-mismatch',
    `Failed to initialize NVML: Driver/library version mismatch${library ? ` (NVML library version: ${library})` : ''}`,
    'driver/library version mismatch: the driver was upgraded but the old kernel module is still loaded; reboot, or reload the nvidia kernel module',
  );
}

function problemFor(kind: NvidiaSmiOutcome, run: ToolRun): Problem | undefined {
  switch (kind) {
    case 'driver-not-loaded':
      return problem(
        'nvidia-driver-not-loaded',
        "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver",
        'make sure the latest NVIDIA driver is installed and running (`lsmod | grep nvidia`); reboot after installing it, and check that Secure Boot did not block the module',
      );
    case 'version-mismatch':
      return mismatchProblem(run);
    case 'no-supported-gpus':
      return problem(
        'nvidia-no-supported-gpus',
        firstLine(run) || 'nvidia-smi found no supported GPU',
        'the installed driver does not support this GPU (too old or too new for it), or the GPU fell off the bus: check `dmesg` for Xid errors',
      );
    case 'timeout':
      return problem(
        'nvidia-smi-timeout',
        `nvidia-smi did not answer within ${secondsText(run.timeoutMs)} and was stopped`,
        'a hanging nvidia-smi usually means a stuck driver (check `dmesg` for Xid errors, or reboot); Device Doctor will try again later',
      );
    case 'unknown':
      return unknownProblem(run);
    default:
      return undefined;
  }
}

function unknownProblem(run: ToolRun): Problem {
  const detail = firstLine(run);
  // What a flood began with is a clue, not the tool's message.
  const said = !detail ? '' : run.errorCode === 'OUTPUT_TOO_LARGE' ? `, beginning ${quoteLine(detail)}` : `: ${detail}`;
  return problem('nvidia-smi-failed', `nvidia-smi ${endedHow(run)}${said}`, 'run `nvidia-smi` in a terminal to see the whole message');
}

/** What a run of nvidia-smi says about the machine, and the problem to report if any. */
export function classifyNvidiaSmiFailure(run: ToolRun): NvidiaSmiFailure {
  const kind = outcomeOf(run);
  const found = problemFor(kind, run);
  return found ? { kind, problem: found } : { kind };
}

export interface NvidiaInventoryReading {
  kind: NvidiaSmiOutcome;
  /** The GPU rows; empty unless kind is ok. */
  rows: NvidiaGpuRow[];
  /** The failure, the unreadable output, or the warning about dropped lines. */
  problems: Problem[];
}

function skippedProblem(skipped: string[]): Problem {
  const count = skipped.length === 1 ? '1 line that is not a GPU row; it was' : `${skipped.length} lines that are not GPU rows; they were`;
  return problem(
    'nvidia-smi-unreadable-lines',
    `nvidia-smi printed ${count} skipped: ${quoteLine(skipped[0])}`,
    'a GPU in an error state (`[Unknown Error]`, `[GPU requires reset]`) or a warning from the driver: run `nvidia-smi` in a terminal, and check `dmesg` for Xid errors',
  );
}

function unreadableProblem(run: ToolRun): Problem {
  const first = firstLine(run);
  return problem(
    'nvidia-smi-unreadable',
    first ? `nvidia-smi's output could not be read (no GPU row in it): ${quoteLine(first)}` : 'nvidia-smi exited 0 but printed nothing',
    'run `nvidia-smi` in a terminal: a GPU in an error state or a broken driver install prints this instead of its GPUs (check `dmesg` for Xid errors)',
  );
}

/** The inventory query (NVIDIA_QUERY_ARGS): how it ended, its GPU rows, and what to report. */
export function readNvidiaInventory(run: ToolRun): NvidiaInventoryReading {
  const failure = classifyNvidiaSmiFailure(run);
  if (failure.kind !== 'ok') return { kind: failure.kind, rows: [], problems: failure.problem ? [failure.problem] : [] };
  const { rows, skipped } = parseNvidiaInventory(run.stdout);
  if (rows.length === 0) return { kind: 'unreadable', rows: [], problems: [unreadableProblem(run)] };
  return { kind: 'ok', rows, problems: skipped.length > 0 ? [skippedProblem(skipped)] : [] };
}
