// PyTorch probe runs, remembered per interpreter by a stamp of the files that decide what it
// would answer, so that detect, Choose Interpreter and a re-detect after a settings change import
// torch once between them. The interpreter's own mtime changes when it is replaced; installing or
// removing a package changes its site-packages folder's; an upgrade in place (pip over an old
// torch, dpkg renaming files inside torch/) may leave both alone but always rewrites
// torch/version.py, so that file's stamp is in the key too. A run that hung or was cancelled is
// not remembered: it says nothing about torch.
import * as fs from 'fs';
import * as path from 'path';
import type { TorchStatus } from '../../core/devices/report';
import { torchStatusFromRun } from '../../core/devices/torchProbe';
import type { ToolRun } from '../../core/devices/toolRun';

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
  const folders = packageFolders(interpreter);
  const torchVersionFiles = folders.map((folder) => path.join(folder, 'torch', 'version.py'));
  return [interpreter, ...folders, ...torchVersionFiles].map(mtime).join('|');
}

function worthRemembering(run: ToolRun): boolean {
  return run.errorCode !== 'TIMEOUT' && run.errorCode !== 'CANCELLED';
}

export class TorchProbeCache {
  private readonly entries = new Map<string, { stamp: string; run: ToolRun }>();

  /** The remembered run while the interpreter's stamp is unchanged. */
  run(interpreter: string): ToolRun | undefined {
    const entry = this.entries.get(interpreter);
    return entry && entry.stamp === interpreterStamp(interpreter) ? entry.run : undefined;
  }

  status(interpreter: string): TorchStatus | undefined {
    const run = this.run(interpreter);
    return run && torchStatusFromRun(run, interpreter);
  }

  /**
   * `stamp` is taken before the probe started: a torch installed while it ran is then a change,
   * not part of what was probed.
   */
  remember(interpreter: string, run: ToolRun, stamp: string): void {
    if (worthRemembering(run)) this.entries.set(interpreter, { stamp, run });
    else this.entries.delete(interpreter);
  }
}
