// The device side's settings as one typed object, read fresh each time (never cached), and the
// explicit lists of keys that decide what a change does (ruff's checkIfConfigurationChanged).
// `deviceDoctor.pythonPath` is not here: it is read with inspect() by python.ts, because
// Workspace Trust decides which of its levels count. No vscode import.
import { DEFAULT_TIMEOUTS_MS, DEFAULT_TOOL_TIMEOUT_MS } from '../../protocol/probeTimeouts';

export interface DeviceSettings {
  /** deviceDoctor.statusBar.enabled: show the item; monitoring only runs while it is shown. */
  statusBarEnabled: boolean;
  /** deviceDoctor.statusBar.memoryWarningPercent: memory use at which the item turns to the warning colour. */
  memoryWarningPercent: number;
  /** deviceDoctor.monitor.intervalMs: how often the worker samples memory. */
  monitorIntervalMs: number;
  /** deviceDoctor.probeTimeoutMs: how long one probe (nvidia-smi, the PyTorch probe) may take; null: each kind's default. */
  probeTimeoutMs: number | null;
  /** deviceDoctor.device: the pinned device ("cuda:1"), or null for automatic (CUDA → MPS → CPU). */
  pinnedDevice: string | null;
}

export const DEVICE_SETTING_DEFAULTS: DeviceSettings = {
  statusBarEnabled: true,
  memoryWarningPercent: 90,
  monitorIntervalMs: 2000,
  probeTimeoutMs: null,
  pinnedDevice: null,
};

/** Changing one of these needs a new detection. */
export const REDETECT_SETTINGS = ['deviceDoctor.pythonPath', 'deviceDoctor.device', 'deviceDoctor.probeTimeoutMs'] as const;
/** Changing one of these re-renders the status bar and re-plans monitoring. */
export const STATUS_BAR_SETTINGS = ['deviceDoctor.statusBar', 'deviceDoctor.monitor'] as const;

const DEVICE_PATTERN = /^(cpu|cuda|mps|xpu)(:[0-9]+)?$/;

/** The `get` of a vscode.WorkspaceConfiguration for the `deviceDoctor` section. */
export interface SettingsSource {
  get<T>(key: string): T | undefined;
}

export function readDeviceSettings(config: SettingsSource): DeviceSettings {
  const d = DEVICE_SETTING_DEFAULTS;
  const device = config.get<string>('device')?.trim() ?? '';
  return {
    statusBarEnabled: config.get<boolean>('statusBar.enabled') ?? d.statusBarEnabled,
    memoryWarningPercent: clamp(config.get<number>('statusBar.memoryWarningPercent'), 1, 100, d.memoryWarningPercent),
    monitorIntervalMs: clamp(config.get<number>('monitor.intervalMs'), 250, 60_000, d.monitorIntervalMs),
    // Unset (null), the worker gives each kind its own limit: a slow `import torch` is not a hang.
    probeTimeoutMs: clampOrNull(config.get<number | null>('probeTimeoutMs'), 1000, 300_000),
    // A value the manifest's pattern rejects is treated as unset rather than sent to the worker.
    pinnedDevice: DEVICE_PATTERN.test(device) ? device : null,
  };
}

/** How long a whole detection may take: a few probes in a row, plus the worker's own work. */
export function detectTimeoutMs(settings: DeviceSettings): number {
  if (settings.probeTimeoutMs !== null) return settings.probeTimeoutMs * 3 + 5000;
  return DEFAULT_TIMEOUTS_MS.torch + DEFAULT_TOOL_TIMEOUT_MS * 2 + 5000;
}

/** The probe timeout the worker is sent: absent when unset, so that each kind keeps its default. */
export function probeTimeoutOption(settings: DeviceSettings): { timeoutMs?: number } {
  return settings.probeTimeoutMs === null ? {} : { timeoutMs: settings.probeTimeoutMs };
}

function clampOrNull(value: number | null | undefined, min: number, max: number): number | null {
  if (typeof value !== 'number' || !Number.isFinite(value)) return null;
  return clamp(value, min, max, min);
}

function clamp(value: number | undefined, min: number, max: number, fallback: number): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) return fallback;
  return Math.min(max, Math.max(min, Math.round(value)));
}
