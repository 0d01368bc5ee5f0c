// How many threads "all threads" means for torch on the CPU, and how a thread count is named.
// The CPU-only default compares torch with all threads against torch with one: the one
// question a PyTorch user without a GPU has about speed ("does my CPU scale, and how far
// from its peak am I?"), where torch against TensorFlow.js answered nothing they asked.

/** What the worker knows of the CPUs this process may use. */
export interface CpuThreadFacts {
  /**
   * CPUs the process may run on: os.availableParallelism(), which is libuv's
   * sched_getaffinity count on Linux (taskset, cgroup cpusets), so a pinned process is not
   * offered cores it cannot use. null: unknown.
   */
  availableCpus: number | null;
  /** Physical cores of the machine (/proc/cpuinfo's core ids); null: unknown. */
  physicalCores: number | null;
}

/**
 * "All threads": the physical cores available to the process, the smaller of the two counts.
 * Physical, not logical: SMT siblings share one core's FMA units, so a second thread per core
 * adds no FLOP to a matmul and only contends (PyTorch's own default is the physical cores for
 * the same reason). Capped by the affinity, because threads beyond the CPUs the process may
 * use time-slice on the same cores. When both are unknown: 1, which compares nothing.
 */
export function allThreads(facts: CpuThreadFacts): number {
  const known = [facts.availableCpus, facts.physicalCores].filter((n): n is number => typeof n === 'number' && Number.isInteger(n) && n >= 1);
  return known.length > 0 ? Math.min(...known) : 1;
}

/** "1 thread", "2 threads". */
export function threadsText(threads: number): string {
  return `${threads} thread${threads === 1 ? '' : 's'}`;
}
