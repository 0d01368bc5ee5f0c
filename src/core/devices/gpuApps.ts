// What each GPU tool says about the processes using a GPU, before anything from /proc is added:
// nvidia-smi's compute apps, rocm-smi's KFD processes and amd-smi's process list. A tool names
// the GPU its own way (a UUID, an index) or not at all (rocm-smi only counts them).
import { parseNvidiaComputeApps } from './nvidiaSmi';
import { bytesOrNull, integerOrNull, isRecord, parseJsonOrUndefined } from './fields';

/** How a tool names the GPU a process uses; null when it does not say. */
export type GpuRef = { uuid: string } | { index: number } | null;

export interface GpuApp {
  pid: number;
  /** The tool's name for the process (nvidia-smi: often the executable's path). */
  processName: string;
  usedBytes: number | null;
  gpu: GpuRef;
}

export const ROCM_SMI_PIDS_ARGS: readonly string[] = ['--showpids', '--json'];
export const AMD_SMI_PROCESS_ARGS: readonly string[] = ['process', '--json'];

/** nvidia-smi `--query-compute-apps`: one row per process and GPU; `[N/A]` memory (MIG, containers) is null. */
export function nvidiaGpuApps(csv: string): GpuApp[] {
  return parseNvidiaComputeApps(csv).map((app) => ({ pid: app.pid, processName: app.processName, usedBytes: app.usedBytes, gpu: { uuid: app.gpuUuid } }));
}

/**
 * `rocm-smi --showpids --json`: `{"system": {"PID2968": "python3, 1, 1073741824, 0, 0"}}`, the
 * fields being name, number of GPUs, VRAM bytes, SDMA bytes, CU occupancy. Which GPU is not said.
 */
export function rocmSmiGpuApps(stdout: string): GpuApp[] {
  const json = parseJsonOrUndefined(stdout);
  const system = isRecord(json) && isRecord(json.system) ? json.system : {};
  const apps: GpuApp[] = [];
  for (const [key, value] of Object.entries(system)) {
    const pid = integerOrNull(/^PID(\d+)$/.exec(key)?.[1]);
    if (pid === null || typeof value !== 'string') continue;
    const fields = value.split(',').map((field) => field.trim());
    apps.push({ pid, processName: fields[0] ?? '', usedBytes: bytesOrNull(fields[2]), gpu: null });
  }
  return apps;
}

const UNIT_BYTES: Record<string, number> = { B: 1, KB: 1024, KIB: 1024, MB: 1024 ** 2, MIB: 1024 ** 2, GB: 1024 ** 3, GIB: 1024 ** 3 };

/** amd-smi's `{"value": 1024, "unit": "MB"}` (or a plain number of bytes). */
function amdBytes(raw: unknown): number | null {
  if (!isRecord(raw)) return bytesOrNull(raw);
  const scale = UNIT_BYTES[String(raw.unit ?? 'B').toUpperCase()];
  const value = bytesOrNull(raw.value);
  return scale === undefined || value === null ? null : Math.round(value * scale);
}

/**
 * `amd-smi process --json`: per GPU, a `process_list` of processes, each either wrapped in
 * `process_info` (ROCm 6.0/6.1) or not (6.2+); "No running processes detected" is a string there.
 */
export function amdSmiGpuApps(stdout: string): GpuApp[] {
  const json = parseJsonOrUndefined(stdout);
  const gpus = Array.isArray(json) ? json : [];
  const apps: GpuApp[] = [];
  for (const gpu of gpus) {
    if (!isRecord(gpu) || !Array.isArray(gpu.process_list)) continue;
    const index = integerOrNull(gpu.gpu);
    for (const entry of gpu.process_list) {
      const info = isRecord(entry) && isRecord(entry.process_info) ? entry.process_info : entry;
      if (!isRecord(info)) continue;
      const pid = integerOrNull(info.pid);
      if (pid === null) continue;
      const memory = isRecord(info.memory_usage) ? info.memory_usage.vram_mem : undefined;
      apps.push({
        pid,
        processName: typeof info.name === 'string' ? info.name : '',
        usedBytes: amdBytes(memory ?? info.mem_usage ?? info.mem),
        gpu: index === null ? null : { index },
      });
    }
  }
  return apps;
}
