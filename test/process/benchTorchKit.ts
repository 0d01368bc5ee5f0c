// Shared by the torch benchmark tests: bench.py run directly, the real Debian PyTorch, and
// `sitecustomize.py` shims that make it answer like other builds. A shim is imported by
// Python at start-up when its folder is first on PYTHONPATH; it patches the real torch, so
// bench.py runs real products while the device, the memory or a failure are simulated.
import * as assert from 'assert';
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { DEBIAN_PYTHON, ROOT, tempDir } from './workerTestKit';

export const BENCH_PY = path.join(ROOT, 'src', 'worker', 'python', 'bench.py');

/** One CUDA device whose tensors live in host memory: bench.py's cuda path (sync, transfers) on a CPU-only machine. */
const FAKE_CUDA = `
import torch

def _on_cpu(factory):
    def make(*args, **kwargs):
        device = kwargs.get("device")
        if device is not None and str(device).startswith("cuda"):
            kwargs["device"] = "cpu"
        return factory(*args, **kwargs)
    return make

for _name in ("rand", "empty", "ones", "zeros"):
    setattr(torch, _name, _on_cpu(getattr(torch, _name)))
torch.Tensor.pin_memory = lambda self: self.clone()
torch.version.cuda = "12.4"
torch.cuda.is_available = lambda: True
torch.cuda.device_count = lambda: 1
torch.cuda.synchronize = lambda device=None: None
torch.cuda.get_device_name = lambda device=None: "Fake CUDA GPU (host memory)"
torch.cuda.mem_get_info = lambda device=None: (8 * 1024 ** 3, 16 * 1024 ** 3)
torch.cuda.empty_cache = lambda: None
torch.cuda.memory_allocated = lambda device=None: 0
torch.cuda.memory_reserved = lambda device=None: 0
`;

/**
 * The fake CUDA device, with every synchronize, clock read and product recorded in order and
 * printed to stderr at exit as one \`EVENTS [...]\` line: a test can then prove that each timed
 * product sits between two synchronizations and two clock reads (the fake's synchronize does
 * nothing, so without the record a bench.py with no sync() at all would pass).
 */
const FAKE_CUDA_RECORDED = FAKE_CUDA + `
import atexit, json, sys, time
_events = []
torch.cuda.synchronize = lambda device=None: _events.append("sync")
_matmul = torch.matmul
def _recorded_matmul(*args, **kwargs):
    _events.append("matmul")
    return _matmul(*args, **kwargs)
torch.matmul = _recorded_matmul
# Whether TF32 was allowed at each product, printed as one TF32 [...] line: tf32 jobs set it, and restore it.
_tf32 = []
_matmul_checked = torch.matmul
def _tf32_recorded_matmul(*args, **kwargs):
    _tf32.append(bool(torch.backends.cuda.matmul.allow_tf32))
    return _matmul_checked(*args, **kwargs)
torch.matmul = _tf32_recorded_matmul
atexit.register(lambda: sys.stderr.write("TF32 " + json.dumps(_tf32) + "\\n"))
_copy = torch.Tensor.copy_
def _recorded_copy(self, *args, **kwargs):
    _events.append("copy")
    return _copy(self, *args, **kwargs)
torch.Tensor.copy_ = _recorded_copy
_clock = time.perf_counter
def _recorded_clock():
    _events.append("clock")
    return _clock()
time.perf_counter = _recorded_clock
atexit.register(lambda: sys.stderr.write("EVENTS " + json.dumps(_events) + "\\n"))
`;

/** Whether TF32 was allowed at each product of a 'fake-cuda-recorded' run, in order. */
export function recordedTf32(stderr: string): boolean[] {
  const line = stderr.split('\n').find((l) => l.startsWith('TF32 '));
  assert.ok(line, `no TF32 line on stderr:\n${stderr}`);
  return JSON.parse(line.slice('TF32 '.length)) as boolean[];
}

/** The events a 'fake-cuda-recorded' run printed (see FAKE_CUDA_RECORDED). */
export function recordedEvents(stderr: string): string[] {
  const line = stderr.split('\n').find((l) => l.startsWith('EVENTS '));
  assert.ok(line, `no EVENTS line on stderr:\n${stderr}`);
  return JSON.parse(line.slice('EVENTS '.length)) as string[];
}

