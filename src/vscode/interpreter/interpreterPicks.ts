// Choose Interpreter as plain data: the quick pick's items (path, what its PyTorch can do, where
// it was found), the scopes the choice can be saved at, and the sentence that says what was
// written where. No vscode import; chooseInterpreterCommand.ts shows them.
import { interpreterCapability, type CapabilityKind } from '../../core/interpreters/capability';
import { ORIGIN_TEXT, type DiscoveredInterpreter } from '../../core/interpreters/model';
import type { InterpretersResponse } from '../../protocol/interpreters';

export interface InterpreterPick {
  label: string;
  description: string;
  detail: string;
  path: string;
  capability: CapabilityKind;
}

/** Best first: can use the GPU, has PyTorch, then the rest; discovery order within each. */
const RANK: Record<CapabilityKind, number> = { gpu: 0, 'gpu-unusable': 1, 'cpu-only-beside-gpu': 1, cpu: 1, broken: 2, 'no-torch': 3, untrusted: 4 };

function origins(interpreter: DiscoveredInterpreter): string {
  return interpreter.origins
    .map((origin) => (origin === 'conda' && interpreter.environmentName ? `conda env ${interpreter.environmentName}` : origin === 'venv' && interpreter.environmentName ? `virtual environment ${interpreter.environmentName}` : ORIGIN_TEXT[origin]))
    .join(' · ');
}

export function interpreterPicks(response: InterpretersResponse, current: string | null): InterpreterPick[] {
  const picks = response.interpreters.map((interpreter, order) => {
    const capability = interpreterCapability(interpreter, response.accelerators);
    const pick: InterpreterPick = {
      label: interpreter.path === current ? `$(check) ${interpreter.path}` : interpreter.path,
      description: capability.label,
      detail: origins(interpreter) + (interpreter.path === current ? ' · in use now' : ''),
      path: interpreter.path,
      capability: capability.kind,
    };
    return { pick, order };
  });
  return picks.sort((a, b) => RANK[a.pick.capability] - RANK[b.pick.capability] || a.order - b.order).map(({ pick }) => pick);
}

export type PythonPathScope = 'workspace' | 'workspaceFolder' | 'global';

export interface ScopePick {
  label: string;
  description: string;
  scope: PythonPathScope;
}

export const SCOPE_TEXT: Record<PythonPathScope, string> = {
  workspace: 'workspace settings',
  workspaceFolder: 'workspace folder settings',
  global: 'user settings',
};

/**
 * Where the choice can go, the default first: the workspace (the interpreter belongs to the
 * project), or the user settings in Restricted Mode, where a workspace value is not used.
 */
export function scopePicks(facts: { hasWorkspace: boolean; multiRoot: boolean; trusted: boolean }): ScopePick[] {
  const user: ScopePick = { label: 'User', description: facts.trusted ? 'every folder you open' : 'every folder; the only one used in Restricted Mode', scope: 'global' };
  if (!facts.hasWorkspace) return [user];
  const workspace: ScopePick = { label: 'Workspace', description: facts.trusted ? 'this workspace only (default)' : 'this workspace, once trusted', scope: 'workspace' };
  const folder: ScopePick[] = facts.multiRoot ? [{ label: 'Workspace Folder', description: 'the first folder of this workspace', scope: 'workspaceFolder' }] : [];
  return facts.trusted ? [workspace, ...folder, user] : [user, workspace, ...folder];
}

/** `insideWorkspace`: the pick was listed untrusted, so even the user settings' value waits for trust. */
export function choiceMessage(pythonPath: string, scope: PythonPathScope, trusted: boolean, insideWorkspace = false): string {
  const ignored = !trusted && (scope !== 'global' || insideWorkspace) ? ' It takes effect once you trust this workspace.' : '';
  return `Device Doctor: set "deviceDoctor.pythonPath" to ${pythonPath} in the ${SCOPE_TEXT[scope]}.${ignored}`;
}
