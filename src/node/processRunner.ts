// The one way the product starts a child process (the worker fork aside, see forkProcess.ts):
// probes, bench.py, the streaming nvidia-smi and npm all come through startProcess. No shell
// (an argv array: nothing a workspace names is ever interpreted), the child leads its own
// process group so that SIGKILL of the group also reaches what it started (npm's install
// scripts, a Python's subprocesses), output read as lines with a cap on a runaway line, and
// the end of stderr kept for the message when it fails. Each group is told to the listeners of
// watchProcessGroups, so that a parent of the worker can kill them should the worker be killed.
// A process stuck in uninterruptible sleep (a hung nvidia-smi) may ignore even SIGKILL for a
// while and keep its pipes open: abandon() and stop() do not wait for it to go away.
// What runs is never found by spawn itself: a bare name goes through findExecutable, which skips
// empty and relative PATH entries (they mean the current folder, the user's project), an absolute
// path runs as it is, and a relative path is refused (resolveCommand).
import { spawn, type ChildProcess } from 'child_process';
import * as path from 'path';
import { StringDecoder } from 'string_decoder';
import type { ToolRun } from '../core/devices/toolRun';
import { findExecutable } from './pathLookup';
import { PARENT_PID_VARIABLE, tellGroupListeners } from './processGroups';
import { ByteCapture, LineSplitter, TextTail } from './processOutput';

export interface StartOptions {
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Keeps stdout and stderr, each up to this many bytes; past it the process is killed (it would print without end). */
  captureBytes?: number;
  /** Output as it arrives, for a caller that frames it itself. */
  onStdout?(text: string): void;
  onStderr?(text: string): void;
  /** Whole non-blank lines, without the newline; the last one at the end even without a newline. */
  onStdoutLine?(line: string): void;
  onStderrLine?(line: string): void;
  /** A longer line is dropped and onLineTooLong called (default 1 MiB). */
  maxLineChars?: number;
  onLineTooLong?(): void;
  /** How much of the end of stderr stderrTail keeps (default 16 KiB). */
  stderrTailChars?: number;
  /** A set that holds the process while it runs, so that an exiting parent can kill it. */
  track?: ProcessSet;
  /** Open a pipe to its stdin (writeInput, endInput); without it stdin is /dev/null. */
  stdin?: boolean;
}

export interface ProcessEnd {
  exitCode: number | null;
  /** Set when it died of a signal (a crash, or our SIGKILL). */
  signal: NodeJS.Signals | null;
  /** Only when it could not be started (ENOENT, EACCES; ERELATIVE for a relative path; ERROR for arguments spawn rejects). */
  errorCode?: string;
  /** The operating system's message when it could not be started. */
  errorMessage?: string;
}

export interface RunningProcess {
  readonly pid: number | undefined;
  /** Settles once the process has exited and its output is read, or could not be started. */
  readonly ended: Promise<ProcessEnd>;
  readonly stderrTail: string;
  /** What captureBytes kept. */
  output(): { stdout: string; stderr: string; truncated: boolean };
  /** Writes to its stdin (started with `stdin: true`); false when there is none or it has closed. */
  writeInput(text: string): boolean;
  /** Closes its stdin (EOF), when it has one. */
  endInput(): void;
  /** SIGKILL of the whole group; output is still read until the pipes close. */
  kill(): void;
  /** kill(), stop reading and stop waiting: for a process that may never close its pipes. */
  abandon(): void;
  /** kill() and stop reading, then settle on the exit, or after graceMs if it will not die. */
  stop(graceMs: number): Promise<ProcessEnd>;
}

export const DEFAULT_MAX_LINE_CHARS = 1024 * 1024;
const DEFAULT_STDERR_TAIL_CHARS = 16 * 1024;

/** Processes that must not outlive their parent: killAll() when it exits. */
export class ProcessSet {
  private readonly members = new Set<RunningProcess>();

  add(process: RunningProcess): void {
    this.members.add(process);
  }

  delete(process: RunningProcess): void {
    this.members.delete(process);
  }

  /** SIGKILLs every process still running; returns how many there were. */
  killAll(): number {
    const count = this.members.size;
    for (const member of this.members) member.kill();
    this.members.clear();
    return count;
  }
}

/**
 * The children that must not outlive the worker or the CLI: every runTool tool and every line
 * process (bench.py) while it runs. The long-lived nvidia-smi stream and npm are stopped by
 * their owners instead.
 */
export const OWNED_CHILDREN = new ProcessSet();

/** Kills every owned child still running (the worker or CLI is exiting); returns how many there were. */
export function killChildren(): number {
  return OWNED_CHILDREN.killAll();
}

/** Calls onAbort once when the signal aborts (at once if it already has); returns the unsubscribe. */
export function whenAborted(signal: AbortSignal | undefined, onAbort: () => void): () => void {
  if (!signal) return () => undefined;
  if (signal.aborted) {
    onAbort();
    return () => undefined;
  }
  signal.addEventListener('abort', onAbort, { once: true });
  return () => signal.removeEventListener('abort', onAbort);
}