/**
 * Several CUDA devices whose tensors live in host memory, each product on device i slowed by
 * DD_FAKE_CUDA_DELAYS_MS's i-th value (e.g. "20,20,20,40": four devices, the last at half speed).
 * The sleep dominates a small product, and the benchmark's clock counts the delay, not the
 * sleep's late wake-up, so the speeds keep the delays' ratio on a busy machine. UUIDs and bus ids are nvidia-four-a6000's, so detect names
 * nvidia-smi's rows cuda:0 … cuda:3 and the run watcher's clock samples reach the right device.
 */
const FAKE_CUDA_DEVICES = `
import os, time
from types import SimpleNamespace
import torch

_DELAYS = [float(v) / 1000 for v in os.environ.get("DD_FAKE_CUDA_DELAYS_MS", "0,0").split(",")]

def _index(device):
    if isinstance(device, int):
        return device
    if isinstance(getattr(device, "index", None), int):
        return device.index
    text = str(device)
    return int(text.split(":", 1)[1]) if ":" in text else 0

def _on_cpu(factory):
    def make(*args, **kwargs):
        device = kwargs.get("device")
        if device is None or not str(device).startswith("cuda"):
            return factory(*args, **kwargs)
        kwargs["device"] = "cpu"
        tensor = factory(*args, **kwargs)
        tensor._dd_cuda = _index(device)
        return tensor
    return make

for _name in ("rand", "empty", "ones", "zeros"):
    setattr(torch, _name, _on_cpu(getattr(torch, _name)))

# The benchmark's clock counts each slowed product's delay exactly, not how long the sleep took:
# on a busy machine a sleep's wake-up comes late by milliseconds, which would make any device
# "slow" by chance. The sleep stays so that each run lasts as long as its delays in wall time,
# where nvidia-smi's samples of that run are taken.
_real_clock = time.perf_counter
_clock_skew = [0.0]
time.perf_counter = lambda: _real_clock() + _clock_skew[0]

_matmul = torch.matmul
def _slowed_matmul(a, b, out=None):
    # Only the timed products (written into out=) are slowed; the correctness check is not.
    device = getattr(out, "_dd_cuda", None)
    if device is not None:
        before = _real_clock()
        time.sleep(_DELAYS[device])
        _clock_skew[0] += _DELAYS[device] - (_real_clock() - before)
    return _matmul(a, b) if out is None else _matmul(a, b, out=out)
torch.matmul = _slowed_matmul

def _props(i):
    return SimpleNamespace(name="NVIDIA RTX A6000", major=8, minor=6, total_memory=51527024640,
                           uuid="11111111-2222-3333-4444-55555555555%d" % i,
                           pci_domain_id=0, pci_bus_id=(0x1A, 0x1B, 0x3D, 0x3E)[i], pci_device_id=0)

torch.Tensor.pin_memory = lambda self: self.clone()
torch.version.cuda = "12.4"
torch.cuda.is_available = lambda: True
torch.cuda.device_count = lambda: len(_DELAYS)
torch.cuda.get_device_properties = lambda device=None: _props(_index(device))
torch.cuda.synchronize = lambda device=None: None
torch.cuda.get_device_name = lambda device=None: "NVIDIA RTX A6000"
torch.cuda.mem_get_info = lambda device=None: (48 * 1024 ** 3, 51527024640)
torch.cuda.empty_cache = lambda: None
torch.cuda.memory_allocated = lambda device=None: 0
torch.cuda.memory_reserved = lambda device=None: 0
`;

/** Products of n >= 128 fail the way CUDA runs out of memory. */
const OUT_OF_MEMORY = `
import torch
_matmul = torch.matmul
def matmul(a, b, out=None):
    if a.shape[0] >= 128:
        raise RuntimeError("CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 15.74 GiB total capacity)")
    return _matmul(a, b, out=out)
torch.matmul = matmul
`;

/** Products of n >= 128 raise an unexpected error. */
const MATMUL_RAISES = `
import torch
_matmul = torch.matmul
def matmul(a, b, out=None):
    if a.shape[0] >= 128:
        raise ValueError("simulated failure inside matmul")
    return _matmul(a, b, out=out)
torch.matmul = matmul
`;

