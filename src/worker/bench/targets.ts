// Which engine runs on which device, from a benchmark request and the device report:
// "selected device vs CPU", "everything available", or one named engine/device. A target
// the user named explicitly that cannot run makes the request impossible (rejected at
// once, like a bad size); one picked for them that cannot run is a problem to report.
//
// The default answers what a PyTorch user asks: with an accelerator, torch on it against
// torch on the CPU; without one, torch on all the CPU's threads against torch on one (the
// thread scaling, beside the % of peak). Other engines (wasm, js, native TensorFlow.js)
// run only when named or in "everything".
import type { BenchCompare, BenchParams } from '../../protocol/worker';
import type { DeviceReport } from '../../core/devices/report';
import type { EngineId, EngineOutcome } from '../../core/bench/model';
import type { Engine } from '../engines/engine';
import { threadsText } from '../../core/bench/cpuThreads';
import { canonicalDevice } from './reportFacts';

export interface BenchTarget {
  engine: Engine;
  device: string;
  /** Named by the user (single, or --engine/--device): if it cannot run, the request is impossible. */
  explicit: boolean;
  /** torch on the CPU: torch.set_num_threads for the run; absent: torch's own choice (single). */
  threads?: number;
  /** In "everything" without being named: js is then capped at n = JS_EVERYTHING_MAX_SIZE (plans.ts). */
  everything?: boolean;
}

export type TargetChoice =
  | { kind: 'targets'; targets: BenchTarget[]; problems: EngineOutcome[]; description: string }
  | { kind: 'invalid'; message: string };

/** CPU engines that make a baseline, best first (js is too slow to run by default). */
const CPU_PARTNERS: readonly EngineId[] = ['torch', 'tfjs-node', 'wasm'];

export class InvalidBenchRequest extends Error {}

function engineById(engines: readonly Engine[], id: string): Engine {
  const engine = engines.find((e) => e.id === id);
  if (!engine) throw new InvalidBenchRequest(`Unknown engine "${id}": use ${engines.map((e) => e.id).join(', ')} or all.`);
  return engine;
}

async function isAvailable(engine: Engine): Promise<boolean> {
  return (await engine.availability()) === 'ok';
}

/** The first available CPU engine of `ids` other than `except`. */
async function cpuPartner(engines: readonly Engine[], except: EngineId): Promise<Engine | null> {
  for (const id of CPU_PARTNERS) {
    const engine = engines.find((e) => e.id === id);
    if (engine && id !== except && (await isAvailable(engine)) && (await engine.devices()).includes('cpu')) return engine;
  }
  return null;
}

/** An engine on the CPU; torch with all threads, since a baseline on one of several cores would flatter every accelerator. */
function onCpu(engine: Engine, allThreads: number, explicit: boolean): BenchTarget {
  return engine.id === 'torch' ? { engine, device: 'cpu', explicit, threads: allThreads } : { engine, device: 'cpu', explicit };
}

function cpuWords(target: BenchTarget): string {
  return target.threads === undefined ? `${target.engine.id} on the CPU` : `${target.engine.id} on the CPU (${threadsText(target.threads)})`;
}

async function versusCpu(params: BenchParams, report: DeviceReport, engines: readonly Engine[], allThreads: number): Promise<TargetChoice> {
  const device = canonicalDevice(params.device ?? report.selected.device);
  const torch = engineById(engines, 'torch');
  const torchAvailability = await torch.availability();
  // Only torch (and tfjs-node-gpu, when asked for) runs on an accelerator.
  const torchFirst = device !== 'cpu' || torchAvailability === 'ok';
  const engine = params.engine !== undefined ? engineById(engines, params.engine) : torchFirst ? torch : engineById(engines, 'wasm');
  const explicit = params.engine !== undefined || params.device !== undefined;
  if (device !== 'cpu') {
    const targets: BenchTarget[] = [{ engine, device, explicit }];
    const sameEngineOnCpu = (await engine.devices()).includes('cpu');
    const baseline = sameEngineOnCpu ? engine : await cpuPartner(engines, engine.id);
    if (baseline) targets.push(onCpu(baseline, allThreads, false));
    const description = baseline ? `${engine.id} on ${device} compared with ${cpuWords(targets[1])}` : `${engine.id} on ${device} (no CPU engine to compare with)`;
    return { kind: 'targets', targets, problems: [], description };
  }
  if (engine.id === 'torch') return threadScaling(engine, allThreads, explicit);
  if (params.engine === undefined) {
    // No usable PyTorch: the bundled wasm engine alone, and torch's problem says what to install.
    const problems = torchAvailability === 'ok' ? [] : [torchAvailability];
    return { kind: 'targets', targets: [{ engine, device, explicit }], problems, description: `No accelerator selected and no usable PyTorch: ${engine.id} on the CPU alone` };
  }
  // Another engine named on the CPU: beside torch with all threads, what PyTorch would get here.
  const partner = await cpuPartner(engines, engine.id);
  const targets: BenchTarget[] = [{ engine, device, explicit }, ...(partner ? [onCpu(partner, allThreads, false)] : [])];
  const description = partner ? `${engine.id} on the CPU compared with ${cpuWords(targets[1])}` : `${engine.id} on the CPU only (no PyTorch or native TensorFlow here to compare it with)`;
  return { kind: 'targets', targets, problems: [], description };
}