export type ResolvedCommand = { file: string } | { errorCode: 'ENOENT' | 'ERELATIVE'; errorMessage: string };

/** The PATH a child with `env` gets searched by, as spawn would pick it (Node's documented defaults). */
function searchPath(env: NodeJS.ProcessEnv, platform: NodeJS.Platform): string {
  const key = Object.keys(env).find((name) => (platform === 'win32' ? name.toUpperCase() === 'PATH' : name === 'PATH'));
  if (key !== undefined) return env[key] ?? '';
  if (platform !== 'win32') return '/usr/bin:/bin';
  const own = Object.keys(process.env).find((name) => name.toUpperCase() === 'PATH');
  return own === undefined ? '' : process.env[own] ?? '';
}

function pathextOf(env: NodeJS.ProcessEnv): string | undefined {
  const key = Object.keys(env).find((name) => name.toUpperCase() === 'PATHEXT');
  return key === undefined ? undefined : env[key];
}

/**
 * What startProcess runs for `command`: an absolute path as it is; a bare name (nvidia-smi,
 * python3, npm) the first executable of that name in an absolute PATH entry of `env`, or ENOENT
 * (not installed) when there is none; a relative path (./nvidia-smi, .venv/bin/python) is
 * refused, since it would run whatever the current folder holds.
 */
export function resolveCommand(command: string, env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): ResolvedCommand {
  // spawn itself rejects these ("ERROR"), with its own message.
  if (command === '' || command.includes('\0')) return { file: command };
  const paths = platform === 'win32' ? path.win32 : path.posix;
  if (paths.isAbsolute(command)) return { file: command };
  if (command.includes('/') || (platform === 'win32' && command.includes('\\'))) {
    return { errorCode: 'ERELATIVE', errorMessage: `refusing to run the relative path ${command}: it would run whatever the current folder holds; give an absolute path` };
  }
  const found = findExecutable(command, { PATH: searchPath(env, platform), PATHEXT: pathextOf(env) }, platform);
  return found ? { file: found } : { errorCode: 'ENOENT', errorMessage: `${command} was not found on PATH (empty and relative PATH entries are skipped)` };
}

/** Starts `command args`; never throws: a command that cannot start is an `ended` with errorCode. */
export function startProcess(command: string, args: readonly string[], options: StartOptions = {}): RunningProcess {
  const env = options.env ?? process.env;
  const resolved = resolveCommand(command, env);
  if ('errorCode' in resolved) return new NeverStarted(resolved.errorCode, resolved.errorMessage);
  let child: ChildProcess;
  const detached = process.platform !== 'win32';
  try {
    child = spawn(resolved.file, [...args], {
      shell: false,
      stdio: [options.stdin ? 'pipe' : 'ignore', 'pipe', 'pipe'],
      detached,
      windowsHide: true,
      cwd: options.cwd,
      env: { ...env, [PARENT_PID_VARIABLE]: String(process.pid) },
    });
  } catch (err) {
    // Invalid arguments (an empty command, a NUL byte) throw instead of emitting 'error'.
    return new NeverStarted('ERROR', err instanceof Error ? err.message : String(err));
  }
  const pgid = child.pid;
  if (detached && pgid !== undefined) {
    tellGroupListeners('started', pgid);
    child.once('close', () => tellGroupListeners('ended', pgid));
  }
  return new Started(child, options);
}

class Started implements RunningProcess {
  readonly ended: Promise<ProcessEnd>;
  private readonly tail: TextTail;
  private readonly captures: [ByteCapture, ByteCapture] | undefined;
  private readonly splitters: LineSplitter[] = [];

