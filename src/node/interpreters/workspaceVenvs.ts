// Virtual environments inside the workspace folders: any folder holding a pyvenv.cfg (venv,
// virtualenv, uv, poetry, tox all write one). A bounded walk: a few levels deep, a cap on folders
// read, and never into node_modules, .git or symlinked folders (which could loop or leave the
// workspace). Only reads the file system.
import * as fs from 'fs';
import * as path from 'path';
import { isExecutableFile } from '../pathLookup';

export interface VenvWalkLimits {
  /** Levels below a workspace folder (0: the folder itself). */
  maxDepth: number;
  /** Folders read in all, so a huge checkout cannot stall discovery. */
  maxFolders: number;
}

export const DEFAULT_VENV_LIMITS: VenvWalkLimits = { maxDepth: 4, maxFolders: 4000 };

const SKIPPED = new Set(['node_modules', '.git', '.hg', '.svn', '__pycache__', 'site-packages', 'dist-packages', '.mypy_cache', '.pytest_cache', '.ruff_cache']);

/** A venv's interpreter: bin/python (Scripts\python.exe on Windows). */
export function venvInterpreter(venv: string, platform: NodeJS.Platform): string | undefined {
  const names = platform === 'win32' ? [path.join('Scripts', 'python.exe')] : [path.join('bin', 'python'), path.join('bin', 'python3')];
  return names.map((name) => path.join(venv, name)).find((file) => isExecutableFile(file, platform));
}

export async function findWorkspaceVenvs(folders: readonly string[], limits: VenvWalkLimits = DEFAULT_VENV_LIMITS): Promise<string[]> {
  const venvs: string[] = [];
  let budget = limits.maxFolders;
  let level = folders.map((folder) => path.resolve(folder));
  for (let depth = 0; depth <= limits.maxDepth && level.length > 0 && budget > 0; depth++) {
    const next: string[] = [];
    for (const folder of level) {
      if (budget-- <= 0) break;
      const entries = await fs.promises.readdir(folder, { withFileTypes: true }).catch(() => []);
      if (entries.some((entry) => entry.isFile() && entry.name === 'pyvenv.cfg')) {
        venvs.push(folder); // a venv's own folders hold no other venv worth listing
        continue;
      }
      for (const entry of entries) if (entry.isDirectory() && !SKIPPED.has(entry.name)) next.push(path.join(folder, entry.name));
    }
    level = next;
  }
  return venvs;
}
