// The `torch` engine: the user's own interpreter runs bench.py, which times the products
// with the user's PyTorch (cpu, cuda:N — ROCm reports as cuda —, mps) and streams JSON
// lines; this side turns them into the core's results. One process serves a batch of
// plans for one device (a sweep, several dtypes), so torch is imported once.
//
// Cancel: the AbortSignal SIGKILLs bench.py's process group at once; the run settles as
// soon as the process is gone, with what finished before and a 'cancelled' outcome.
// The memory check runs against the device report's free memory before anything spawns.
import * as fs from 'fs';
import * as path from 'path';
import { DTYPES, type EngineOutcome, type RunResult } from '../../../core/bench/model';
import { checkMemory, type BenchPlan, type EngineCapabilities } from '../../../core/bench/plan';
import { cancelledOutcome, failedOutcome } from '../../../core/bench/outcomes';
import type { DeviceReport } from '../../../core/devices/report';
import { IMPORT_TIMEOUT } from '../../../core/devices/torchProbe';
import type { TransferResult } from '../../../protocol/worker';
import { freeBytesOn, torchDevices, torchError, usableTorch } from '../../bench/reportFacts';
import { deviceNames } from '../../bench/peakFacts';
import { withCopyPeaks } from '../../../core/bench/memoryBandwidth';
import { runLineProcess, type LineProcessEnd } from '../../../node/lineProcess';
import { outOfMemoryOutcome, type ErrorLine } from './lines';
import { TorchSession } from './session';
import type { TorchHost } from './host';
import type { Engine, RunOptions } from '../engine';
import { planMismatch } from '../planGuard';
import { BOTH_WAYS } from '../../../core/interpreters/choiceWays';

export interface TorchEngineOptions {
  /** The user's interpreter; null: none may be run. */
  python: string | null;
  /** The last device report: PyTorch's devices, free memory, and whether torch imports. */
  report?: DeviceReport | null;
  env?: NodeJS.ProcessEnv;
  /** bench.py; default: beside the bundle (dist/) or in src/worker/python. */
  script?: string;
  /** Importing torch (and CUDA's start) may take this long before bench.py's first line. */
  startTimeoutMs?: number;
  /** After that, bench.py is stopped when it prints nothing for this long. */
  silenceTimeoutMs?: number;
  /** A bench.py already started for this interpreter (it answered detect's probe): the first batch runs in it. */
  host?: TorchHost;
}

/** Plans for one device, run by one bench.py process. */
export interface TorchBatch {
  plans: BenchPlan[];
  /** A dtype's remaining sizes are skipped once one size's median passes this (a sweep). */
  budgetSec?: number;
  /** Also measure host↔device bandwidth (accelerators only), and the device's own memory copy there. */
  transfer?: boolean;
  /** Measure the device-to-device memory copy (host memory on the CPU) even without transfers. */
  memory?: boolean;
}

export interface TorchBatchResult {
  /** In plan order; plans skipped by the budget or after a cancel have no entry. */
  runs: RunResult[];
  transfers: TransferResult[];
}

export const DEFAULT_START_TIMEOUT_MS = 120_000;
export const DEFAULT_SILENCE_TIMEOUT_MS = 30 * 60_000;

/** Where bench.py is: beside the bundle in dist/, or in src/worker/python from source. */
export function benchScriptPath(baseDir: string = __dirname): string {
  const candidates = [path.join(baseDir, 'bench.py'), path.join(baseDir, '..', '..', 'python', 'bench.py')];
  return candidates.find((file) => fs.existsSync(file)) ?? candidates[0];
}

export class TorchEngine implements Engine {
  readonly id = 'torch' as const;
  readonly capabilities: EngineCapabilities = { engine: 'torch', dtypes: DTYPES, devices: ['cpu', /^cuda(:\d+)?$/, 'mps'] };

  constructor(private readonly options: TorchEngineOptions) {}

