// Select Device, as pure decisions: the quick-pick entries for a report, and where the choice is
// written. No vscode import.
import { formatMemory } from '../../core/devices/format';
import type { DeviceReport, TorchStatus } from '../../core/devices/report';

export const AUTOMATIC_LABEL = 'Automatic (CUDA → MPS → CPU)';

/** The ids `deviceDoctor.device` accepts (its manifest pattern). */
const DEVICE_PATTERN = /^(cpu|cuda|mps|xpu)(:[0-9]+)?$/;

export interface DevicePick {
  label: string;
  description?: string;
  detail?: string;
  /** The value to pin, or null for automatic. */
  device: string | null;
}

export function devicePicks(report: DeviceReport | null, pinned: string | null): DevicePick[] {
  const current = (device: string | null) => (device === pinned ? ' · current' : '');
  const picks: DevicePick[] = [{
    label: AUTOMATIC_LABEL,
    description: `${report ? `now ${report.selected.device}` : 'the tutorial\'s get_device() order'}${current(null)}`,
    device: null,
  }];
  for (const a of report?.accelerators ?? []) {
    if (!DEVICE_PATTERN.test(a.id)) continue;
    const memory = a.memory.totalBytes !== null ? ` · ${formatMemory(a.memory.usedBytes, a.memory.totalBytes)}` : '';
    const usable = report?.torch ? torchCanUse(report.torch, a.id) : true;
    picks.push({
      label: a.id,
      description: `${a.name}${memory}${current(a.id)}`,
      detail: usable ? undefined : 'PyTorch cannot use this device now; the device report says why.',
      device: a.id,
    });
  }
  picks.push({ label: 'cpu', description: `${report?.host.cpu.model ?? 'CPU'}${current('cpu')}`, device: 'cpu' });
  if (pinned !== null && !picks.some((p) => p.device === pinned)) {
    picks.push({ label: pinned, description: 'current · not found on this machine', device: pinned });
  }
  return picks;
}

function torchCanUse(torch: TorchStatus, id: string): boolean {
  if ('error' in torch) return false;
  const [kind, index] = id.split(':');
  if (kind === 'cuda') return torch.cuda.available && Number(index ?? 0) < torch.cuda.deviceCount;
  if (kind === 'mps') return torch.mps.available && torch.mps.allocates !== false;
  return true;
}

export type SettingLevel = 'global' | 'workspace' | 'workspaceFolder';

export interface SettingLevels {
  globalValue?: string;
  workspaceValue?: string;
  workspaceFolderValue?: string;
}

export interface SettingWrite {
  level: SettingLevel;
  /** undefined removes the value at that level. */
  value: string | undefined;
}

/**
 * Where the pin goes: the workspace settings by default (the choice is about this project, and
 * a user-level pin would silently follow the user into every other window), the user settings
 * when no folder is open; but if the folder already pins a device, the choice replaces that one
 * — a broader write would stay hidden behind it. "Automatic" removes the pin, or writes "" when
 * a broader level would otherwise show through.
 */
export function planDeviceWrite(levels: SettingLevels, device: string | null, hasWorkspace = true): SettingWrite {
  const order: Array<[SettingLevel, string | undefined]> = [
    ['workspaceFolder', levels.workspaceFolderValue],
    ['workspace', levels.workspaceValue],
    ['global', levels.globalValue],
  ];
  const pinned = order.findIndex(([, value]) => value !== undefined);
  const fallback: SettingLevel = hasWorkspace ? 'workspace' : 'global';
  const level = pinned !== -1 && pinned < order.findIndex(([l]) => l === fallback) ? order[pinned]![0] : fallback;
  const index = order.findIndex(([l]) => l === level);
  if (device !== null) return { level, value: device };
  const broaderPin = order.slice(index + 1).some(([, value]) => value !== undefined && value.trim() !== '');
  return { level, value: broaderPin ? '' : undefined };
}

const LEVEL_NAMES: Record<SettingLevel, string> = {
  global: 'user settings',
  workspace: 'workspace settings (.vscode/settings.json)',
  workspaceFolder: 'folder settings (.vscode/settings.json)',
};

/** What the notification after Select Device says: the setting, its new value, where, and what it affects. */
export function deviceWriteMessage(write: SettingWrite): string {
  const what = write.value ? `"${write.value}"` : 'automatic (CUDA → MPS → CPU)';
  return `Device Doctor: deviceDoctor.device is now ${what} in the ${LEVEL_NAMES[write.level]}. `
    + 'It sets the device Device Doctor probes, monitors and benchmarks; the analysis does not depend on it, '
    + 'and your code is not changed: it still picks its own device (Insert Device Selection writes a get_device() helper).';
}
