// Every interpreter worth asking about PyTorch on this machine: what the editor passes (the
// setting, the Python extension's known environments), virtual environments in the workspace,
// conda environments, python3/python on PATH (the one PATH lookup) and the system interpreter.
// Nothing is run here except `conda env list` (through the process runner); whether each
// interpreter may be probed is Workspace Trust's to say (core/interpreters/trust.ts).
import * as fs from 'fs';
import * as path from 'path';
import { condaEnvironmentName, condaInterpreter } from '../../core/interpreters/conda';
import { mergeCandidates, type InterpreterCandidate } from '../../core/interpreters/model';
import { mayRun, type TrustFacts } from '../../core/interpreters/trust';
import { findExecutable, isExecutableFile } from '../pathLookup';
import { findCondaPrefixes } from './condaEnvironments';
import { DEFAULT_VENV_LIMITS, findWorkspaceVenvs, venvInterpreter, type VenvWalkLimits } from './workspaceVenvs';

export interface DiscoveryInput {
  workspaceFolders: readonly string[];
  trusted: boolean;
  /** Found by the editor: deviceDoctor.pythonPath, the Python extension's environments. */
  known: readonly InterpreterCandidate[];
  env: NodeJS.ProcessEnv;
  platform: NodeJS.Platform;
  homeDir: string;
  /** Default /usr/bin/python3 (none on Windows); tests point it into a fake tree. */
  systemInterpreter?: string | null;
  condaTimeoutMs?: number;
  venvLimits?: VenvWalkLimits;
  signal?: AbortSignal;
}

export const SYSTEM_INTERPRETER = '/usr/bin/python3';

/** Symlinks resolved for the containing folder only: /bin/python3 and /usr/bin/python3 are one, a venv's bin/python (a link to the base) is not. */
export function sameFileKey(file: string): string {
  try {
    return path.join(fs.realpathSync.native(path.dirname(file)), path.basename(file));
  } catch {
    return file;
  }
}

export function realPathOrSelf(file: string): string {
  try {
    return fs.realpathSync.native(file);
  } catch {
    return file;
  }
}

/**
 * What Workspace Trust judges with: each folder as opened and as resolved (a workspace opened
 * through a symlink still contains what is reached by its real path), and each interpreter by its
 * path, with its folder resolved (a venv's bin/python reached through a symlinked folder: the
 * link itself points out of the venv) and fully resolved (a link that points into the workspace).
 */
export function trustFacts(input: Pick<DiscoveryInput, 'trusted' | 'workspaceFolders'>): TrustFacts {
  const folders = input.workspaceFolders.map((folder) => path.resolve(folder));
  return {
    trusted: input.trusted,
    workspaceFolders: [...new Set(folders.flatMap((folder) => [folder, realPathOrSelf(folder)]))],
    aliases: (file) => [sameFileKey(file), realPathOrSelf(file)],
  };
}

async function venvCandidates(input: DiscoveryInput): Promise<InterpreterCandidate[]> {
  const venvs = await findWorkspaceVenvs(input.workspaceFolders, input.venvLimits ?? DEFAULT_VENV_LIMITS);
  return venvs.flatMap((venv) => {
    const interpreter = venvInterpreter(venv, input.platform);
    return interpreter ? [{ path: interpreter, origins: ['venv' as const], environmentName: path.basename(venv) }] : [];
  });
}

async function condaCandidates(input: DiscoveryInput): Promise<InterpreterCandidate[]> {
  const facts = trustFacts(input);
  const prefixes = await findCondaPrefixes({
    env: input.env,
    platform: input.platform,
    homeDir: input.homeDir,
    timeoutMs: input.condaTimeoutMs ?? 15_000,
    signal: input.signal,
    mayRunConda: (file) => mayRun({ path: file, origins: ['path'] }, facts),
  });
  return prefixes
    .map((prefix) => ({ path: condaInterpreter(prefix, input.platform), origins: ['conda' as const], environmentName: condaEnvironmentName(prefix) }))
    .filter((candidate) => isExecutableFile(candidate.path, input.platform));
}

function pathCandidates(input: DiscoveryInput): InterpreterCandidate[] {
  const names = input.platform === 'win32' ? ['python', 'python3'] : ['python3', 'python'];
  return names.flatMap((name) => {
    const found = findExecutable(name, input.env, input.platform);
    return found ? [{ path: found, origins: ['path' as const] }] : [];
  });
}

function systemCandidates(input: DiscoveryInput): InterpreterCandidate[] {
  const system = input.systemInterpreter === undefined ? (input.platform === 'win32' ? null : SYSTEM_INTERPRETER) : input.systemInterpreter;
  return system && isExecutableFile(system, input.platform) ? [{ path: system, origins: ['system'] }] : [];
}

/** Known ones that exist; a bare name (python3 in the setting) is looked up on PATH. */
function knownCandidates(input: DiscoveryInput): InterpreterCandidate[] {
  return input.known.flatMap((candidate) => {
    const file = path.isAbsolute(candidate.path) ? candidate.path : findExecutable(candidate.path, input.env, input.platform);
    return file && isExecutableFile(file, input.platform) ? [{ ...candidate, path: file }] : [];
  });
}

export async function discoverInterpreters(input: DiscoveryInput): Promise<InterpreterCandidate[]> {
  const [venvs, conda] = await Promise.all([venvCandidates(input), condaCandidates(input)]);
  return mergeCandidates([...knownCandidates(input), ...venvs, ...conda, ...pathCandidates(input), ...systemCandidates(input)], sameFileKey);
}
