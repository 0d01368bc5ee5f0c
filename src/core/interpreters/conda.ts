// Conda's own lists of environments: `conda env list --json` ({"envs": [prefix, ...]}) and
// ~/.conda/environments.txt (one prefix a line, written by conda on every create). Each prefix
// holds its interpreter at bin/python (python.exe at the prefix root on Windows).
import * as path from 'path';

/** The prefixes `conda env list --json` printed; [] for anything that is not its shape. */
export function parseCondaEnvList(stdout: string): string[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(stdout);
  } catch {
    return [];
  }
  if (parsed === null || typeof parsed !== 'object' || !Array.isArray((parsed as { envs?: unknown }).envs)) return [];
  return ((parsed as { envs: unknown[] }).envs).filter((env): env is string => typeof env === 'string' && env.trim() !== '');
}

/** environments.txt: absolute prefixes, blank lines and comments skipped. */
export function parseEnvironmentsTxt(text: string): string[] {
  return text.split(/\r?\n/).map((line) => line.trim()).filter((line) => line !== '' && !line.startsWith('#'));
}

export function condaInterpreter(prefix: string, platform: NodeJS.Platform): string {
  return platform === 'win32' ? path.win32.join(prefix, 'python.exe') : path.posix.join(prefix, 'bin', 'python');
}

/** "base" for the installation's root, else the folder name conda shows. */
export function condaEnvironmentName(prefix: string): string {
  const parts = prefix.split(/[\\/]/).filter(Boolean);
  return parts[parts.length - 2] === 'envs' ? parts[parts.length - 1] : 'base';
}
