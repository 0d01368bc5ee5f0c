// Every request and notification between the extension (or CLI) and the compute
// worker, typed once. Both ends import these; nothing else crosses the boundary.
import { NotificationType, RequestType } from 'vscode-jsonrpc';
import type { DeviceReport } from '../core/devices/report';

/** Settings the worker needs; sent with each request so the worker holds no config state. */
export interface ProbeOptions {
  /** Interpreter to ask about PyTorch; null: none usable (e.g. untrusted workspace setting). */
  pythonPath: string | null;
  /** The user's pinned device ("cuda:1"), or null to follow get_device()'s order. */
  pinnedDevice: string | null;
  /** Per-probe timeout in milliseconds. */
  timeoutMs?: number;
}

export const DetectRequest = new RequestType<ProbeOptions, DeviceReport, void>('deviceDoctor/detect');

export interface MonitorOptions {
  intervalMs: number;
}

/** Starts streaming memory samples (one long-lived `nvidia-smi -lms`, sysfs polling for AMD, host memory). */
export const StartMonitorRequest = new RequestType<MonitorOptions, void, void>('deviceDoctor/startMonitor');
export const StopMonitorRequest = new RequestType<void, void, void>('deviceDoctor/stopMonitor');

export interface MemorySample {
  /** Accelerator id as in the report ("cuda:0") or "cpu" for host memory. */
  id: string;
  usedBytes: number | null;
  totalBytes: number | null;
  utilizationPercent: number | null;
  /** Milliseconds since the epoch. */
  time: number;
}

export interface MemorySamples {
  samples: MemorySample[];
}

export const MemorySamplesNotification = new NotificationType<MemorySamples>('deviceDoctor/memorySamples');

/** A probe or monitor failure worth showing (a hung nvidia-smi killed after its timeout). */
export interface WorkerProblem {
  source: string;
  message: string;
}

export const WorkerProblemNotification = new NotificationType<WorkerProblem>('deviceDoctor/problem');

/** Log lines for the extension's output channel (the worker never writes to stdout). */
export interface WorkerLog {
  level: 'trace' | 'debug' | 'info' | 'warn' | 'error';
  message: string;
}

export const WorkerLogNotification = new NotificationType<WorkerLog>('deviceDoctor/log');
