// The interpreters with PyTorch on this machine, for `detect` and `doctor`: discovery and a
// probe of each (the worker's code, in this process, sharing detect's gate and probe cache so that
// the chosen interpreter is imported once), then a few lines of text. The CLI has no Restricted Mode: the
// person typed the command in this folder, as they would type `.venv/bin/python`.
import * as os from 'os';
import { interpreterCapability, type Capability } from '../../core/interpreters/capability';
import { hasTorch, ORIGIN_TEXT, type DiscoveredInterpreter } from '../../core/interpreters/model';
import type { DeviceReport } from '../../core/devices/report';
import { torchCanUse } from '../../core/interpreters/usable';
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
}

export function findInterpreters(lookup: InterpreterLookup): Promise<DiscoveredInterpreter[]> {
  const ctx = { gate: lookup.gate, timeoutMs: lookup.timeoutMs, env: process.env, platform: process.platform, signal: lookup.signal, log: lookup.log };
  return probeInterpreters(
    { workspaceFolders: [lookup.cwd], trusted: true, known: [], env: process.env, platform: process.platform, homeDir: os.homedir(), signal: lookup.signal },
    { ctx, cache: lookup.cache },
  );
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
 * do better — the command line that uses it.
 */
export function interpretersSection(found: readonly DiscoveredInterpreter[], report: DeviceReport, command: 'detect' | 'doctor'): string[] {
  const rated = found.map((interpreter) => ({ interpreter, capability: interpreterCapability(interpreter, report.accelerators) }));
  const withTorch = rated.filter(({ interpreter }) => hasTorch(interpreter)).sort((a, b) => Number(b.capability.usesGpu) - Number(a.capability.usesGpu));
  const without = rated.filter(({ interpreter }) => !hasTorch(interpreter));
  const lines = ['Interpreters with PyTorch'];
  if (withTorch.length === 0) lines.push('  none found (looked at virtual environments here, conda environments, python3/python on PATH, /usr/bin/python3)');
  else lines.push(...pad(withTorch.map(({ interpreter, capability }) => [interpreter.path, capability.label, `(${originsText(interpreter)})`])).map((line) => `  ${line}`));
  if (without.length > 0) lines.push(`  Without PyTorch: ${without.map(({ interpreter }) => interpreter.path).join(', ')}`);
  const better = betterInterpreter(withTorch, report);
  if (better) lines.push(`  To use ${better}: device-doctor ${command} --python ${better}`);
  return lines;
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
