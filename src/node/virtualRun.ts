// Starts virtual_gpu.py with the user's interpreter on their script, module or notebook, and
// reads its report. One runner for the CLI and the editor; a future mode (a profiler run on
// a real GPU) adds its own options to the same start. The script's output is passed on as it
// comes; the report travels through a file of our own, never through the script's stdout.
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { parseRunReport, ReportError, type VirtualRunReport } from '../core/virtualRun/report';
import { OWNED_CHILDREN, startProcess, whenAborted } from './processRunner';

export type RunTarget = { script: string } | { module: string } | { notebook: string };

export interface VirtualRunOptions {
  /** Absolute path of the interpreter, or a bare name found on PATH. */
  interpreter: string;
  target: RunTarget;
  args: readonly string[];
  /** 'cuda', 'cuda:N' or 'mps'. */
  virtual: string;
  devices: number;
  steps?: number;
  timeSeconds?: number;
  /** The folder the script runs in (its relative paths) and, unless `root` says otherwise, whose files are the user's. */
  cwd: string;
  /** The folder whose files are the user's (frames elsewhere are libraries); default `cwd`. */
  root?: string;
  env?: NodeJS.ProcessEnv;
  onOutput?(text: string, stream: 'stdout' | 'stderr'): void;
}

/** How long past --time the process may take to write its report before it is killed. */
const REPORT_GRACE_MS = 30_000;

export type VirtualRunResult = { report: VirtualRunReport } | { error: string };

/** Where virtual_gpu.py is: beside the bundle in dist/, or in src/worker/python from source. */
export function virtualGpuScriptPath(baseDir: string = __dirname): string {
  const candidates = [path.join(baseDir, 'virtual_gpu.py'), path.join(baseDir, '..', 'worker', 'python', 'virtual_gpu.py')];
  return candidates.find((file) => fs.existsSync(file)) ?? candidates[0];
}

export function runnerArgs(options: VirtualRunOptions, reportFile: string, script = virtualGpuScriptPath()): string[] {
  const args = [script, '--report', reportFile, '--virtual', options.virtual, '--devices', String(options.devices), '--root', options.root ?? options.cwd];
  if (options.steps !== undefined) args.push('--steps', String(options.steps));
  if (options.timeSeconds !== undefined) args.push('--time', String(options.timeSeconds));
  const { target } = options;
  if ('module' in target) args.push('--module', target.module);
  else if ('notebook' in target) args.push('--notebook', target.notebook);
  else args.push(target.script);
  return [...args, '--', ...options.args];
}

function describeEnd(exitCode: number | null, signal: string | null, stderrTail: string): string {
  const last = stderrTail.trim().split('\n').pop() ?? '';
  const how = signal ? `was killed (${signal})` : `exited with status ${exitCode}`;
  return `the virtual-GPU run ${how} before writing its report${last ? `: ${last}` : ''}`;
}

/** Runs the target on the virtual GPU; resolves with the report or a sentence saying why there is none. */
export async function runOnVirtualGpu(options: VirtualRunOptions, signal?: AbortSignal): Promise<VirtualRunResult> {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'device-doctor-run-'));
  const reportFile = path.join(folder, 'report.json');
  try {
    const child = startProcess(options.interpreter, runnerArgs(options, reportFile), {
      cwd: options.cwd,
      env: { ...(options.env ?? process.env), PYTHONUNBUFFERED: '1' },
      track: OWNED_CHILDREN,
      onStdout: (text) => options.onOutput?.(text, 'stdout'),
      onStderr: (text) => options.onOutput?.(text, 'stderr'),
    });
    const stopAbort = whenAborted(signal, () => child.kill());
    const limit = options.timeSeconds === undefined ? undefined : setTimeout(() => child.kill(), options.timeSeconds * 1000 + REPORT_GRACE_MS);
    const end = await child.ended;
    stopAbort();
    if (limit) clearTimeout(limit);
    if (signal?.aborted) return { error: 'the virtual-GPU run was cancelled' };
    if (end.errorCode) return { error: `could not start ${options.interpreter}: ${end.errorMessage ?? end.errorCode}` };
    if (!fs.existsSync(reportFile)) return { error: describeEnd(end.exitCode, end.signal, child.stderrTail) };
    return { report: parseRunReport(fs.readFileSync(reportFile, 'utf8')) };
  } catch (err) {
    if (err instanceof ReportError) return { error: err.message };
    throw err;
  } finally {
    fs.rmSync(folder, { recursive: true, force: true });
  }
}
