// `bench --devices all` as pure logic: the devices to run (every accelerator PyTorch sees),
// each device's matmul measured alone (one at a time) and together (all at once: shared power,
// cooling, PCIe and host threads show up only then), and the verdicts of slowDevices.ts for
// both passes. Each run carries what its GPU did during that run (runConditions.ts: SM clock,
// temperature, power), so a slow device is reported with the readings of its own run, not
// with a readout taken afterwards. The runs themselves are injected, so this is tested with fakes.
import type { DeviceReport } from '../../devices/report';
import type { RunConditions } from './runConditions';
import { judgeDevices, slowDeviceMessage, type DeviceVerdict } from './slowDevices';

/** 2: each pass's run carries its own `during` readings (1 had one temperature and power per device, read after the runs). */
export const EVERY_DEVICE_SCHEMA_VERSION = 2;

/** cuda:0 … cuda:n−1 when PyTorch sees CUDA (or ROCm) devices; none otherwise. */
export function everyTorchDevice(report: DeviceReport | null): string[] {
  const torch = report?.torch;
  if (!torch || 'error' in torch || !torch.cuda.available) return [];
  return Array.from({ length: torch.cuda.deviceCount }, (_, i) => `cuda:${i}`);
}

/** Why the devices cannot be compared, or null. */
export function everyDeviceProblem(devices: readonly string[], python: string | null): string | null {
  if (devices.length >= 2) return null;
  const sees = devices.length === 0 ? 'no CUDA or ROCm device' : 'one GPU';
  return `--devices all compares accelerators with each other, and PyTorch${python ? ` in ${python}` : ''} sees ${sees}; run 'device-doctor bench' for one device`;
}

/** One device's GFLOP/s in one pass and what its GPU did meanwhile (null: not seen), or why it has no speed. */
export type DeviceRun = { gflops: number; during?: RunConditions | null } | { error: string };

export interface DeviceRow {
  device: string;
  name: string | null;
  alone: DeviceRun;
  together: DeviceRun;
  /** Verdicts among the devices that measured in that pass; null when this one did not. */
  aloneVerdict: DeviceVerdict | null;
  togetherVerdict: DeviceVerdict | null;
}

export interface EveryDeviceReport {
  schemaVersion: typeof EVERY_DEVICE_SCHEMA_VERSION;
  size: number;
  dtype: string;
  devices: DeviceRow[];
  /** One sentence per slow device and pass. */
  findings: string[];
}

/** The two passes' runs, in the order of the devices. */
export interface EveryDeviceRuns {
  alone: DeviceRun[];
  together: DeviceRun[];
}

export interface EveryDeviceRunner {
  /** One matmul benchmark on one device; must not throw (a failure is { error }). */
  run(device: string, signal?: AbortSignal): Promise<DeviceRun>;
  /** Called before and after each pass (the CLI watches nvidia-smi for the length of a pass). */
  passStarting?(pass: 'alone' | 'together'): void;
  passEnded?(pass: 'alone' | 'together', runs: DeviceRun[]): Promise<DeviceRun[]>;
}

/** Measures every device alone, then all together. */
export async function measureEveryDevice(devices: readonly string[], runner: EveryDeviceRunner, signal?: AbortSignal): Promise<EveryDeviceRuns> {
  runner.passStarting?.('alone');
  let alone: DeviceRun[] = [];
  for (const device of devices) alone.push(await runner.run(device, signal));
  alone = (await runner.passEnded?.('alone', alone)) ?? alone;
  runner.passStarting?.('together');
  let together = await Promise.all(devices.map((device) => runner.run(device, signal)));
  together = (await runner.passEnded?.('together', together)) ?? together;
  return { alone, together };
}

export function conditionsOf(run: DeviceRun): RunConditions | null {
  return 'gflops' in run ? run.during ?? null : null;
}

function verdicts(devices: readonly string[], runs: readonly DeviceRun[]): (DeviceVerdict | null)[] {
  const measured = devices.map((device, i) => ({ device, run: runs[i] })).filter((d): d is { device: string; run: { gflops: number; during?: RunConditions | null } } => 'gflops' in d.run);
  if (measured.length < 2) return devices.map(() => null);
  const judged = judgeDevices(measured.map(({ device, run }) => {
    const during = run.during ?? null;
    return { device, gflops: run.gflops, smClockMHz: during?.smClockMHz ?? null, maxSmClockMHz: during?.maxSmClockMHz ?? null, temperatureC: during?.temperatureC ?? null, powerW: during?.powerW ?? null };
  }));
  return devices.map((device) => judged.find((v) => v.device === device) ?? null);
}

export function everyDeviceReport(devices: readonly string[], runs: EveryDeviceRuns, facts: { size: number; dtype: string; report: DeviceReport | null }): EveryDeviceReport {
  const alone = verdicts(devices, runs.alone);
  const together = verdicts(devices, runs.together);
  const rows = devices.map((device, i): DeviceRow => ({
    device,
    name: facts.report?.accelerators.find((a) => a.id === device)?.name ?? null,
    alone: runs.alone[i],
    together: runs.together[i],
    aloneVerdict: alone[i],
    togetherVerdict: together[i],
  }));
  const findings: string[] = [];
  for (const [pass, list] of [['alone', alone], ['all at once', together]] as const) {
    const peers = list.filter((v) => v !== null).length - 1;
    for (const v of list) if (v?.slow) findings.push(`${slowDeviceMessage(v, peers)} (${pass})`);
  }
  return { schemaVersion: EVERY_DEVICE_SCHEMA_VERSION, size: facts.size, dtype: facts.dtype, devices: rows, findings };
}
