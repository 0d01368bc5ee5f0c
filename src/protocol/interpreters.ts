// The worker's interpreter discovery request: every interpreter found on this machine with
// what its PyTorch can do. Kept beside worker.ts (its own file: one feature, one set of types).
import { RequestType } from 'vscode-jsonrpc';
import type { Accelerator } from '../core/devices/report';
import type { DiscoveredInterpreter, InterpreterCandidate } from '../core/interpreters/model';

export interface InterpretersParams {
  /** Absolute paths of the workspace folders: searched for venvs, and untrusted in Restricted Mode. */
  workspaceFolders: string[];
  trusted: boolean;
  /** What only the editor knows: deviceDoctor.pythonPath (namedByWorkspace when a workspace setting names it) and the Python extension's environments. */
  known: InterpreterCandidate[];
  /** Per-probe timeout in milliseconds for every kind; absent: each kind's default (probeTimeouts.ts). */
  timeoutMs?: number;
}

export interface InterpretersResponse {
  interpreters: DiscoveredInterpreter[];
  /** The accelerators the capabilities are judged against (the last detect's, else a fresh look without PyTorch). */
  accelerators: Accelerator[];
}

export const InterpretersRequest = new RequestType<InterpretersParams, InterpretersResponse, void>('deviceDoctor/interpreters');
