// The interpreters Device Doctor found on this machine and what each one's PyTorch can do.
// Plain data: the worker discovers and probes, the CLI and the editor show. No I/O here.
import type { TorchStatus } from '../devices/report';

/** Where an interpreter was found; one interpreter may be found in several places. */
export type InterpreterOrigin = 'setting' | 'python-extension' | 'conda' | 'venv' | 'path' | 'system';

export interface InterpreterCandidate {
  /** Absolute path of the executable. */
  path: string;
  origins: InterpreterOrigin[];
  /** A workspace setting names it: never run in Restricted Mode, wherever it lives. */
  namedByWorkspace?: boolean;
  /** Conda's environment name, or the venv's folder, for the pick's detail line. */
  environmentName?: string;
}

/**
 * Why an interpreter was listed but its PyTorch not asked: Restricted Mode, or (the CLI) a virtual
 * environment in the current folder, probed only with --discover since it runs that folder's code.
 */
export type NotProbedReason = 'untrusted' | 'needs-discover';

export interface DiscoveredInterpreter extends InterpreterCandidate {
  /** The probe's answer; null when it was not run (see notProbed). */
  torch: TorchStatus | null;
  notProbed: NotProbedReason | null;
}

export const ORIGIN_TEXT: Record<InterpreterOrigin, string> = {
  setting: 'deviceDoctor.pythonPath',
  'python-extension': 'Python extension',
  conda: 'conda environment',
  venv: 'virtual environment',
  path: 'on PATH',
  system: 'system interpreter',
};

/** The same executable found twice (PATH and the system one) is listed once, with both origins. */
export function mergeCandidates(candidates: readonly InterpreterCandidate[], sameFile: (path: string) => string = (p) => p): InterpreterCandidate[] {
  const byKey = new Map<string, InterpreterCandidate>();
  for (const candidate of candidates) {
    const key = sameFile(candidate.path);
    const known = byKey.get(key);
    if (!known) {
      byKey.set(key, { ...candidate, origins: [...candidate.origins] });
      continue;
    }
    for (const origin of candidate.origins) if (!known.origins.includes(origin)) known.origins.push(origin);
    known.namedByWorkspace = Boolean(known.namedByWorkspace || candidate.namedByWorkspace);
    known.environmentName ??= candidate.environmentName;
  }
  return [...byKey.values()];
}

/** True when the probe found an importable PyTorch. */
export function hasTorch(interpreter: DiscoveredInterpreter): boolean {
  return interpreter.torch !== null && !('error' in interpreter.torch);
}
