// `device-doctor bench --devices all`: the torch matmul on every accelerator PyTorch sees, one
// at a time and then all at once (one bench.py per device, in parallel), each against the
// median of its peers (core/bench/devices). Temperature and power come from a detect after the
// runs, while the devices are still warm. Fewer than two accelerators exits 2 at once.
import { everyDeviceProblem, everyDeviceReport, everyTorchDevice, measureEveryDevice, type DeviceRun } from '../../core/bench/devices/everyDevice';
import { isFailure } from '../../core/bench/outcomes';
import { DEFAULT_SIZE } from '../../core/bench/plan';
import type { DeviceReport } from '../../core/devices/report';
import type { BenchParams } from '../../protocol/worker';
import { cliInterpreter } from '../../node/interpreter';
import { benchmark } from '../../worker/bench/benchmark';
import { createBenchEngines } from '../../worker/bench/engines';
import type { BenchOptions } from '../args';
import { formatEveryDeviceText } from '../formats/everyDeviceText';
import { terminalJson, terminalText } from '../formats/terminalText';
import type { CliIo } from '../io';
import { detectReport } from './detect';

const EXIT_OK = 0;
const EXIT_FAILED = 1;
const EXIT_IMPOSSIBLE = 2;

/** One torch matmul on one device, as the worker's benchmark() runs it; never throws. */
function torchRunner(python: string | null, report: DeviceReport, options: BenchOptions) {
  return {
    async run(device: string, signal?: AbortSignal): Promise<DeviceRun> {
      const params: BenchParams = {
        pythonPath: python, pinnedDevice: null, compare: 'single', engine: 'torch', device,
        size: options.size ?? DEFAULT_SIZE, repeats: options.repeats, dtypes: options.dtypes, transfer: false,
      };
      try {
        const run = await benchmark(params, report, createBenchEngines({ python, report, env: process.env }), { signal });
        const failure = run.problems.find(isFailure);
        const best = run.results.find((r) => r.device === device);
        if (failure || !best) return { error: failure?.message ?? 'nothing was measured' };
        return { gflops: best.gflops };
      } catch (error) {
        return { error: error instanceof Error ? error.message : String(error) };
      }
    },
  };
}

export async function runEveryDeviceCommand(options: BenchOptions, io: CliIo, signal?: AbortSignal): Promise<number> {
  const python = cliInterpreter(options.python);
  const before = await detectReport({ python, verbose: false }, io, signal);
  const devices = everyTorchDevice(before);
  const problem = everyDeviceProblem(devices, python);
  if (problem) {
    io.stderr(`error: ${terminalText(problem)}\n`);
    return EXIT_IMPOSSIBLE;
  }
  io.stderr(`${devices.length} devices: each alone, then all at once\n`);
  const runs = await measureEveryDevice(devices, torchRunner(python, before, options), signal);
  const after = await detectReport({ python, verbose: false }, io, signal).catch(() => before);
  const report = everyDeviceReport(devices, runs, { size: options.size ?? DEFAULT_SIZE, dtype: options.dtypes?.[0] ?? 'float32', report: after });
  io.stdout(options.json ? `${terminalJson(JSON.stringify(report, null, 2))}\n` : formatEveryDeviceText(report));
  const failed = report.devices.some((d) => 'error' in d.alone || 'error' in d.together);
  return failed ? EXIT_FAILED : EXIT_OK;
}
