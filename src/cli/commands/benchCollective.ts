// `device-doctor bench --collective`: torch.distributed collectives over N ranks started on
// this machine (src/worker/bench/collectives), their bandwidths by nccl-tests' formulas. The
// request is judged before any rank starts (exit 2): the names and sizes as typed, then one
// GPU per rank from what PyTorch sees (only detected when CUDA may be meant: --device cpu
// starts nothing but the ranks), and the buffers against free memory.
import * as os from 'os';
import { wrongMeasurements } from '../../core/bench/collectives/report';
import {
  collectiveFactsOf,
  collectiveRequestProblem,
  DEFAULT_GROUP_TIMEOUT_SEC,
  DEFAULT_MAX_BYTES,
  DEFAULT_MIN_BYTES,
  DEFAULT_ITERS,
  DEFAULT_WARMUP,
  parseByteSize,
  parseCollectives,
  sweepBytes,
  type CollectiveDevice,
  type CollectiveFacts,
  type CollectiveRequest,
} from '../../core/bench/collectives/request';
import type { DeviceReport } from '../../core/devices/report';
import { cliInterpreter } from '../../node/interpreter';
import { runCollectives } from '../../worker/bench/collectives/run';
import type { BenchOptions, CollectiveOptions } from '../args';
import { formatCollectiveText, sizeText } from '../formats/collectiveText';
import { terminalJson, terminalText } from '../formats/terminalText';
import type { CliIo } from '../io';
import { detectReport } from './detect';

const EXIT_OK = 0;
const EXIT_FAILED = 1;
const EXIT_IMPOSSIBLE = 2;
const EXIT_CANCELLED = 130;
/** The whole sweep, every rank: 1 MiB … 1 GiB of four collectives takes minutes on CPUs. */
export const DEFAULT_RUN_TIMEOUT_SEC = 1800;

class Impossible extends Error {}

function bytesOption(text: string | undefined, fallback: number, name: string): number {
  if (text === undefined) return fallback;
  const bytes = parseByteSize(text);
  if (bytes === null) throw new Impossible(`${name} needs a size such as 4MiB, 512KiB, 1GiB or a number of bytes (got '${text}')`);
  return bytes;
}

function deviceOption(device: string | undefined): CollectiveDevice | undefined {
  if (device === undefined || device === 'cpu' || device === 'cuda') return device;
  throw new Impossible(`--device must be cpu or cuda with --collective: rank r uses cuda:r, one GPU each (got '${device}')`);
}

// Judged in the core, shared with the worker's CollectiveBenchRequest; named here for the CLI's tests.
export { collectiveFactsOf };

async function requestOf(options: BenchOptions, collective: CollectiveOptions, io: CliIo, signal?: AbortSignal): Promise<{ request: CollectiveRequest; facts: CollectiveFacts; report: DeviceReport | null }> {
  if (collective.masterPort !== undefined) {
    throw new Impossible('--master-port is no longer used: the ranks meet through a file in a private temporary folder, so no port is opened; leave it out');
  }
  const parsed = parseCollectives(collective.collective);
  if ('unknown' in parsed) throw new Impossible(`unknown collective '${parsed.unknown}' (choose all-reduce, all-gather, broadcast, send-recv, or all)`);
  const minBytes = bytesOption(collective.minSize, DEFAULT_MIN_BYTES, '--min-size');
  const maxBytes = bytesOption(collective.maxSize, collective.minSize !== undefined ? Math.max(DEFAULT_MAX_BYTES, minBytes) : DEFAULT_MAX_BYTES, '--max-size');
  const given = deviceOption(options.device);
  const hostFree = os.freemem();
  // Only CUDA needs PyTorch's view of the GPUs; asking costs an interpreter start.
  const report = given === 'cpu' ? null : await detectReport({ python: options.python, verbose: false }, io, signal);
  const facts = collectiveFactsOf(report, hostFree);
  const device = given ?? ((facts.cudaDevices ?? 0) > 0 ? 'cuda' : 'cpu');
  const runSeconds = collective.timeoutSeconds ?? DEFAULT_RUN_TIMEOUT_SEC;
  const request: CollectiveRequest = {
    collectives: parsed.collectives,
    device,
    worldSize: collective.worldSize ?? (device === 'cuda' ? facts.cudaDevices ?? 2 : 2),
    minBytes,
    maxBytes,
    iters: options.repeats ?? DEFAULT_ITERS,
    warmup: DEFAULT_WARMUP,
    timeoutSec: Math.min(DEFAULT_GROUP_TIMEOUT_SEC, runSeconds),
  };
  return { request, facts, report };
}

export async function runCollectiveCommand(options: BenchOptions, collective: CollectiveOptions, io: CliIo, signal?: AbortSignal): Promise<number> {
  let request: CollectiveRequest;
  let devices: DeviceReport | null;
  try {
    const judged = await requestOf(options, collective, io, signal);
    request = judged.request;
    devices = judged.report;
    const problem = collectiveRequestProblem(request, judged.facts);
    if (problem) throw new Impossible(problem);
  } catch (error) {
    if (!(error instanceof Impossible)) throw error;
    io.stderr(`error: ${terminalText(error.message)}\n`);
    return EXIT_IMPOSSIBLE;
  }
  // The P2P matrix is one more step, when rank 0 has two GPUs or more to copy between.
  const p2pStep = request.device === 'cuda' && (collectiveFactsOf(devices, null).cudaDevices ?? 0) >= 2 ? 1 : 0;
  const steps = request.collectives.length * sweepBytes(request.minBytes, request.maxBytes).length + p2pStep;
  let done = 0;
  const outcome = await runCollectives(request, {
    python: cliInterpreter(options.python),
    timeoutMs: (collective.timeoutSeconds ?? DEFAULT_RUN_TIMEOUT_SEC) * 1000,
    signal,
    onMeasured: (name, bytes) => io.stderr(`[${++done}/${steps}] ${terminalText(name)} ${sizeText(bytes)} measured\n`),
  });
  if (outcome.status === 'cancelled') return EXIT_CANCELLED;
  if (outcome.status === 'failed') {
    const noTorch = /No module named '?torch/.test(outcome.message) ? ' (choose an interpreter that has PyTorch with --python)' : '';
    io.stderr(`error: ${terminalText(outcome.message + noTorch)}\n`);
    return EXIT_FAILED;
  }
  const { report } = outcome;
  io.stdout(options.json ? `${terminalJson(JSON.stringify(report, null, 2))}\n` : formatCollectiveText(report, devices));
  const wrong = wrongMeasurements(report);
  for (const r of wrong) io.stderr(`error: ${r.collective} of ${sizeText(r.bytes)} gave a wrong result on rank ${r.wrongRanks.join(', ')}\n`);
  return wrong.length > 0 ? EXIT_FAILED : EXIT_OK;
}
