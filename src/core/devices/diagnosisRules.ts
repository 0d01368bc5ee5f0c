// One function per row of PROBES.md's diagnosis table. Each answers the problem it
// finds, or null. Messages follow the table; hints say what to do next.
import type { DiagnosisFacts } from './diagnosisFacts';
import type { Problem, TorchStatus } from './report';
import { IMPORT_TIMEOUT, INTERPRETER_NOT_FOUND, NO_VALID_JSON } from './torchProbe';
import { compareVersions, majorVersion } from './versions';
import { cudaPipCommand, oldestWheelCuda, wheelIndexForDriver } from '../interpreters/cudaWheels';
import { BOTH_WAYS } from '../interpreters/choiceWays';

type TorchOk = Exclude<TorchStatus, { error: string }>;
export type DiagnosisRule = (facts: DiagnosisFacts) => Problem | null;

function torchOk(facts: DiagnosisFacts): TorchOk | null {
  return facts.torch && !('error' in facts.torch) ? facts.torch : null;
}

function problem(source: Problem['source'], code: string, message: string, hint: string): Problem {
  return { source, code, message, hint };
}

const NOT_INSTALLED = /No module named ['"]?torch\b|ModuleNotFoundError/;
const PROBE_FAILURES = [NO_VALID_JSON, 'the PyTorch probe '];

/** torch not importable: `torch-missing`; a missing interpreter, a hung import or a failed probe is said as such. */
export const torchMissing: DiagnosisRule = (facts) => {
  const { torch } = facts;
  if (!torch || !('error' in torch)) return null;
  const { interpreter, error } = torch;
  if (error.startsWith(INTERPRETER_NOT_FOUND)) {
    return problem('interpreter', 'interpreter-not-found', error, 'pick another interpreter (Python: Select Interpreter) or set deviceDoctor.pythonPath');
  }
  // A hang is not a missing torch: installing it again would not help.
  if (error.startsWith(IMPORT_TIMEOUT)) {
    return problem(
      'torch',
      'torch-import-timeout',
      error,
      `run \`${interpreter} -c "import torch"\` in a terminal to see where it hangs: usually a slow or unreachable network file system (torch on NFS or a network home), or a stuck CUDA initialisation (a wedged driver: check \`dmesg\`); Device Doctor will try again later`,
    );
  }
  if (PROBE_FAILURES.some((prefix) => error.startsWith(prefix))) {
    return problem('torch', 'torch-probe-failed', error, `run \`${interpreter} -c "import torch"\` in a terminal to see what goes wrong`);
  }
  const message = NOT_INSTALLED.test(error)
    ? `PyTorch is not installed in ${interpreter}`
    : `PyTorch cannot be imported in ${interpreter}: ${error}`;
  return problem('torch', 'torch-missing', message, missingTorchHint(interpreter, nvidiaGpuCount(facts) > 0 ? facts.nvidia?.cudaVersion ?? null : null));
};

function nvidiaGpuCount(facts: DiagnosisFacts): number {
  return facts.nvidia?.gpuCount ?? 0;
}

/** Another interpreter (the editor's command, the CLI's option), or the install command: for the driver's CUDA beside an NVIDIA GPU. */
function missingTorchHint(interpreter: string, driverCuda: string | null): string {
  const index = driverCuda ? wheelIndexForDriver(driverCuda) : null;
  const install = index ? `install a CUDA build in this one (${cudaPipCommand(interpreter, index, false)})` : `install PyTorch in this one (${plainPipCommand(interpreter)})`;
  return `choose another interpreter ${BOTH_WAYS} or ${install}`;
}

function plainPipCommand(interpreter: string): string {
  return `${/\s/.test(interpreter) ? `"${interpreter}"` : interpreter} -m pip install torch`;
}

/** The exact pip command for the driver's CUDA version (cudaWheels.ts), or what to do first. */
function cudaBuildHint(interpreter: string, driverCuda: string | null, replacing: boolean): string {
  if (!driverCuda) return 'install a CUDA build of PyTorch (pytorch.org/get-started)';
  const index = wheelIndexForDriver(driverCuda);
  if (!index) {
    return `this driver supports only CUDA ${driverCuda}, older than every PyTorch CUDA wheel (${oldestWheelCuda()} and newer): update the NVIDIA driver, then install a CUDA build of PyTorch`;
  }
  return `install a CUDA build of PyTorch; this driver supports CUDA ${driverCuda}: ${cudaPipCommand(interpreter, index, replacing)}`;
}

/** A GPU is present but this PyTorch was built without CUDA (or ROCm). */
export const torchCpuOnlyBuild: DiagnosisRule = (facts) => {
  const torch = torchOk(facts);
  if (!torch || torch.cuda.built || torch.hip) return null;
  if (nvidiaGpuCount(facts) > 0) {
    return problem('torch', 'torch-cpu-only-build', 'PyTorch was not built with CUDA support', cudaBuildHint(torch.interpreter, facts.nvidia?.cudaVersion ?? null, true));
  }
  if (facts.amdGpuCount > 0 && facts.platform === 'linux') {
    return problem('torch', 'torch-cpu-only-build', 'PyTorch was not built with ROCm support', 'install a ROCm build of PyTorch (pytorch.org/get-started, "ROCm")');
  }
  return null;
};

/** A CUDA build that cannot find CUDA, on a machine without nvidia-smi. */
export const nvidiaDriverMissing: DiagnosisRule = (facts) => {
  const torch = torchOk(facts);
  if (!torch || !torch.cuda.built || torch.cuda.available || torch.hip) return null;
  if (facts.nvidia?.outcome !== 'not-installed' || facts.amdGpuCount > 0 || facts.platform === 'darwin') return null;
  // A CUDA build (pip's default) on a machine with no NVIDIA hardware at all is fine.
  if (facts.nvidiaPciDevices === 0) return null;
  const built = torch.cuda.version ? ` (this PyTorch is built for CUDA ${torch.cuda.version})` : '';
  return problem(
    'torch',
    'nvidia-driver-missing',
    `no NVIDIA driver found${built}`,
    'if this machine has an NVIDIA GPU, install its driver (nvidia-smi must work); CUDA is not installed properly otherwise',
  );
};

/** The driver's CUDA version is older than the one PyTorch was built with (12.4 < 12.10, numerically). */
export const driverTooOld: DiagnosisRule = (facts) => {
  const torch = torchOk(facts);
  const driver = facts.nvidia?.cudaVersion;
  const needed = torch?.cuda.version;
  if (!torch || !driver || !needed || compareVersions(driver, needed) >= 0) return null;
  const stillWorks = torch.cuda.available && majorVersion(driver) === majorVersion(needed);
  const hint = stillWorks
    ? `PyTorch still runs through CUDA ${majorVersion(needed)}'s minor-version compatibility, but some kernels may fail: update the driver`
    : `update the NVIDIA driver, or install a PyTorch build for CUDA ${driver} or older`;
  return problem('torch', 'driver-too-old', `the driver supports CUDA ${driver}, this PyTorch needs ${needed}`, hint);
};

function visibleDevices(facts: DiagnosisFacts): string | null {
  const torch = torchOk(facts);
  if (torch && torch.cudaVisibleDevices !== undefined) return torch.cudaVisibleDevices;
  return facts.cudaVisibleDevices ?? null;
}

/** CUDA_VISIBLE_DEVICES set to "" or "-1" hides every GPU from CUDA. */
export const cudaDevicesHidden: DiagnosisRule = (facts) => {
  const value = visibleDevices(facts);
  if (value === null || !['', '-1'].includes(value.trim())) return null;
  const relevant = nvidiaGpuCount(facts) > 0 || facts.amdGpuCount > 0 || torchOk(facts)?.cuda.built === true;
  if (!relevant) return null;
  return problem(
    'torch',
    'cuda-devices-hidden',
    `CUDA_VISIBLE_DEVICES="${value}" hides every GPU`,
    'unset CUDA_VISIBLE_DEVICES, or list the GPUs to use (e.g. CUDA_VISIBLE_DEVICES=0)',
  );
};

/** nvidia-smi exit 18, when the tool's own problem was not passed in. */
export const nvmlVersionMismatch: DiagnosisRule = (facts) => {
  if (facts.nvidia?.outcome !== 'version-mismatch') return null;
  return problem(
    'nvidia-smi',
    'nvml-version-mismatch',
    'Failed to initialize NVML: Driver/library version mismatch',
    'driver/library version mismatch: the driver was upgraded but the old kernel module is still loaded; reboot, or reload the nvidia kernel module',
  );
};

export const torchNoMpsBuild: DiagnosisRule = (facts) => {
  const torch = torchOk(facts);
  if (!torch || facts.platform !== 'darwin' || torch.mps.built) return null;
  return problem(
    'torch',
    'torch-no-mps-build',
    'PyTorch was not built with MPS enabled',
    'install PyTorch 1.12 or newer for macOS (pip install torch); on Apple silicon the Python itself must be arm64, not x86_64 under Rosetta',
  );
};

export const mpsUnavailable: DiagnosisRule = (facts) => {
  const torch = torchOk(facts);
  if (!torch || !torch.mps.built || torch.mps.available) return null;
  return problem('torch', 'mps-unavailable', 'MPS is not available to PyTorch', 'MPS needs macOS 12.3 or newer and an MPS-capable device (Apple silicon or a supported AMD GPU)');
};

export const mpsRuntimeFailure: DiagnosisRule = (facts) => {
  const torch = torchOk(facts);
  if (!torch || !torch.mps.available || torch.mps.allocates !== false) return null;
  return problem(
    'torch',
    'mps-runtime-failure',
    `MPS unavailable at runtime: ${torch.mps.error ?? 'allocating a tensor on "mps" failed'}`,
    'PyTorch says MPS is available but cannot allocate there, so the CPU is used; update macOS and PyTorch, and close programs that hold GPU memory',
  );
};

export const tfjsCudaMismatch: DiagnosisRule = ({ tfjs }) => {
  if (!tfjs?.gpuPackageLoaded || tfjs.gpuRegistered) return null;
  return problem(
    'tfjs',
    'tfjs-cuda-mismatch',
    'TensorFlow.js GPU loaded but registered no GPU',
    'TensorFlow.js GPU needs CUDA 11.2 and cuDNN 8.1 (libcudart.so.11.0)',
  );
};

/** Not in PROBES.md's table: a CUDA build, a GPU nvidia-smi sees, and none of the known reasons. */
export const cudaUnavailable: DiagnosisRule = (facts) => {
  const torch = torchOk(facts);
  if (!torch || !torch.cuda.built || torch.cuda.available || torch.hip || nvidiaGpuCount(facts) === 0) return null;
  if (cudaDevicesHidden(facts) || driverTooOld(facts)) return null;
  return problem(
    'torch',
    'cuda-unavailable',
    'PyTorch is built with CUDA but cannot use the GPU nvidia-smi sees',
    `run \`${torch.interpreter} -c "import torch; torch.cuda.init()"\` to see CUDA's own error (in a container, is the GPU passed in?)`,
  );
};

/** PROBES.md's table, in its order, then the catch-all. */
export const DIAGNOSIS_RULES: readonly DiagnosisRule[] = [
  torchMissing,
  torchCpuOnlyBuild,
  nvidiaDriverMissing,
  driverTooOld,
  cudaDevicesHidden,
  nvmlVersionMismatch,
  torchNoMpsBuild,
  mpsUnavailable,
  mpsRuntimeFailure,
  tfjsCudaMismatch,
  cudaUnavailable,
];
