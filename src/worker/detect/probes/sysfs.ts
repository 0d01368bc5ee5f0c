// AMD GPUs straight from /sys/class/drm/card*/device/ on Linux: memory and load with
// plain file reads, no tool and no process. The monitor polls this every interval.
import { promises as fsp } from 'fs';
import * as path from 'path';
import type { SysfsDrmCard } from '../../../core/devices/amd';

export const SYSFS_DRM_ROOT = '/sys/class/drm';

const CARD_FILES = ['vendor', 'device', 'mem_info_vram_total', 'mem_info_vram_used', 'gpu_busy_percent', 'product_name'] as const;

/** Connectors (card0-DP-1) share the directory; only card<N> is a GPU. */
const CARD_NAME = /^card\d+$/;

async function readSmall(file: string): Promise<string | undefined> {
  try {
    return (await fsp.readFile(file, 'utf8')).slice(0, 4096);
  } catch {
    return undefined;
  }
}

async function readCard(root: string, card: string): Promise<SysfsDrmCard> {
  const device = path.join(root, card, 'device');
  const values = await Promise.all(CARD_FILES.map((name) => readSmall(path.join(device, name))));
  const result: SysfsDrmCard = { card };
  CARD_FILES.forEach((name, i) => {
    if (values[i] !== undefined) result[name] = values[i];
  });
  const target = await fsp.realpath(device).catch(() => undefined);
  if (target) result.pciBusId = path.basename(target);
  return result;
}

function withDeadline<T>(promise: Promise<T>, ms: number, fallback: T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<T>((resolve) => {
    timer = setTimeout(() => resolve(fallback), ms);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

/**
 * Every DRM card's files (AMD or not: the parser decides). A read stuck in a wedged
 * driver is abandoned after `timeoutMs` so that a detect or a monitor tick still ends.
 */
export async function readSysfsDrmCards(root: string = SYSFS_DRM_ROOT, timeoutMs = 2_000): Promise<SysfsDrmCard[]> {
  const read = async (): Promise<SysfsDrmCard[]> => {
    const entries = await fsp.readdir(root).catch(() => [] as string[]);
    const cards = entries.filter((name) => CARD_NAME.test(name)).sort((a, b) => Number(a.slice(4)) - Number(b.slice(4)));
    return Promise.all(cards.map((card) => readCard(root, card)));
  };
  return withDeadline(read(), timeoutMs, []);
}

export async function probeSysfs(platform: NodeJS.Platform, root: string = SYSFS_DRM_ROOT, timeoutMs?: number): Promise<SysfsDrmCard[]> {
  return platform === 'linux' ? readSysfsDrmCards(root, timeoutMs) : [];
}