  constructor(private readonly child: ChildProcess, private readonly options: StartOptions) {
    this.tail = new TextTail(options.stderrTailChars ?? DEFAULT_STDERR_TAIL_CHARS);
    const limit = options.captureBytes;
    this.captures = limit === undefined ? undefined : [new ByteCapture(limit), new ByteCapture(limit)];
    this.read(child.stdout, 0, options.onStdout, options.onStdoutLine);
    this.read(child.stderr, 1, (text) => {
      this.tail.add(text);
      options.onStderr?.(text);
    }, options.onStderrLine);
    // A child that exits before reading its input closes the pipe: EPIPE is not our error.
    child.stdin?.on('error', () => undefined);
    options.track?.add(this);
    this.ended = new Promise((resolve) => {
      let settled = false;
      const settle = (end: ProcessEnd): void => {
        if (settled) return;
        settled = true;
        options.track?.delete(this);
        resolve(end);
      };
      child.on('error', (err: NodeJS.ErrnoException) => settle({ exitCode: null, signal: null, errorCode: err.code ?? 'ERROR', errorMessage: err.message }));
      child.on('close', (exitCode, signal) => settle({ exitCode, signal }));
    });
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get stderrTail(): string {
    return this.tail.text;
  }

  writeInput(text: string): boolean {
    const input = this.child.stdin;
    if (!input || input.destroyed || input.writableEnded) return false;
    input.write(text);
    return true;
  }

  endInput(): void {
    const input = this.child.stdin;
    if (input && !input.destroyed && !input.writableEnded) input.end();
  }

  output(): { stdout: string; stderr: string; truncated: boolean } {
    const [out, err] = this.captures ?? [];
    return { stdout: out?.text() ?? '', stderr: err?.text() ?? '', truncated: (out?.truncated ?? false) || (err?.truncated ?? false) };
  }

  kill(): void {
    const { child } = this;
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

  abandon(): void {
    this.kill();
    this.stopReading();
    this.child.unref();
    this.options.track?.delete(this);
  }

  stop(graceMs: number): Promise<ProcessEnd> {
    const { child } = this;
    this.kill();
    this.stopReading();
    return new Promise<ProcessEnd>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve({ exitCode: child.exitCode, signal: child.signalCode });
      const timer = setTimeout(() => resolve({ exitCode: null, signal: 'SIGKILL' }), graceMs);
      child.once('exit', (exitCode, signal) => {
        clearTimeout(timer);
        resolve({ exitCode, signal });
      });
    }).finally(() => this.options.track?.delete(this));
  }

  /** Do not wait for 'close' to stop reading: a process in D-state keeps its pipes open. */
  private stopReading(): void {
    for (const splitter of this.splitters) splitter.close();
    this.child.stdout?.destroy();
    this.child.stderr?.destroy();
  }

  private read(stream: NodeJS.ReadableStream | null, index: 0 | 1, onText?: (text: string) => void, onLine?: (line: string) => void): void {
    if (!stream) return;
    const decoder = new StringDecoder('utf8');
    const splitter = onLine && new LineSplitter(onLine, this.options.maxLineChars ?? DEFAULT_MAX_LINE_CHARS, this.options.onLineTooLong);
    if (splitter) this.splitters.push(splitter);
    stream.on('data', (chunk: Buffer) => {
      if (this.captures && !this.captures[index].add(chunk)) this.kill();
      const text = decoder.write(chunk);
      onText?.(text);
      splitter?.push(text);
    });
    stream.on('end', () => {
      const rest = decoder.end();
      if (rest) {
        onText?.(rest);
        splitter?.push(rest);
      }
      splitter?.end();
    });
  }
}

/** Not started (not found, refused, or spawn() threw): there is no process, only the reason. */
class NeverStarted implements RunningProcess {
  readonly pid = undefined;
  readonly stderrTail = '';
  readonly ended: Promise<ProcessEnd>;

  constructor(errorCode: string, message: string) {
    this.ended = Promise.resolve({ exitCode: null, signal: null, errorCode, errorMessage: message });
  }

  output(): { stdout: string; stderr: string; truncated: boolean } {
    return { stdout: '', stderr: '', truncated: false };
  }

  writeInput(): boolean {
    return false;
  }

  endInput(): void {}

  kill(): void {}

  abandon(): void {}

  stop(): Promise<ProcessEnd> {
    return this.ended;
  }
}

// ---- Run to completion: the probes' tools ----

export interface RunToolOptions {
  timeoutMs: number;
  /** Per stream; past it the tool is killed, its output marked truncated, and the run ends with errorCode OUTPUT_TOO_LARGE. */
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
}

export const DEFAULT_MAX_OUTPUT_BYTES = 8 * 1024 * 1024;


/**
 * Runs `command args` and always resolves: a missing tool, a crash or a hang is a result, not
 * an exception. The result is settled at the deadline rather than when the tool goes away.
 */
export function runTool(command: string, args: readonly string[], options: RunToolOptions): Promise<ToolRunResult> {
  const started = Date.now();
  const limit = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
  const tool = startProcess(command, args, { env: options.env, captureBytes: limit, track: OWNED_CHILDREN });
  return new Promise((resolve) => {
    let settled = false;
    let unsubscribe = (): void => undefined;
    const finish = (fields: Partial<ToolRunResult>): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      unsubscribe();
      const output = tool.output();
      // Killed for printing too much (or it exited just then): its output is cut, never a success.
      const flood = output.truncated && fields.errorCode === undefined ? { errorCode: 'OUTPUT_TOO_LARGE', outputLimitBytes: limit } : {};
      resolve({ command, args, exitCode: null, signal: null, ...output, elapsedMs: Date.now() - started, ...fields, ...flood });
    };
    const abandon = (errorCode: string): void => {
      if (settled) return;
      tool.abandon();
      finish({ errorCode, timeoutMs: errorCode === 'TIMEOUT' ? options.timeoutMs : undefined });
    };
    const timer = setTimeout(() => abandon('TIMEOUT'), options.timeoutMs);
    unsubscribe = whenAborted(options.signal, () => abandon('CANCELLED'));
    void tool.ended.then(finish);
  });
}
