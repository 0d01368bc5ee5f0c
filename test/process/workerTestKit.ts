// Shared by the worker, probe and `detect` tests: fake tool folders on PATH, a forked
// dist/worker.js with a plain vscode-jsonrpc client, and the real Debian PyTorch.
import * as assert from 'assert';
import { fork, spawnSync, type ChildProcess } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { createMessageConnection, IPCMessageReader, IPCMessageWriter, type MessageConnection } from 'vscode-jsonrpc/node';
import {
  MemorySamplesNotification,
  WorkerLogNotification,
  WorkerProblemNotification,
  type MemorySamples,
  type WorkerLog,
  type WorkerProblem,
} from '../../src/protocol/worker';

export const ROOT = path.resolve(__dirname, '..', '..');
export const FAKE_BIN = path.join(ROOT, 'test', 'fixtures', 'bin');
export const FAKE_TORCH = path.join(ROOT, 'test', 'fixtures', 'torch');
export const WORKER_JS = path.join(ROOT, 'dist', 'worker.js');
export const CLI_JS = path.join(ROOT, 'dist', 'cli.js');
/** Debian's python3-torch; `python3` on PATH may be another interpreter without torch. */
export const DEBIAN_PYTHON = '/usr/bin/python3';
export const TORCH_INSTALL_COMMAND = 'apt-get update && apt-get install -y python3-torch python3-numpy libopenblas0-pthread';

const REAL_TOOLS = ['nvidia-smi', 'rocm-smi', 'amd-smi', 'system_profiler'];

/**
 * PATH with the scenario's fakes first and every folder that holds a real GPU tool left
 * out, so the tests say the same on a machine that has a GPU.
 */
export function hermeticPath(scenario?: string): string {
  const dirs = (process.env.PATH ?? '').split(path.delimiter).filter((dir) => dir !== '' && !REAL_TOOLS.some((tool) => fs.existsSync(path.join(dir, tool))));
  return [...(scenario ? [path.join(FAKE_BIN, scenario)] : []), ...dirs].join(path.delimiter);
}

export function tempDir(prefix: string): string {
  return fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
}

/** The environment a worker or CLI under test gets: a scenario's fakes, a run log, no real sysfs. */
export function scenarioEnv(scenario: string | undefined, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const inherited: NodeJS.ProcessEnv = { ...process.env };
  delete inherited.CUDA_VISIBLE_DEVICES;
  delete inherited.PYTHONPATH;
  return { ...inherited, PATH: hermeticPath(scenario), DEVICE_DOCTOR_SYSFS_DRM: path.join(os.tmpdir(), 'dd-no-sysfs'), ...extra };
}

/** Lines the fakes appended to DD_FAKE_LOG: "<tool> <args>". */
export function fakeRuns(logFile: string, tool = 'nvidia-smi'): string[] {
  if (!fs.existsSync(logFile)) return [];
  return fs.readFileSync(logFile, 'utf8').split('\n').filter((line) => line.startsWith(`${tool} `));
}

/**
 * An interpreter that appends the script it was started with to a log, then becomes Debian's
 * Python: how many times torch was imported, and by which script.
 */
export function countingPython(dir: string): { python: string; starts: () => string[] } {
  const log = path.join(dir, 'starts.log');
  const python = path.join(dir, 'python3');
  fs.writeFileSync(python, `#!/bin/sh\necho "$1" >> '${log}'\nexec ${DEBIAN_PYTHON} "$@"\n`, { mode: 0o755 });
  return { python, starts: () => (fs.existsSync(log) ? fs.readFileSync(log, 'utf8').trim().split('\n').filter(Boolean) : []) };
}

let built = false;

/** Builds dist/ once per test run (worker.js, cli.js, probe.py). */
export function buildDist(): void {
  if (built && fs.existsSync(WORKER_JS)) return;
  const result = spawnSync(process.execPath, [path.join(ROOT, 'esbuild.js')], { cwd: ROOT, encoding: 'utf8' });
  assert.strictEqual(result.status, 0, `node esbuild.js failed:\n${result.stderr}`);
  built = true;
}

const torchVersions = new Map<string, string>();

/**
 * Fails (never skips) when Debian's PyTorch is missing, with the command that installs
 * it; returns its version. Importing torch takes seconds here, so it is asked once.
 */
export function requireDebianTorch(python = DEBIAN_PYTHON): string {
  const known = torchVersions.get(python);
  if (known !== undefined) return known;
  const result = spawnSync(python, ['-c', 'import torch; print(torch.__version__)'], { encoding: 'utf8', timeout: 60_000 });
  if (result.status !== 0) {
    const why = (result.stderr || String(result.error)).trim().split('\n').pop();
    assert.fail(`these tests need Debian's PyTorch at ${python} (import torch failed: ${why}).\nInstall it with:\n  ${TORCH_INSTALL_COMMAND}`);
  }
  const version = result.stdout.trim();
  torchVersions.set(python, version);
  return version;
}

export async function waitFor<T>(what: string, check: () => T | undefined | false, timeoutMs = 5_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** A forked dist/worker.js and a plain vscode-jsonrpc client, recording what the worker says. */
export class WorkerUnderTest {
  readonly child: ChildProcess;
  readonly connection: MessageConnection;
  readonly samples: MemorySamples[] = [];
  readonly problems: WorkerProblem[] = [];
  readonly logs: WorkerLog[] = [];
  stdout = '';
  stderr = '';
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  constructor(env: NodeJS.ProcessEnv) {
    this.child = fork(WORKER_JS, [], { env, stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
    this.child.stdout?.on('data', (chunk: Buffer) => (this.stdout += chunk.toString()));
    this.child.stderr?.on('data', (chunk: Buffer) => (this.stderr += chunk.toString()));
    this.exited = new Promise((resolve) => this.child.on('exit', (code, signal) => resolve({ code, signal })));
    this.connection = createMessageConnection(new IPCMessageReader(this.child), new IPCMessageWriter(this.child));
    this.connection.onNotification(MemorySamplesNotification, (s) => {
      this.samples.push(s);
    });
    this.connection.onNotification(WorkerProblemNotification, (p) => {
      this.problems.push(p);
    });
    this.connection.onNotification(WorkerLogNotification, (l) => {
      this.logs.push(l);
    });
    // What a simple client does when the process goes away: fail whatever is pending.
    this.connection.onClose(() => this.connection.dispose());
    this.connection.listen();
  }

  async stop(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      this.child.disconnect();
      const timer = setTimeout(() => this.child.kill('SIGKILL'), 3_000);
      await this.exited;
      clearTimeout(timer);
    }
    this.connection.dispose();
  }
}
