// PyTorch probes of discovered interpreters, remembered by path and modification times so that
// opening Choose Interpreter twice imports torch once. The interpreter's own mtime changes when
// it is replaced; installing or removing torch changes its site-packages folder's, so both are in
// the stamp. A run that hung or was cancelled is not remembered: it says nothing about torch.
import * as fs from 'fs';
import * as path from 'path';
import type { TorchStatus } from '../../core/devices/report';
import { IMPORT_TIMEOUT } from '../../core/devices/torchProbe';

function mtime(file: string): string {
  try {
    const stat = fs.statSync(file);
    return `${stat.mtimeMs}:${stat.size}`;
  } catch {
    return '-';
  }
}

/** site-packages folders of the environment an interpreter at <prefix>/bin/python belongs to. */
function packageFolders(interpreter: string): string[] {
  const prefix = path.dirname(path.dirname(interpreter));
  const lib = path.join(prefix, 'lib');
  const localLib = path.join(prefix, 'local', 'lib');
  const versioned = [lib, localLib].flatMap((folder) => {
    try {
      return fs.readdirSync(folder).filter((name) => name.startsWith('python')).flatMap((name) => [path.join(folder, name, 'site-packages'), path.join(folder, name, 'dist-packages')]);
    } catch {
      return [];
    }
  });
  return [...versioned, path.join(prefix, 'Lib', 'site-packages'), path.join(path.dirname(interpreter), 'Lib', 'site-packages')];
}

export function interpreterStamp(interpreter: string): string {
  return [interpreter, ...packageFolders(interpreter)].map(mtime).join('|');
}

function worthRemembering(torch: TorchStatus): boolean {
  return !('error' in torch) || !(torch.error.startsWith(IMPORT_TIMEOUT) || torch.error.includes('(CANCELLED)'));
}

export class TorchProbeCache {
  private readonly entries = new Map<string, { stamp: string; torch: TorchStatus }>();

  get(interpreter: string): TorchStatus | undefined {
    const entry = this.entries.get(interpreter);
    return entry && entry.stamp === interpreterStamp(interpreter) ? entry.torch : undefined;
  }

  set(interpreter: string, torch: TorchStatus): void {
    if (worthRemembering(torch)) this.entries.set(interpreter, { stamp: interpreterStamp(interpreter), torch });
  }
}
