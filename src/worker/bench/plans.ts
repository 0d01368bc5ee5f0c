// A benchmark request made ready to run: its targets (targets.ts), each with the
// core's plans per dtype and size, every plan memory-checked against the device report
// (on the CPU with the engine's own needs: footprint.ts) and, on the CPU, time-checked
// against the run budget (timeBudget.ts): a plan within it even at the floor rate
// (peaks.ts) goes ahead; any other is decided by quick products on the engine
// (calibrate.ts), or, when they measure nothing, by this CPU's peak. A sweep is
// time-checked at the peak only: it measures itself and stops at what fits (runner.ts).
// In "everything", js above JS_EVERYTHING_MAX_SIZE is skipped with the reason (plan.ts). Impossible
// requests stop here with the core's message, before the run.
import * as os from 'os';
import { DEFAULT_REPEATS, DEFAULT_SAMPLES, DEFAULT_SIZE, checkHostMemory, jsEverythingRefusal, planBenchmark, type BenchPlan, type EngineCapabilities } from '../../core/bench/plan';
import { allThreads, type CpuThreadFacts } from '../../core/bench/cpuThreads';
import { cpuFloor, cpuPeak, type CpuFacts } from '../../core/bench/peaks';
import { DEFAULT_SWEEP_BUDGET_SEC, SWEEP_SIZES } from '../../core/bench/sweep';
import { DEFAULT_RUN_BUDGET_SEC, checkTime, estimateRunSeconds, type RateEstimate } from '../../core/bench/timeBudget';
import { unsupportedDtype } from '../../core/bench/outcomes';
import type { Dtype, EngineOutcome } from '../../core/bench/model';
import type { DeviceReport } from '../../core/devices/report';
import type { BenchParams } from '../../protocol/worker';
import type { Engine } from '../engines/engine';
import { measureRate, rateAt } from './calibrate';
import { cpuPeakFacts } from './peakFacts';
import { freeBytesOn } from './reportFacts';
import { chooseTargets, type BenchTarget } from './targets';

/** Added to a job's time limit: starting the engine (importing torch takes seconds, up to a minute or two on a cold disk). */
export const JOB_START_GRACE_SEC = 120;

/** One engine on one device (torch on the CPU: at one thread count): its plans, dtype by dtype, sizes ascending. */
export interface BenchJob {
  engine: Engine;
  device: string;
  threads?: number;
  plans: BenchPlan[];
}

export interface PreparedBench {
  jobs: BenchJob[];
  /** Outcomes known before running: engines not installed, sizes refused by the memory check. */
  problems: EngineOutcome[];
  description: string;
  selectedDevice: string;
  sweep: boolean;
  /** A sweep stops after the first size whose median passes this. */
  budgetSec: number;
  /** The most one engine run of one size may be estimated to take (plans over it were refused). */
  runBudgetSec: number;
  /** Added to each job's time limit for the engine's start. */
  startGraceSec: number;
  transfer: boolean;
  /** Also the memory copy on the CPU (accelerators measure theirs with the transfers). */
  memory: boolean;
}

export type Preparation = { kind: 'ready'; bench: PreparedBench } | { kind: 'invalid'; message: string };

/** Accepts every engine and device name, so that the core checks only the request's numbers and names. */
const ANY: EngineCapabilities = { engine: 'js', dtypes: ['float32', 'float16', 'bfloat16'], devices: [/.*/] };

export function requestShapeProblem(params: BenchParams, sizes: readonly number[], dtypes: readonly string[]): string | null {
  if (params.budgetSec !== undefined && !(params.budgetSec > 0 && Number.isFinite(params.budgetSec))) {
    return `The sweep's time budget must be a positive number of seconds, not ${params.budgetSec}.`;
  }
  if (!Array.isArray(dtypes) || dtypes.length === 0) return 'Name at least one dtype: float32, float16 or bfloat16.';
  for (const dtype of dtypes) {
    for (const size of sizes) {
      const engine = params.engine === undefined || params.engine === 'all' ? 'js' : params.engine;
      const request = { engine, device: params.device ?? 'cpu', size, dtype, repeats: params.repeats, repeatBudgetSec: params.repeatBudgetSec };
      const planned = planBenchmark(request, ANY);
      if (planned.kind === 'invalid') return planned.message;
    }
  }
  return null;
}

function explain(outcome: EngineOutcome): string {
  return outcome.remedy ? `${outcome.message} ${outcome.remedy}` : outcome.message;
}

/** What the time check of one request needs: the CPU, the budget, and rates measured so far. */
interface TimeCheck {
  cpu: CpuFacts;
  budgetSec: number;
  sweep: boolean;
  signal?: AbortSignal;
  /** Measured rates by engine and dtype, so one calibration serves every size. */
  rates: Map<string, Promise<RateEstimate | null>>;
}

function cpuFacts(report: DeviceReport): CpuFacts {
  const host = report.host as Partial<DeviceReport['host']> | undefined;
  const cores = host?.cpu?.cores ?? (typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length);
  return { cores, flags: host?.cpu?.flags ?? [], arch: host?.arch ?? process.arch, platform: host?.platform ?? process.platform };
}

/**
 * The time check of one CPU plan: a refusal, or null to run it. The bounds decide what they
 * can without running anything (a sweep: always); otherwise the engine is measured, and the
 * measurement wins even over the peak, so a refusal names a rate this machine really has
 * and a size that really fits, and a peak table that undersold a CPU refuses nothing.
 */
