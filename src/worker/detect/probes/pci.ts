// Display and 3D controllers on the PCI bus, from /sys/bus/pci/devices on Linux: tells
// "no NVIDIA driver" (hardware present) apart from "no NVIDIA GPU" without any tool.
import { promises as fsp } from 'fs';
import * as path from 'path';

export const SYSFS_PCI_ROOT = '/sys/bus/pci/devices';

/** PCI class 0x03xxxx: display controllers (0x0300 VGA, 0x0302 3D controller). */
const DISPLAY_CLASS = /^0x03[0-9a-f]{4}$/i;

export interface PciDisplayDevice {
  busId: string;
  vendor: string;
}

async function readTrimmed(file: string): Promise<string | undefined> {
  try {
    return (await fsp.readFile(file, 'utf8')).trim();
  } catch {
    return undefined;
  }
}

/** null when the bus cannot be read (not Linux, a sandbox): unknown, not "none". */
export async function probePciDisplayDevices(platform: NodeJS.Platform, root: string = SYSFS_PCI_ROOT): Promise<PciDisplayDevice[] | null> {
  if (platform !== 'linux') return null;
  const entries = await fsp.readdir(root).catch(() => undefined);
  if (!entries) return null;
  const devices = await Promise.all(
    entries.sort().map(async (busId) => {
      const [cls, vendor] = await Promise.all([readTrimmed(path.join(root, busId, 'class')), readTrimmed(path.join(root, busId, 'vendor'))]);
      return cls && vendor && DISPLAY_CLASS.test(cls) ? { busId, vendor } : null;
    }),
  );
  return devices.filter((d): d is PciDisplayDevice => d !== null);
}
