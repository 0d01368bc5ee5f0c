// `bench --devices all` as pure logic: the devices to run (every accelerator PyTorch sees),
// each device's matmul measured alone (one at a time) and together (all at once: shared power,
// cooling, PCIe and host threads show up only then), and the verdicts of slowDevices.ts for
// both passes, with each device's temperature and power from the device report taken after
// the runs. The runs themselves are injected, so this is tested with fakes.
import type { DeviceReport } from '../../devices/report';
import { judgeDevices, slowDeviceMessage, type DeviceVerdict } from './slowDevices';

export const EVERY_DEVICE_SCHEMA_VERSION = 1;

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

/** One device's GFLOP/s in one pass, or why it has none. */
export type DeviceRun = { gflops: number } | { error: string };

export interface DeviceRow {
  device: string;
  name: string | null;
  alone: DeviceRun;
  together: DeviceRun;
  temperatureC: number | null;
  powerW: number | null;
  /** Verdicts among the devices that measured in that pass; null when this one did not. */
  aloneVerdict: DeviceVerdict | null;
  togetherVerdict: DeviceVerdict | null;
}

export interface EveryDeviceReport {
  schemaVersion: 1;
  size: number;
  dtype: string;
  devices: DeviceRow[];
  /** One sentence per slow device and pass. */
  findings: string[];
}

export interface EveryDeviceRunner {
  /** One matmul benchmark on one device; must not throw (a failure is { error }). */
  run(device: string, signal?: AbortSignal): Promise<DeviceRun>;
}

/** Measures every device alone, then all together, and judges both passes. */
export async function measureEveryDevice(devices: readonly string[], runner: EveryDeviceRunner, signal?: AbortSignal): Promise<{ alone: DeviceRun[]; together: DeviceRun[] }> {
  const alone: DeviceRun[] = [];
  for (const device of devices) alone.push(await runner.run(device, signal));
  const together = await Promise.all(devices.map((device) => runner.run(device, signal)));
  return { alone, together };
}

function verdicts(devices: readonly string[], runs: readonly DeviceRun[], report: DeviceReport | null): (DeviceVerdict | null)[] {
  const measured = devices.map((device, i) => ({ device, run: runs[i] })).filter((d): d is { device: string; run: { gflops: number } } => 'gflops' in d.run);
  if (measured.length < 2) return devices.map(() => null);
  const judged = judgeDevices(measured.map(({ device, run }) => ({ device, gflops: run.gflops, ...monitorFacts(device, report) })));
  return devices.map((device) => judged.find((v) => v.device === device) ?? null);
}

/** The device report's temperature and power for a torch device (accelerator ids are cuda:N when matched). */
function monitorFacts(device: string, report: DeviceReport | null): { temperatureC: number | null; powerW: number | null; smClockMHz: null } {
  const accelerator = report?.accelerators.find((a) => a.id === device);
  return { temperatureC: accelerator?.temperatureC ?? null, powerW: accelerator?.powerW ?? null, smClockMHz: null };
}

export function everyDeviceReport(
  devices: readonly string[],
  runs: { alone: DeviceRun[]; together: DeviceRun[] },
  facts: { size: number; dtype: string; report: DeviceReport | null },
): EveryDeviceReport {
  const alone = verdicts(devices, runs.alone, facts.report);
  const together = verdicts(devices, runs.together, facts.report);
  const rows = devices.map((device, i): DeviceRow => ({
    device,
    name: facts.report?.accelerators.find((a) => a.id === device)?.name ?? null,
    alone: runs.alone[i],
    together: runs.together[i],
    ...monitorFacts(device, facts.report),
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
