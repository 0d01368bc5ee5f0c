// `device-doctor bench --devices all`: the torch matmul on every accelerator PyTorch sees, one
// at a time and then all at once (one bench.py per device, in parallel), each against the
// median of its peers (core/bench/devices), with each GPU's SM clock, temperature and power
// as nvidia-smi saw them during that device's own run (worker/bench/everyDeviceRunner.ts).
// Fewer than two accelerators exits 2 at once.
import { everyDeviceProblem, everyDeviceReport, everyTorchDevice, measureEveryDevice } from '../../core/bench/devices/everyDevice';
import { DEFAULT_SIZE } from '../../core/bench/plan';
import { cliInterpreter } from '../../node/interpreter';
import { createBenchEngines } from '../../worker/bench/engines';
import { TorchEveryDeviceRunner } from '../../worker/bench/everyDeviceRunner';
import type { BenchOptions } from '../args';
import { formatEveryDeviceText } from '../formats/everyDeviceText';
import { terminalJson, terminalText } from '../formats/terminalText';
import type { CliIo } from '../io';
import { detectReport } from './detect';

const EXIT_OK = 0;
const EXIT_FAILED = 1;
const EXIT_IMPOSSIBLE = 2;

export async function runEveryDeviceCommand(options: BenchOptions, io: CliIo, signal?: AbortSignal): Promise<number> {
  const python = cliInterpreter(options.python);
  const report = await detectReport({ python, verbose: false }, io, signal);
  const devices = everyTorchDevice(report);
  const problem = everyDeviceProblem(devices, python);
  if (problem) {
    io.stderr(`error: ${terminalText(problem)}\n`);
    return EXIT_IMPOSSIBLE;
  }
  io.stderr(`${devices.length} devices: each alone, then all at once\n`);
  const runner = new TorchEveryDeviceRunner({
    python, report, devices, size: options.size, repeats: options.repeats, dtypes: options.dtypes, env: process.env,
    engines: () => createBenchEngines({ python, report, env: process.env }),
  });
  const runs = await measureEveryDevice(devices, runner, signal);
  const result = everyDeviceReport(devices, runs, { size: options.size ?? DEFAULT_SIZE, dtype: options.dtypes?.[0] ?? 'float32', report });
  io.stdout(options.json ? `${terminalJson(JSON.stringify(result, null, 2))}\n` : formatEveryDeviceText(result));
  const failed = result.devices.some((d) => 'error' in d.alone || 'error' in d.together);
  return failed ? EXIT_FAILED : EXIT_OK;
}