/** torch on the CPU with all threads against one thread; one target when one core is all there is. */
function threadScaling(torch: Engine, allThreads: number, explicit: boolean): TargetChoice {
  if (allThreads <= 1) {
    const targets: BenchTarget[] = [{ engine: torch, device: 'cpu', explicit, threads: 1 }];
    return { kind: 'targets', targets, problems: [], description: 'No accelerator selected: torch on the CPU, 1 thread (this process may use one core only, so there is no thread scaling to measure)' };
  }
  const targets: BenchTarget[] = [
    { engine: torch, device: 'cpu', explicit, threads: allThreads },
    { engine: torch, device: 'cpu', explicit: false, threads: 1 },
  ];
  return { kind: 'targets', targets, problems: [], description: `No accelerator selected: torch on the CPU with all ${allThreads} threads (the physical cores this process may use) compared with 1 thread` };
}

/** An NVIDIA GPU in the report (a CUDA device not from AMD): only then can tfjs-node-gpu run here at all. */
function hasNvidiaGpu(report: DeviceReport): boolean {
  return report.accelerators.some((a) => a.vendor === 'nvidia' || (a.vendor !== 'amd' && /^cuda/.test(a.id)));
}

async function everything(params: BenchParams, engines: readonly Engine[], allThreads: number, nvidia: boolean): Promise<TargetChoice> {
  const named = params.engine !== undefined && params.engine !== 'all';
  const wanted = named ? [engineById(engines, params.engine as string)] : engines;
  const device = params.device === undefined ? undefined : canonicalDevice(params.device);
  const targets: BenchTarget[] = [];
  const problems: EngineOutcome[] = [];
  for (const engine of wanted) {
    const availability = await engine.availability();
    if (availability !== 'ok') {
      // "Install tfjs-node-gpu" is no advice on a machine without an NVIDIA GPU (issue 28 item 9).
      if (!(engine.id === 'tfjs-node-gpu' && !nvidia && !named && availability.status === 'not-installed')) problems.push(availability);
      continue;
    }
    for (const d of await engine.devices()) {
      if (device !== undefined && d !== device) continue;
      const target: BenchTarget = d === 'cpu' ? onCpu(engine, allThreads, false) : { engine, device: d, explicit: false };
      targets.push(named ? target : { ...target, everything: true });
    }
  }
  if (targets.length === 0 && device !== undefined) {
    return { kind: 'invalid', message: `No available engine has device ${device}; run device-doctor detect to see this machine's devices.` };
  }
  const scope = device ? `on ${device}` : 'on every device it has';
  return { kind: 'targets', targets, problems, description: `Every available engine ${scope}` };
}

function single(params: BenchParams, engines: readonly Engine[]): TargetChoice {
  if (params.engine === undefined || params.device === undefined) {
    return { kind: 'invalid', message: 'A single-engine benchmark needs both an engine and a device.' };
  }
  const engine = engineById(engines, params.engine);
  const device = canonicalDevice(params.device);
  return { kind: 'targets', targets: [{ engine, device, explicit: true }], problems: [], description: `${engine.id} on ${device}` };
}

/**
 * The targets of a request, or why it is impossible. `allThreads`: what "all threads" is for
 * torch on the CPU here (core/bench/cpuThreads.ts: the physical cores this process may use).
 */
export async function chooseTargets(params: BenchParams, report: DeviceReport, engines: readonly Engine[], allThreads: number): Promise<TargetChoice> {
  const compare: BenchCompare = params.compare;
  try {
    if (compare === 'single') return single(params, engines);
    if (compare === 'all' || params.engine === 'all') return await everything(params, engines, allThreads, hasNvidiaGpu(report));
    if (compare === 'versus-cpu') return await versusCpu(params, report, engines, allThreads);
    return { kind: 'invalid', message: `Unknown comparison "${String(compare)}": use versus-cpu, all or single.` };
  } catch (error) {
    if (error instanceof InvalidBenchRequest) return { kind: 'invalid', message: error.message };
    throw error;
  }
}
