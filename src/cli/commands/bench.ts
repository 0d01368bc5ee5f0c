// `device-doctor bench`: matmul benchmarks, run in this process through the same code the
// worker serves (benchmark() in src/worker/bench/benchmark.ts): a CLI run is one-shot, so
// a forked worker would add a process and a protocol without isolation worth having;
// bench.py still runs in its own process group and Ctrl-C kills it. Impossible requests
// exit 2 at once with the core's message: the numbers and names before anything runs, the
// device once detect has said what this machine has. Its options are parsed in args.ts.
import { formatBenchJson, isFailure, toBenchJson } from '../../core/bench';
import type { BenchProgress } from '../../core/bench/model';
import { DEFAULT_SIZE } from '../../core/bench/plan';
import { threadsText } from '../../core/bench/cpuThreads';
import { isThreadScaling, sameTarget, targetName } from '../../core/bench/compare';
import { SWEEP_SIZES } from '../../core/bench/sweep';
import type { DeviceReport } from '../../core/devices/report';
import type { BenchParams, BenchRunResponse } from '../../protocol/worker';
import { createBenchEngines } from '../../worker/bench/engines';
import { benchScriptPath } from '../../worker/engines/torch/engine';
import { TorchHost } from '../../worker/engines/torch/host';
import { DEFAULT_TIMEOUTS_MS } from '../../protocol/probeTimeouts';
import { requestShapeProblem } from '../../worker/bench/plans';
import { benchmark, InvalidBenchRequest } from '../../worker/bench/benchmark';
import { cliInterpreter } from '../../node/interpreter';
import { formatBenchText } from '../formats/benchText';
import { detectReport } from './detect';
import { runCollectiveCommand } from './benchCollective';
import { runEveryDeviceCommand } from './benchDevices';
import type { BenchOptions } from '../args';
import type { CliIo } from '../io';
import { terminalJson, terminalText } from '../formats/terminalText';

export const EXIT_OK = 0;
/** A wrong product, an engine that failed, or nothing measured at all. */
export const EXIT_FAILED = 1;
/** Bad usage or an impossible request (size, dtype, device, engine). */
export const EXIT_IMPOSSIBLE = 2;
export const EXIT_CANCELLED = 130;

/** What the worker would be asked: all engines, one engine on one device, or a device against the CPU. */
export function benchParamsOf(options: BenchOptions, python: string | null): BenchParams {
  const compare = options.engine === 'all' ? 'all' : options.engine !== undefined && options.device !== undefined ? 'single' : 'versus-cpu';
  return {
    pythonPath: python,
    pinnedDevice: null,
    compare,
    engine: options.engine === 'all' ? undefined : options.engine,
    device: options.device,
    size: options.sweep ? undefined : options.size,
    sweep: options.sweep,
    repeats: options.repeats,
    ...(options.repeatBudgetSec !== undefined ? { repeatBudgetSec: options.repeatBudgetSec } : {}),
    ...(options.memory ? { memory: true } : {}),
    dtypes: options.dtypes,
  };
}

/** The numbers and names checked before detect runs: an impossible size or dtype exits at once. */
function earlyProblem(params: BenchParams): string | null {
  const sizes = params.sweep ? SWEEP_SIZES : [params.size ?? DEFAULT_SIZE];
  return requestShapeProblem({ ...params, device: params.device ?? 'cpu' }, sizes, params.dtypes ?? ['float32']);
}

/** One stderr line per measured size; on a terminal, one line rewritten in place. */
function progressPrinter(io: CliIo): { onProgress: (p: BenchProgress, step: number, steps: number) => void; end(): void } {
  let live = false;
  return {
    onProgress(p, step, steps) {
      const what = terminalText(`[${step}/${steps}] ${p.engine} ${p.device}${p.threads === undefined ? '' : ` ${threadsText(p.threads)}`} ${p.dtype} n=${p.size}`);
      if (io.color) {
        const detail = p.phase === 'timing' ? `${p.done}/${p.repeats}` : p.phase;
        io.stderr(`\r\x1b[K${what} ${detail}`);
        live = true;
      } else if (p.phase === 'checking') io.stderr(`${what}: ${p.repeats} repeats timed\n`);
    },
    end() {
      if (live) io.stderr('\r\x1b[K');
    },
  };
}

export function exitStatusOf(run: BenchRunResponse): number {
  if (run.cancelled) return EXIT_CANCELLED;
  if (run.problems.some(isFailure) || run.results.length === 0) return EXIT_FAILED;
  return EXIT_OK;
}

