// Finding an executable (`python3`, `nvidia-smi`, `npm`) on PATH without running anything: the
// first executable file with that name in PATH order, as a shell would pick it, skipping empty
// and relative entries (the current folder: a workspace-controlled one). Shared by the worker,
// the CLI and the extension; the process runner resolves every bare command name through it.
import * as fs from 'fs';
import * as path from 'path';

export interface PathLookupEnv {
  PATH?: string;
  Path?: string;
  PATHEXT?: string;
}

/** The Python interpreter on PATH: python3 before python (python may be Python 2 on old systems). */
export function findPythonOnPath(env: PathLookupEnv = process.env, platform: NodeJS.Platform = process.platform): string | undefined {
  // On Windows "python3" is often the Microsoft Store installer stub; python.exe is the real one.
  const names = platform === 'win32' ? ['python', 'python3'] : ['python3', 'python'];
  for (const name of names) {
    const found = findExecutable(name, env, platform);
    if (found) return found;
  }
  return undefined;
}

export function findExecutable(name: string, env: PathLookupEnv, platform: NodeJS.Platform): string | undefined {
  const pathValue = env.PATH ?? env.Path ?? '';
  const pathext = platform === 'win32' ? (env.PATHEXT ?? '.EXE;.CMD;.BAT').split(';').filter(Boolean) : [''];
  // "nvidia-smi.exe" is looked up as it is, not as nvidia-smi.exe.exe.
  const named = platform === 'win32' && pathext.some((extension) => name.toLowerCase().endsWith(extension.toLowerCase()));
  const extensions = named ? [''] : pathext;
  for (const dir of pathValue.split(platform === 'win32' ? ';' : path.delimiter)) {
    // An empty PATH entry means the current directory: never look there.
    if (!dir || !path.isAbsolute(dir)) continue;
    if (platform === 'win32' && /\\WindowsApps\\?$/i.test(dir)) continue;
    for (const extension of extensions) {
      const candidate = path.join(dir, name + extension.toLowerCase());
      if (isExecutableFile(candidate, platform)) return candidate;
    }
  }
  return undefined;
}

export function isExecutableFile(file: string, platform: NodeJS.Platform): boolean {
  try {
    if (!fs.statSync(file).isFile()) return false;
    if (platform !== 'win32') fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
