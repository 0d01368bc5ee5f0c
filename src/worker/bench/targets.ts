// Which engine runs on which device, from a benchmark request and the device report:
// "selected device vs CPU", "everything available", or one named engine/device. A target
// the user named explicitly that cannot run makes the request impossible (rejected at
// once, like a bad size); one picked for them that cannot run is a problem to report.
import type { BenchCompare, BenchParams } from '../../protocol/worker';
import type { DeviceReport } from '../../core/devices/report';
import type { EngineId, EngineOutcome } from '../../core/bench/model';
import type { Engine } from '../engines/engine';
import { canonicalDevice } from './reportFacts';

export interface BenchTarget {
  engine: Engine;
  device: string;
  /** Named by the user (single, or --engine/--device): if it cannot run, the request is impossible. */
  explicit: boolean;
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

async function versusCpu(params: BenchParams, report: DeviceReport, engines: readonly Engine[]): Promise<TargetChoice> {
  const device = canonicalDevice(params.device ?? report.selected.device);
  // Only torch (and tfjs-node-gpu, when asked for) runs on an accelerator.
  const torchFirst = device !== 'cpu' || (await isAvailable(engineById(engines, 'torch')));
  const engine = engineById(engines, params.engine ?? (torchFirst ? 'torch' : 'wasm'));
  const explicit = params.engine !== undefined || params.device !== undefined;
  const targets: BenchTarget[] = [{ engine, device, explicit }];
  if (device !== 'cpu') {
    const sameEngineOnCpu = (await engine.devices()).includes('cpu');
    const baseline = sameEngineOnCpu ? engine : await cpuPartner(engines, engine.id);
    if (baseline) targets.push({ engine: baseline, device: 'cpu', explicit: false });
    return { kind: 'targets', targets, problems: [], description: describePair(targets) };
  }
  const partner = await cpuPartner(engines, engine.id);
  if (partner) targets.push({ engine: partner, device: 'cpu', explicit: false });
  const description = partner
    ? `No accelerator selected: ${engine.id} on the CPU compared with ${partner.id} on the CPU`
    : `No accelerator selected: ${engine.id} on the CPU only (no PyTorch or native TensorFlow here to compare it with)`;
  return { kind: 'targets', targets, problems: [], description };
}

function describePair(targets: readonly BenchTarget[]): string {
  const [main, baseline] = targets;
  return baseline ? `${main.engine.id} on ${main.device} compared with ${baseline.engine.id} on the CPU` : `${main.engine.id} on ${main.device} (no CPU engine to compare with)`;
}

async function everything(params: BenchParams, engines: readonly Engine[]): Promise<TargetChoice> {
  const wanted = params.engine && params.engine !== 'all' ? [engineById(engines, params.engine)] : engines;
  const device = params.device === undefined ? undefined : canonicalDevice(params.device);
  const targets: BenchTarget[] = [];
  const problems: EngineOutcome[] = [];
  for (const engine of wanted) {
    const availability = await engine.availability();
    if (availability !== 'ok') {
      problems.push(availability);
      continue;
    }
    for (const d of await engine.devices()) if (device === undefined || d === device) targets.push({ engine, device: d, explicit: false });
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

/** The targets of a request, or why it is impossible. */
export async function chooseTargets(params: BenchParams, report: DeviceReport, engines: readonly Engine[]): Promise<TargetChoice> {
  const compare: BenchCompare = params.compare;
  try {
    if (compare === 'single') return single(params, engines);
    if (compare === 'all' || params.engine === 'all') return await everything(params, engines);
    if (compare === 'versus-cpu') return await versusCpu(params, report, engines);
    return { kind: 'invalid', message: `Unknown comparison "${String(compare)}": use versus-cpu, all or single.` };
  } catch (error) {
    if (error instanceof InvalidBenchRequest) return { kind: 'invalid', message: error.message };
    throw error;
  }
}