async function timeRefusal(engine: Engine, plan: BenchPlan, check: TimeCheck): Promise<EngineOutcome | null> {
  if (plan.device !== 'cpu') return null;
  const atPeak = checkTime(plan, { ...cpuPeak(plan.engine, plan.dtype, check.cpu), kind: 'peak' }, check.budgetSec);
  if (check.sweep) return atPeak;
  if (!atPeak && estimateRunSeconds(plan, cpuFloor(plan.engine, plan.dtype).gflops) <= check.budgetSec) return null;
  const key = `${plan.engine}|${plan.dtype}|${plan.threads ?? ''}`;
  let rate = check.rates.get(key);
  if (!rate) {
    rate = measureRate({ engine, device: plan.device, dtype: plan.dtype, upTo: plan.size, freeBytes: plan.freeBytes }, check.signal);
    check.rates.set(key, rate);
  }
  const measured = await rate;
  if (check.signal?.aborted) return null; // cancelled while measuring: the runner reports the cancel
  return measured ? checkTime(plan, rateAt(measured, plan.size, plan.engine), check.budgetSec) : atPeak;
}

/** A CPU size refused for its matrices, refused with the host's whole account instead (engine share, reserve, the size that really fits). */
function hostAware(outcome: EngineOutcome, freeBytes: number | null): EngineOutcome {
  if (outcome.status !== 'refused' || outcome.device !== 'cpu' || outcome.dtype === null || outcome.size === null) return outcome;
  return checkHostMemory({ engine: outcome.engine, device: 'cpu', dtype: outcome.dtype, size: outcome.size, freeBytes, samples: DEFAULT_SAMPLES }) ?? outcome;
}

/** Plans of one target; an explicit target that cannot run at its first size makes the request invalid. */
async function planTarget(target: BenchTarget, params: BenchParams, report: DeviceReport, sizes: readonly number[], dtypes: readonly Dtype[], check: TimeCheck): Promise<{ plans: BenchPlan[]; problems: EngineOutcome[] } | string> {
  const { engine, device, explicit, threads } = target;
  const availability = await engine.availability();
  if (availability !== 'ok') return explicit ? explain(availability) : { plans: [], problems: [{ ...availability, device }] };
  const usable = explicit ? dtypes : dtypes.filter((d) => engine.capabilities.dtypes.includes(d));
  if (usable.length === 0) return { plans: [], problems: [unsupportedDtype(engine.id, device, dtypes[0], null, engine.capabilities.dtypes)] };
  const availableDevices = await engine.devices();
  const freeBytes = freeBytesOn(report, device);
  const plans: BenchPlan[] = [];
  const problems: EngineOutcome[] = [];
  for (const dtype of usable) {
    for (const [index, size] of sizes.entries()) {
      const planned = planBenchmark({ engine: engine.id, device, size, dtype, repeats: params.repeats, repeatBudgetSec: params.repeatBudgetSec, freeBytes, availableDevices, threads }, engine.capabilities);
      if (planned.kind === 'invalid') return planned.message;
      const capped = target.everything ? jsEverythingRefusal(planned.kind === 'plan' ? planned.plan : { engine: engine.id, device, dtype, size }) : null;
      const refusal = capped ?? (planned.kind === 'plan' ? (checkHostMemory(planned.plan) ?? (await timeRefusal(engine, planned.plan, check))) : hostAware(planned.outcome, freeBytes));
      if (refusal === null) {
        if (planned.kind === 'plan') plans.push(planned.plan);
        continue;
      }
      if (explicit && index === 0) return explain(refusal);
      problems.push(refusal);
      break; // a larger size would be refused too
    }
  }
  return { plans, problems };
}

/** The CPUs this process may use and the machine's physical cores (for "all threads"). */
export async function cpuThreadFacts(report: DeviceReport): Promise<CpuThreadFacts> {
  const availableCpus = typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length;
  return { availableCpus, physicalCores: (await cpuPeakFacts(report)).physicalCores };
}

/**
 * The request checked and planned, or the reason it is impossible. `threads`: what "all
 * threads" is for torch on the CPU (default: from this machine, cpuThreadFacts).
 */
export async function prepareBench(params: BenchParams, report: DeviceReport, engines: readonly Engine[], signal?: AbortSignal, threads?: CpuThreadFacts): Promise<Preparation> {
  const sweep = params.sweep === true;
  const sizes = sweep ? SWEEP_SIZES : [params.size ?? DEFAULT_SIZE];
  const dtypes = params.dtypes ?? ['float32'];
  const shape = requestShapeProblem({ ...params, repeats: params.repeats ?? (params.repeatBudgetSec === undefined ? DEFAULT_REPEATS : undefined) }, sizes, dtypes);
  if (shape) return { kind: 'invalid', message: shape };
  const choice = await chooseTargets(params, report, engines, allThreads(threads ?? (await cpuThreadFacts(report))));
  if (choice.kind === 'invalid') return choice;
  const jobs: BenchJob[] = [];
  const problems = [...choice.problems];
  const check: TimeCheck = { cpu: cpuFacts(report), budgetSec: DEFAULT_RUN_BUDGET_SEC, sweep, signal, rates: new Map() };
  for (const target of choice.targets) {
    const planned = await planTarget(target, params, report, sizes, dtypes as Dtype[], check);
    if (typeof planned === 'string') return { kind: 'invalid', message: planned };
    problems.push(...planned.problems);
    if (planned.plans.length > 0) jobs.push({ engine: target.engine, device: target.device, ...(target.threads !== undefined ? { threads: target.threads } : {}), plans: planned.plans });
  }
  return {
    kind: 'ready',
    bench: {
      jobs,
      problems,
      description: choice.description,
      selectedDevice: report.selected.device,
      sweep,
      budgetSec: params.budgetSec ?? DEFAULT_SWEEP_BUDGET_SEC,
      runBudgetSec: check.budgetSec,
      startGraceSec: JOB_START_GRACE_SEC,
      transfer: params.transfer !== false,
      memory: params.memory === true,
    },
  };
}
