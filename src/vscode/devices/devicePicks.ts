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
 * Where the pin goes. Device indices belong to the machine and `.vscode/settings.json` is often
 * committed, so by default the user settings; but if this workspace (or folder) already pins a
 * device, the choice replaces that one — a user-level write would stay hidden behind it.
 * "Automatic" removes the pin, or writes "" when a broader level would otherwise show through.
 */
export function planDeviceWrite(levels: SettingLevels, device: string | null): SettingWrite {
  const order: Array<[SettingLevel, string | undefined]> = [
    ['workspaceFolder', levels.workspaceFolderValue],
    ['workspace', levels.workspaceValue],
    ['global', levels.globalValue],
  ];
  const index = order.findIndex(([, value]) => value !== undefined);
  const level = index === -1 ? 'global' : order[index]![0];
  if (device !== null) return { level, value: device };
  const broaderPin = index !== -1 && order.slice(index + 1).some(([, value]) => value !== undefined && value.trim() !== '');
  return { level, value: broaderPin ? '' : undefined };
}