  async devices(): Promise<string[]> {
    if ((await this.availability()) !== 'ok') return [];
    const torch = usableTorch(this.options.report, this.options.python);
    return torch ? torchDevices(torch) : ['cpu'];
  }

  async availability(): Promise<EngineOutcome | 'ok'> {
    const { python, report } = this.options;
    if (!python) return notInstalled('No Python interpreter is selected, so the torch engine cannot run.', null);
    const error = torchError(report, python);
    return error === null ? 'ok' : notInstalled(`PyTorch is not usable with ${python}: ${error}`, python);
  }

  async run(plan: BenchPlan, options?: RunOptions): Promise<RunResult> {
    const { runs } = await this.runBatch({ plans: [plan] }, options);
    return runs[0] ?? cancelledOutcome(plan);
  }

  async runBatch(batch: TorchBatch, options: RunOptions = {}): Promise<TorchBatchResult> {
    const plans = batch.plans;
    if (plans.length === 0) return { runs: [], transfers: [] };
    checkSameProcess(plans);
    const unavailable = await this.availability();
    if (unavailable !== 'ok') return { runs: plans.map((p) => ({ ...unavailable, device: p.device, dtype: p.dtype, size: p.size })), transfers: [] };
    const early = new Map<BenchPlan, RunResult>();
    for (const plan of plans) {
      const refusal = planMismatch(plan, this.capabilities) ?? checkMemory({ ...plan, freeBytes: plan.freeBytes ?? freeBytesOn(this.options.report, plan.device) });
      if (refusal) early.set(plan, refusal);
    }
    if (options.signal?.aborted) return { runs: [cancelledOutcome(plans[0])], transfers: [] };
    const runnable = plans.filter((p) => !early.has(p));
    if (runnable.length === 0) return { runs: plans.map((p) => early.get(p) as RunResult), transfers: [] };
    const session = new TorchSession(runnable, options.onProgress, (plan, error) => this.fatalOutcome(plan, error));
    const end = await this.spawn(runnable, batch, options, (line) => session.accept(line));
    if (end.reason === 'spawn-error') {
      const cannotStart = notInstalled(`The interpreter ${this.options.python} could not be started (${end.errorCode}: ${end.errorMessage}).`, null);
      return { runs: plans.map((p) => early.get(p) ?? { ...cannotStart, device: p.device, dtype: p.dtype, size: p.size }), transfers: [] };
    }
    // The device's own memory copy is judged against its datasheet here, where the report names the device.
    return { runs: session.finish(plans, early, end, this.describeEnd(end)), transfers: withCopyPeaks(session.transfers, deviceNames(this.options.report ?? null)) };
  }

  /** bench.py's error line (it never ran this plan) as the plan's outcome. */
  private fatalOutcome(plan: BenchPlan, error: ErrorLine): EngineOutcome {
    const where = { device: plan.device, dtype: plan.dtype, size: plan.size };
    switch (error.code) {
      case 'torch-missing':
        return { ...notInstalled(`PyTorch is not usable with ${this.options.python}: ${error.message}`, this.options.python), ...where };
      case 'no-device':
        return {
          status: 'no-device',
          engine: 'torch',
          ...where,
          message: `${error.message}.`,
          remedy: 'Pick a device this PyTorch lists (device-doctor detect shows them and why a GPU is not usable).',
        };
      case 'oom':
        return outOfMemoryOutcome(plan, error.message);
      default:
        return failedOutcome(plan, new Error(error.message));
    }
  }