/** `import torch` fails as in an environment without it. */
const NO_TORCH = `raise ImportError("No module named 'torch'")\n`;

export type Shim = 'fake-cuda' | 'fake-cuda-devices' | 'fake-cuda-recorded' | 'fake-cuda-unpinned' | 'out-of-memory' | 'matmul-raises' | 'no-torch';

/** A folder to put first on PYTHONPATH for this shim (made once per test run). */
export function shimDir(shim: Shim): string {
  const dir = path.join(shimRoot(), shim);
  if (fs.existsSync(dir)) return dir;
  fs.mkdirSync(dir, { recursive: true });
  if (shim === 'no-torch') {
    fs.mkdirSync(path.join(dir, 'torch'));
    fs.writeFileSync(path.join(dir, 'torch', '__init__.py'), NO_TORCH);
  } else {
    const source = {
      'fake-cuda': FAKE_CUDA,
      'fake-cuda-devices': FAKE_CUDA_DEVICES,
      'fake-cuda-recorded': FAKE_CUDA_RECORDED,
      // As a build whose host memory cannot be pinned: Debian's CPU torch refuses pin_memory().
      'fake-cuda-unpinned': FAKE_CUDA.replace('torch.Tensor.pin_memory = lambda self: self.clone()\n', ''),
      'out-of-memory': OUT_OF_MEMORY,
      'matmul-raises': MATMUL_RAISES,
    }[shim];
    fs.writeFileSync(path.join(dir, 'sitecustomize.py'), source);
  }
  return dir;
}

let root: string | null = null;
function shimRoot(): string {
  root ??= tempDir('dd-bench-shims-');
  return root;
}

/** The environment for bench.py: no inherited PYTHONPATH or CUDA_VISIBLE_DEVICES, the shim's folder when given. */
export function benchEnv(shim?: Shim): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, PYTHONDONTWRITEBYTECODE: '1' };
  delete env.CUDA_VISIBLE_DEVICES;
  delete env.PYTHONPATH;
  if (shim) env.PYTHONPATH = shimDir(shim);
  return env;
}

export interface DirectRun {
  status: number | null;
  stdout: string;
  stderr: string;
  lines: Array<Record<string, any>>;
}

/** bench.py run to its end; every stdout line must be JSON. */
export function runBenchPy(args: unknown, options: { python?: string; shim?: Shim; rawArg?: string } = {}): DirectRun {
  const arg = options.rawArg ?? JSON.stringify(args);
  const result = spawnSync(options.python ?? DEBIAN_PYTHON, [BENCH_PY, arg], { env: benchEnv(options.shim), encoding: 'utf8', timeout: 120_000 });
  const lines = result.stdout.split('\n').filter((l) => l !== '').map((l) => {
    try {
      return JSON.parse(l) as Record<string, any>;
    } catch {
      assert.fail(`bench.py printed a line that is not JSON: ${l}\nstderr:\n${result.stderr}`);
    }
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr, lines };
}

/** Processes (zombies too) whose command line contains every one of `parts` (Linux /proc). */
export function processesMatching(...parts: string[]): number[] {
  const pids: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let cmdline: string;
    try {
      // A zombie (dead, not yet reaped) still counts: the engine settles only after the exit was reaped.
      cmdline = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8');
    } catch {
      continue;
    }
    if (parts.every((p) => cmdline.includes(p))) pids.push(Number(entry));
  }
  return pids;
}

/** Removes the shim folders (an after() hook); the next shimDir() makes them again. */
export function removeShims(): void {
  if (root) fs.rmSync(root, { recursive: true, force: true });
  root = null;
}

/**
 * Whether `pid` still runs: a zombie has finished (it only waits to be reaped, and a process
 * whose parent exited at once — the CLI after Ctrl-C — is reaped by init when init gets to it).
 */
export function isRunning(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

/** The parent pid of a process, from /proc (undefined once it is gone). */
export function parentOf(pid: number): number | undefined {
  try {
    return Number(/^PPid:\s+(\d+)/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
  } catch {
    return undefined;
  }
}
