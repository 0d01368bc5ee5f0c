// How long each kind of probe gets when deviceDoctor.probeTimeoutMs is not set. Both ends use
// them: the worker kills a probe at its kind's limit, and the editor waits for a whole detection
// as long as its probes may take. Importing torch (and initialising CUDA) is a large library's
// start-up: tens of seconds on a network file system or a cold cache is common and not a hang,
// while nvidia-smi answering late is.
export const DEFAULT_TIMEOUTS_MS = {
  'nvidia-smi': 15_000,
  'rocm-smi': 15_000,
  'amd-smi': 15_000,
  system_profiler: 20_000,
  torch: 120_000,
} as const;

export type ToolKind = keyof typeof DEFAULT_TIMEOUTS_MS;

/** The longest a system tool (not the PyTorch probe) may take by default. */
export const DEFAULT_TOOL_TIMEOUT_MS = Math.max(...Object.entries(DEFAULT_TIMEOUTS_MS).filter(([kind]) => kind !== 'torch').map(([, ms]) => ms));
