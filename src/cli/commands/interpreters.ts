// The interpreters with PyTorch on this machine, for `detect` and `doctor`: discovery and a
// probe of each (the worker's code, in this process, sharing detect's gate and probe cache so that
// the chosen interpreter is imported once), then a few lines of text. The CLI has no Workspace
// Trust to ask, and people run it in folders they have just cloned (and CI runs it on pull
// requests): a virtual environment under the current folder is that folder's code, so it is only
// listed, never run, unless --discover asks for it. What the person's own setup names (PATH,
// conda's list, /usr/bin/python3, --python) is probed as before.
import * as os from 'os';
import * as path from 'path';
import { interpreterCapability, type Capability } from '../../core/interpreters/capability';
import { hasTorch, ORIGIN_TEXT, type DiscoveredInterpreter } from '../../core/interpreters/model';
import type { DeviceReport } from '../../core/devices/report';
import { isInside } from '../../core/paths/containment';
import { torchCanUse } from '../../core/interpreters/usable';
import { realPathOrSelf, sameFileKey } from '../../node/interpreters/discover';
import { findWorkspaceVenvs, venvInterpreter } from '../../node/interpreters/workspaceVenvs';
import type { ProbeGate } from '../../worker/detect/probes/probeGate';
import type { LogFn } from '../../worker/detect/probes/probeContext';
import { probeInterpreters } from '../../worker/interpreters/probeInterpreters';
import type { TorchProbeCache } from '../../worker/interpreters/probeCache';

export interface InterpreterLookup {
  cwd: string;
  gate: ProbeGate;
  timeoutMs?: number;
  log: LogFn;
  signal?: AbortSignal;
  /** Shared with detect: the interpreter both probe is imported once, even when its probe has finished. */
  cache?: TorchProbeCache;
  /** --discover: probe the virtual environments under cwd too. */
  discover?: boolean;
}

export async function findInterpreters(lookup: InterpreterLookup): Promise<DiscoveredInterpreter[]> {
  const ctx = { gate: lookup.gate, timeoutMs: lookup.timeoutMs, env: process.env, platform: process.platform, signal: lookup.signal, log: lookup.log };
  const [probed, venvs] = await Promise.all([
    probeInterpreters(
      // No workspace folder, no walk: without --discover nothing under cwd is found to be run.
      { workspaceFolders: lookup.discover ? [lookup.cwd] : [], trusted: true, known: [], env: process.env, platform: process.platform, homeDir: os.homedir(), signal: lookup.signal },
      { ctx, cache: lookup.cache },
    ),
    lookup.discover ? [] : findWorkspaceVenvs([lookup.cwd]),
  ]);
  return [...probed, ...venvsNotProbed(venvs, probed)];
}

/**
 * The virtual environments under cwd, listed so the output can name what --discover would add;
 * only the file system is read. One whose interpreter was probed anyway (an activated venv is on
 * PATH, and detect runs python3 from PATH) is not listed again.
 */
function venvsNotProbed(venvs: readonly string[], probed: readonly DiscoveredInterpreter[]): DiscoveredInterpreter[] {
  const probedFiles = probed.map((interpreter) => sameFileKey(interpreter.path));
  return venvs.flatMap((venv) => {
    const interpreter = venvInterpreter(venv, process.platform);
    const real = realPathOrSelf(venv);
    if (!interpreter || probedFiles.some((file) => isInside(file, real))) return [];
    return [{ path: interpreter, origins: ['venv' as const], environmentName: path.basename(venv), torch: null, notProbed: 'needs-discover' as const }];
  });
}

function originsText(interpreter: DiscoveredInterpreter): string {
  const origins = interpreter.origins.map((origin) => (origin === 'conda' && interpreter.environmentName ? `conda env ${interpreter.environmentName}` : ORIGIN_TEXT[origin]));
  return origins.join(', ');
}

function pad(rows: string[][]): string[] {
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)));
  return rows.map((row) => row.map((cell, column) => cell.padEnd(widths[column])).join('  ').trimEnd());
}

/**
 * "Interpreters with PyTorch", one line each (those that can use a GPU first), the others in one
 * line, and — when the report's interpreter has no PyTorch or cannot use the GPU and another can
 * do better — the command line that uses it. Without --discover (`discovered` false), a line
 * says that the virtual environments here were not probed, naming those found.
 */
export function interpretersSection(found: readonly DiscoveredInterpreter[], report: DeviceReport, command: 'detect' | 'doctor', discovered: boolean): string[] {
  const skipped = found.filter((interpreter) => interpreter.notProbed === 'needs-discover');
  const rated = found.filter((interpreter) => !skipped.includes(interpreter)).map((interpreter) => ({ interpreter, capability: interpreterCapability(interpreter, report.accelerators) }));
  const withTorch = rated.filter(({ interpreter }) => hasTorch(interpreter)).sort((a, b) => Number(b.capability.usesGpu) - Number(a.capability.usesGpu));
  const without = rated.filter(({ interpreter }) => !hasTorch(interpreter));
  const lines = ['Interpreters with PyTorch'];
  if (withTorch.length === 0) lines.push(`  none found (looked at ${discovered ? 'virtual environments here, ' : ''}conda environments, python3/python on PATH, /usr/bin/python3)`);
  else lines.push(...pad(withTorch.map(({ interpreter, capability }) => [interpreter.path, capability.label, `(${originsText(interpreter)})`])).map((line) => `  ${line}`));
  if (without.length > 0) lines.push(`  Without PyTorch: ${without.map(({ interpreter }) => interpreter.path).join(', ')}`);
  if (!discovered) lines.push(notDiscoveredLine(skipped, command));
  const better = betterInterpreter(withTorch, report);
  if (better) lines.push(`  To use ${better}: device-doctor ${command} --python ${better}`);
  return lines;
}

/** Running a folder's own environments runs its code: they are named, and the flag that probes them. */
function notDiscoveredLine(skipped: readonly DiscoveredInterpreter[], command: 'detect' | 'doctor'): string {
  const how = `run 'device-doctor ${command} --discover' to include them`;
  if (skipped.length === 0) return `  Workspace environments (virtual environments in this folder) are not probed: ${how}`;
  return `  Not probed, as they run this folder's code: ${skipped.map((interpreter) => interpreter.path).join(', ')} (${how})`;
}

function betterInterpreter(withTorch: readonly { interpreter: DiscoveredInterpreter; capability: Capability }[], report: DeviceReport): string | null {
  const current = report.torch;
  const currentPath = current?.interpreter;
  const others = withTorch.filter(({ interpreter }) => interpreter.path !== currentPath);
  if (current === null || others.length === 0) return null;
  if ('error' in current) return others[0].interpreter.path;
  const gpu = others.find(({ capability }) => capability.usesGpu);
  return gpu && !torchCanUse(current) ? gpu.interpreter.path : null;
}