export async function runBenchCommand(options: BenchOptions, io: CliIo, signal?: AbortSignal, report?: DeviceReport): Promise<number> {
  if (options.collective) return runCollectiveCommand(options, options.collective, io, signal);
  if (options.devices) return runEveryDeviceCommand(options, io, signal);
  const python = cliInterpreter(options.python);
  const params = benchParamsOf(options, python);
  const early = earlyProblem(params);
  if (early) {
    io.stderr(`error: ${terminalText(early)}\n`);
    return EXIT_IMPOSSIBLE;
  }
  // One Python process answers detect's PyTorch probe and then runs the torch batch: one import.
  const host = python && !report ? new TorchHost({ python, script: benchScriptPath(), env: process.env, importTimeoutMs: DEFAULT_TIMEOUTS_MS.torch }) : null;
  const progress = progressPrinter(io);
  let run: BenchRunResponse;
  try {
    const deviceReport = report ?? (await detectReport({ python, verbose: false }, io, signal, undefined, host ? (interpreter) => (interpreter === host.python ? host.probeRun : null) : undefined));
    const engines = createBenchEngines({ python, report: deviceReport, env: process.env, torch: host ? { host } : undefined });
    run = await benchmark(params, deviceReport, engines, { signal, onProgress: progress.onProgress });
  } catch (error) {
    if (!(error instanceof InvalidBenchRequest)) throw error;
    io.stderr(`error: ${terminalText(error.message)}\n`);
    return EXIT_IMPOSSIBLE;
  } finally {
    host?.close();
    progress.end();
  }
  io.stdout(options.json ? benchJsonText(run) : formatBenchText(run));
  return exitStatusOf(run);
}

/**
 * The core's --json object; host↔device transfers are added only when measured (accelerators),
 * and a sweep's limit and stops (`sweep`) only for a sweep.
 */
export function benchJsonText(run: BenchRunResponse): string {
  if (run.transfers.length === 0 && !run.sweep) return terminalJson(formatBenchJson(run));
  const extra = { ...(run.transfers.length > 0 ? { transfers: run.transfers } : {}), ...(run.sweep ? { sweep: run.sweep } : {}) };
  return terminalJson(JSON.stringify({ ...toBenchJson(run), ...extra }, null, 2)) + '\n';
}

// ---- doctor's closing benchmark ----

export const QUICK_BENCH_TITLE = 'Quick benchmark';
/** Small enough for a couple of seconds on a slow CPU, large enough for a GPU to show. */
export const QUICK_BENCH_SIZE = 512;
export const QUICK_BENCH_REPEATS = 5;

function quickResultLine(run: BenchRunResponse, r: BenchRunResponse['results'][number]): string {
  const speed = `${r.gflops.toFixed(1)} GFLOP/s`.padStart(14);
  const baseline = run.speedup?.baseline;
  const s = run.speedup?.entries.find((e) => sameTarget(e, r) && e.dtype === r.dtype);
  // The CPU-only default compares torch with itself at one thread: "1.9× the speed of 1 thread".
  const of = baseline && s && isThreadScaling(s, baseline) ? threadsText(baseline.threads as number) : `${baseline?.engine} on the CPU`;
  const relative = s && baseline ? `  ${Number(s.speedup.toPrecision(3))}× the speed of ${of}${s.dtype !== s.baselineDtype ? ` (${s.baselineDtype})` : ''}` : '';
  return `  ${targetName(r).padEnd(14)}${speed}  (median ${Number((r.medianSec * 1e3).toPrecision(3))} ms)${relative}`;
}

/**
 * The selected device against the CPU at n = 512, float32, median of 5: what is compared,
 * one line per result with its speedup, and the problems in one line each; `host`: the Python
 * that answered detect's probe runs the torch batch (doctor: torch imported once). Never throws.
 */
export async function quickBenchSection(report: DeviceReport, python: string | null, signal?: AbortSignal, host?: TorchHost): Promise<string[]> {
  const title = `${QUICK_BENCH_TITLE} (matmul n = ${QUICK_BENCH_SIZE}, float32, median of ${QUICK_BENCH_REPEATS})`;
  const params: BenchParams = { pythonPath: python, pinnedDevice: null, compare: 'versus-cpu', size: QUICK_BENCH_SIZE, repeats: QUICK_BENCH_REPEATS, transfer: false };
  try {
    const run = await benchmark(params, report, createBenchEngines({ python, report, env: process.env, torch: host ? { host } : undefined }), { signal });
    const lines = [title, `  ${run.description}`, ...run.results.map((r) => quickResultLine(run, r))];
    for (const p of run.problems) lines.push(`  ${p.engine}${p.device ? ` ${p.device}` : ''}: ${p.message}`);
    lines.push("  Run 'device-doctor bench' for other sizes, engines and dtypes ('--engine all', '--sweep').");
    return lines;
  } catch (error) {
    return [title, `  Could not run: ${error instanceof Error ? error.message : String(error)}`];
  }
}
