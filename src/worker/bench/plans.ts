// A benchmark request made ready to run: its targets (targets.ts), each with the
// core's plans per dtype and size, every plan memory-checked against the device report.
// Impossible requests stop here with the core's message, before anything runs.
import { DEFAULT_REPEATS, DEFAULT_SIZE, planBenchmark, type BenchPlan, type EngineCapabilities } from '../../core/bench/plan';
import { DEFAULT_SWEEP_BUDGET_SEC, SWEEP_SIZES } from '../../core/bench/sweep';
import { unsupportedDtype } from '../../core/bench/outcomes';
import type { Dtype, EngineOutcome } from '../../core/bench/model';
import type { DeviceReport } from '../../core/devices/report';
import type { BenchParams } from '../../protocol/worker';
import type { Engine } from '../engines/engine';
import { freeBytesOn } from './reportFacts';
import { chooseTargets, type BenchTarget } from './targets';

/** One engine on one device: its plans, dtype by dtype, sizes ascending. */
export interface BenchJob {
  engine: Engine;
  device: string;
  plans: BenchPlan[];
}

export interface PreparedBench {
  jobs: BenchJob[];
  /** Outcomes known before running: engines not installed, sizes refused by the memory check. */
  problems: EngineOutcome[];
  description: string;
  selectedDevice: string;
  sweep: boolean;
  budgetSec: number;
  transfer: boolean;
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
      const request = { engine, device: params.device ?? 'cpu', size, dtype, repeats: params.repeats };
      const planned = planBenchmark(request, ANY);
      if (planned.kind === 'invalid') return planned.message;
    }
  }
  return null;
}

function explain(outcome: EngineOutcome): string {
  return outcome.remedy ? `${outcome.message} ${outcome.remedy}` : outcome.message;
}

/** Plans of one target; an explicit target that cannot run at its first size makes the request invalid. */
async function planTarget(target: BenchTarget, params: BenchParams, report: DeviceReport, sizes: readonly number[], dtypes: readonly Dtype[]): Promise<{ plans: BenchPlan[]; problems: EngineOutcome[] } | string> {
  const { engine, device, explicit } = target;
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
      const planned = planBenchmark({ engine: engine.id, device, size, dtype, repeats: params.repeats, freeBytes, availableDevices }, engine.capabilities);
      if (planned.kind === 'invalid') return planned.message;
      if (planned.kind === 'plan') {
        plans.push(planned.plan);
        continue;
      }
      if (explicit && index === 0) return explain(planned.outcome);
      problems.push(planned.outcome);
      break; // a larger size would be refused too
    }
  }
  return { plans, problems };
}

/** The request checked and planned, or the reason it is impossible. */
export async function prepareBench(params: BenchParams, report: DeviceReport, engines: readonly Engine[]): Promise<Preparation> {
  const sweep = params.sweep === true;
  const sizes = sweep ? SWEEP_SIZES : [params.size ?? DEFAULT_SIZE];
  const dtypes = params.dtypes ?? ['float32'];
  const shape = requestShapeProblem({ ...params, repeats: params.repeats ?? DEFAULT_REPEATS }, sizes, dtypes);
  if (shape) return { kind: 'invalid', message: shape };
  const choice = await chooseTargets(params, report, engines);
  if (choice.kind === 'invalid') return choice;
  const jobs: BenchJob[] = [];
  const problems = [...choice.problems];
  for (const target of choice.targets) {
    const planned = await planTarget(target, params, report, sizes, dtypes as Dtype[]);
    if (typeof planned === 'string') return { kind: 'invalid', message: planned };
    problems.push(...planned.problems);
    if (planned.plans.length > 0) jobs.push({ engine: target.engine, device: target.device, plans: planned.plans });
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
      transfer: params.transfer !== false,
    },
  };
}