  private spawn(plans: BenchPlan[], batch: TorchBatch, options: RunOptions, onLine: (line: string) => void): Promise<LineProcessEnd> {
    const first = plans[0];
    const args = {
      device: first.device,
      jobs: TorchSession.jobs(plans).map((job, i) => withRepeatBudget(job, plans[i])),
      repeats: first.repeats,
      warmup: first.warmups,
      seed: first.seed,
      samples: first.samples,
      threads: first.threads ?? null,
      budgetSec: batch.budgetSec ?? null,
      transfer: batch.transfer === true,
      memory: batch.memory === true,
      // Test hook: the product never leaves Python, so a corruptProduct callback cannot be
      // called; its presence asks bench.py to corrupt entry [0, 0] before the check.
      corrupt: options.corruptProduct !== undefined,
    };
    options.onProgress?.({ engine: 'torch', device: first.device, ...threadsOf(first), dtype: first.dtype, size: first.size, phase: 'preparing', done: 0, repeats: first.repeats });
    const { host } = this.options;
    const served = host && host.python === this.options.python ? host.claim(args, onLine, options.signal) : null;
    if (served) return served;
    const env = { ...(this.options.env ?? process.env), PYTHONDONTWRITEBYTECODE: '1', PYTHONIOENCODING: 'utf-8' };
    return runLineProcess(this.options.python as string, [this.options.script ?? benchScriptPath(), JSON.stringify(args)], {
      env,
      signal: options.signal,
      firstLineTimeoutMs: this.options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS,
      silenceTimeoutMs: this.options.silenceTimeoutMs ?? DEFAULT_SILENCE_TIMEOUT_MS,
      onLine,
    });
  }

  /** Why bench.py ended without answering for every plan, in one sentence. */
  private describeEnd(end: LineProcessEnd): string {
    const lastError = end.stderrTail.trim().split('\n').pop() ?? '';
    switch (end.reason) {
      case 'spawn-error':
        return `${this.options.python} could not be started (${end.errorCode}: ${end.errorMessage})`;
      case 'silent':
        return `bench.py printed nothing for ${Math.round((end.silentMs ?? 0) / 1000)} s and was stopped`;
      case 'line-too-long':
        return 'bench.py printed an overlong line and was stopped';
      default:
        return `bench.py ended early (${end.signal ? `killed by ${end.signal}` : `exit code ${end.exitCode}`})${lastError ? `: ${lastError}` : ''}`;
    }
  }
}

/** A job's autorange budget, when its plan has one (each size of a sweep has its own). */
function withRepeatBudget(job: { dtype: string; size: number }, plan: BenchPlan): { dtype: string; size: number; repeatBudgetSec?: number } {
  return plan.repeatBudgetSec == null ? job : { ...job, repeatBudgetSec: plan.repeatBudgetSec };
}

function notInstalled(message: string, python: string | null): EngineOutcome {
  return {
    status: 'not-installed',
    engine: 'torch',
    device: null,
    dtype: null,
    size: null,
    message,
    remedy: python && message.includes(IMPORT_TIMEOUT)
      // A hung import is not a missing package: reinstalling would not help.
      ? `Run \`${python} -c "import torch"\` in a terminal to see where it stops (a slow network file system or a stuck CUDA initialisation are the usual causes).`
      : python
      ? `Install PyTorch into that environment (${python} -m pip install torch; pytorch.org/get-started shows the command for your CUDA or ROCm version), or choose an interpreter that has it.`
      : `Choose a Python interpreter that has PyTorch ${BOTH_WAYS}.`,
  };
}

/** For progress and results: a plan's thread count, when it set one. */
export function threadsOf(plan: Pick<BenchPlan, 'threads'>): { threads?: number } {
  return plan.threads === undefined ? {} : { threads: plan.threads };
}

/** One bench.py process runs one device with one set of repeats, warm-ups, seed, samples and threads. */
function checkSameProcess(plans: readonly BenchPlan[]): void {
  const first = plans[0];
  for (const plan of plans) {
    if (plan.device !== first.device || plan.repeats !== first.repeats || plan.warmups !== first.warmups || plan.seed !== first.seed || plan.samples !== first.samples || plan.threads !== first.threads) {
      throw new TypeError('A torch batch must share device, repeats, warm-ups, seed, samples and threads.');
    }
  }
}
