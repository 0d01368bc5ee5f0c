// Conda environments: what `conda env list --json` says when conda is on PATH, conda's own
// ~/.conda/environments.txt, and the envs folders of the usual installations (conda may be
// installed but not on PATH, e.g. never `conda init`-ed). Prefixes, deduplicated in that order.
import * as fs from 'fs';
import * as path from 'path';
import { parseCondaEnvList, parseEnvironmentsTxt } from '../../core/interpreters/conda';
import { findExecutable } from '../pathLookup';
import { runTool } from '../processRunner';

export interface CondaLookup {
  env: NodeJS.ProcessEnv;
  platform: NodeJS.Platform;
  homeDir: string;
  timeoutMs: number;
  signal?: AbortSignal;
  /** Whether conda itself may run (it may not when it lives in an untrusted workspace). */
  mayRunConda(file: string): boolean;
}

const INSTALL_FOLDERS = ['miniconda3', 'anaconda3', 'miniforge3', 'mambaforge', 'micromamba', '.conda'];

async function fromCondaCommand(lookup: CondaLookup): Promise<{ prefixes: string[]; root?: string }> {
  const conda = findExecutable('conda', lookup.env, lookup.platform);
  if (!conda || !lookup.mayRunConda(conda)) return { prefixes: [] };
  const run = await runTool(conda, ['env', 'list', '--json'], { timeoutMs: lookup.timeoutMs, env: lookup.env, signal: lookup.signal, maxOutputBytes: 1024 * 1024 });
  // conda lives in <root>/bin or <root>/condabin (Scripts on Windows).
  const root = path.dirname(path.dirname(fs.realpathSync.native(conda)));
  return { prefixes: run.exitCode === 0 ? parseCondaEnvList(run.stdout) : [], root };
}

function subfolders(folder: string): string[] {
  try {
    return fs.readdirSync(folder, { withFileTypes: true }).filter((e) => e.isDirectory() || e.isSymbolicLink()).map((e) => path.join(folder, e.name));
  } catch {
    return [];
  }
}

function fromEnvironmentsTxt(homeDir: string): string[] {
  try {
    return parseEnvironmentsTxt(fs.readFileSync(path.join(homeDir, '.conda', 'environments.txt'), 'utf8'));
  } catch {
    return [];
  }
}

function fromInstallFolders(roots: readonly string[]): string[] {
  return roots.flatMap((root) => [root, ...subfolders(path.join(root, 'envs'))]);
}

export async function findCondaPrefixes(lookup: CondaLookup): Promise<string[]> {
  const command = await fromCondaCommand(lookup);
  const roots = [...(command.root ? [command.root] : []), ...INSTALL_FOLDERS.map((name) => path.join(lookup.homeDir, name))];
  const prefixes = [...command.prefixes, ...fromEnvironmentsTxt(lookup.homeDir), ...fromInstallFolders(roots)];
  return [...new Set(prefixes.map((prefix) => path.resolve(prefix)))];
}
