// The one way the worker runs a tool: no shell, an argv array, a hard timeout that ends
// in SIGKILL, and capped output. A stuck nvidia-smi in uninterruptible sleep may ignore
// SIGTERM and even SIGKILL for a while, so the result is settled at the deadline
// instead of waiting for the process to go away.
import { spawn, type ChildProcess } from 'child_process';
import type { ToolRun } from '../core/devices/toolRun';

export interface RunToolOptions {
  timeoutMs: number;
  /** Per stream; past it the tool is killed and its output marked truncated. */
  maxOutputBytes?: number;
  env?: NodeJS.ProcessEnv;
  /** Aborting kills the tool; the run then ends with errorCode CANCELLED. */
  signal?: AbortSignal;
}

export interface ToolRunResult extends ToolRun {
  command: string;
  args: readonly string[];
  /** Set when the tool died of a signal (a crash, or our SIGKILL). */
  signal: NodeJS.Signals | null;
  truncated: boolean;
  elapsedMs: number;
  /** The operating system's message when the tool could not be started. */
  errorMessage?: string;
}

export const DEFAULT_MAX_OUTPUT_BYTES = 8 * 1024 * 1024;

/** Tools still running, so that a worker that exits can take them with it. */
const activeTools = new Set<ChildProcess>();

/** Kills every tool still running (the worker is exiting); returns how many there were. */
export function killActiveTools(): number {
  const count = activeTools.size;
  for (const child of activeTools) killTree(child);
  activeTools.clear();
  return count;
}

/** Kills the tool and everything it started: on POSIX it leads its own process group. */
export function killTree(child: ChildProcess): void {
  if (child.pid === undefined) return;
  try {
    if (process.platform !== 'win32') process.kill(-child.pid, 'SIGKILL');
    else child.kill('SIGKILL');
  } catch {
    try {
      child.kill('SIGKILL');
    } catch {
      // Already gone.
    }
  }
}

class OutputBuffer {
  private readonly chunks: Buffer[] = [];
  private size = 0;
  truncated = false;

  constructor(private readonly limit: number) {}

  /** Returns false once the limit is passed. */
  add(chunk: Buffer): boolean {
    const room = this.limit - this.size;
    if (chunk.length > room) {
      if (room > 0) this.chunks.push(chunk.subarray(0, room));
      this.size = this.limit;
      this.truncated = true;
      return false;
    }
    this.chunks.push(chunk);
    this.size += chunk.length;
    return true;
  }

  text(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }
}

function spawnTool(command: string, args: readonly string[], env: NodeJS.ProcessEnv | undefined): ChildProcess {
  return spawn(command, [...args], {
    shell: false,
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group, so that killTree also reaches what the tool started.
    detached: process.platform !== 'win32',
    windowsHide: true,
    env: env ?? process.env,
  });
}

/** Follows a started tool to its end: its exit, its timeout, its caller's cancel, or too much output. */
function watchTool(child: ChildProcess, options: RunToolOptions, settle: (fields: Partial<ToolRunResult>, output: [OutputBuffer, OutputBuffer]) => void): void {
  const limit = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
  const output: [OutputBuffer, OutputBuffer] = [new OutputBuffer(limit), new OutputBuffer(limit)];
  let settled = false;
  const finish = (fields: Partial<ToolRunResult>): void => {
    if (settled) return;
    settled = true;
    activeTools.delete(child);
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onAbort);
    settle(fields, output);
  };
  const abandon = (errorCode: string): void => {
    if (settled) return;
    killTree(child);
    // Do not wait for 'close': a process in D-state keeps its pipes open.
    child.stdout?.destroy();
    child.stderr?.destroy();
    child.unref();
    finish({ errorCode, timeoutMs: errorCode === 'TIMEOUT' ? options.timeoutMs : undefined });
  };
  const onAbort = (): void => abandon('CANCELLED');
  const timer = setTimeout(() => abandon('TIMEOUT'), options.timeoutMs);
  if (options.signal?.aborted) onAbort();
  options.signal?.addEventListener('abort', onAbort, { once: true });
  child.stdout?.on('data', (chunk: Buffer) => output[0].add(chunk) || killTree(child));
  child.stderr?.on('data', (chunk: Buffer) => output[1].add(chunk) || killTree(child));
  child.on('error', (err: NodeJS.ErrnoException) => finish({ errorCode: err.code ?? 'ERROR', errorMessage: err.message }));
  child.on('close', (code, signal) => finish({ exitCode: code, signal }));
}

/** Runs `command args` and always resolves: a missing tool, a crash or a hang is a result, not an exception. */
export function runTool(command: string, args: readonly string[], options: RunToolOptions): Promise<ToolRunResult> {
  const started = Date.now();
  const result = (fields: Partial<ToolRunResult>, output?: [OutputBuffer, OutputBuffer]): ToolRunResult => ({
    command, args, exitCode: null, signal: null,
    stdout: output?.[0].text() ?? '', stderr: output?.[1].text() ?? '',
    truncated: output !== undefined && (output[0].truncated || output[1].truncated),
    elapsedMs: Date.now() - started,
    ...fields,
  });
  let child: ChildProcess;
  try {
    child = spawnTool(command, args, options.env);
  } catch (err) {
    // Invalid arguments (an empty command, a NUL byte) throw instead of emitting 'error'.
    return Promise.resolve(result({ errorCode: 'ERROR', errorMessage: err instanceof Error ? err.message : String(err) }));
  }
  activeTools.add(child);
  return new Promise((resolve) => watchTool(child, options, (fields, output) => resolve(result(fields, output))));
}
