// Choose Interpreter's items, scopes and message, as plain data.
import * as assert from 'assert';
import type { Accelerator, TorchStatus } from '../../src/core/devices/report';
import type { DiscoveredInterpreter } from '../../src/core/interpreters/model';
import { choiceMessage, interpreterPicks, scopePicks } from '../../src/vscode/interpreter/interpreterPicks';

const H200: Accelerator = {
  id: 'cuda:0', vendor: 'nvidia', api: 'cuda', name: 'NVIDIA H200', uuid: null, pciBusId: null,
  memory: { totalBytes: null, usedBytes: null, freeBytes: null }, utilizationPercent: null, temperatureC: null, powerW: null,
  driverVersion: '550.54', cudaVersion: '12.4', mig: [],
};
const CUDA: TorchStatus = { interpreter: '/c/envs/torch/bin/python', version: '2.5.1+cu124', cuda: { built: true, available: true, version: '12.4', deviceCount: 1 }, mps: { built: false, available: false } };
const CPU: TorchStatus = { interpreter: '/usr/bin/python3', version: '2.5.1+cpu', cuda: { built: false, available: false, version: null, deviceCount: 0 }, mps: { built: false, available: false } };

const found: DiscoveredInterpreter[] = [
  { path: '/home/u/.pyenv/shims/python3', origins: ['path'], torch: { interpreter: '/home/u/.pyenv/shims/python3', error: "No module named 'torch'" }, notProbed: null },
  { path: '/w/.venv/bin/python', origins: ['venv'], environmentName: '.venv', torch: null, notProbed: 'untrusted' },
  { path: '/usr/bin/python3', origins: ['path', 'system'], torch: CPU, notProbed: null },
  { path: '/c/envs/torch/bin/python', origins: ['conda'], environmentName: 'torch', torch: CUDA, notProbed: null },
];

describe('vscode: Choose Interpreter picks', () => {
  it('each item is the path, what its PyTorch can do, and where it was found; the GPU-capable first, the untrusted last', () => {
    const picks = interpreterPicks({ interpreters: found, accelerators: [H200] }, '/home/u/.pyenv/shims/python3');
    assert.deepStrictEqual(picks.map((p) => [p.label, p.description, p.detail]), [
      ['/c/envs/torch/bin/python', 'torch 2.5.1 · CUDA 12.4 · can use cuda:0', 'conda env torch'],
      ['/usr/bin/python3', 'torch 2.5.1 · CPU-only build beside an NVIDIA GPU', 'on PATH · system interpreter'],
      ['$(check) /home/u/.pyenv/shims/python3', 'no PyTorch', 'on PATH · in use now'],
      ['/w/.venv/bin/python', 'not probed: untrusted', 'virtual environment .venv'],
    ]);
    assert.strictEqual(picks[2].path, '/home/u/.pyenv/shims/python3', 'the check mark is not part of the path written');
  });

  it('saves at the workspace by default; in Restricted Mode at the user level, the only one used there', () => {
    assert.deepStrictEqual(scopePicks({ hasWorkspace: true, multiRoot: false, trusted: true }).map((s) => s.scope), ['workspace', 'global']);
    assert.deepStrictEqual(scopePicks({ hasWorkspace: true, multiRoot: true, trusted: true }).map((s) => s.scope), ['workspace', 'workspaceFolder', 'global']);
    assert.deepStrictEqual(scopePicks({ hasWorkspace: true, multiRoot: false, trusted: false }).map((s) => s.scope), ['global', 'workspace']);
    assert.deepStrictEqual(scopePicks({ hasWorkspace: false, multiRoot: false, trusted: true }).map((s) => s.scope), ['global']);
  });

  it('the notification names the setting, the value and the scope, and says when Restricted Mode ignores it', () => {
    assert.strictEqual(choiceMessage('/usr/bin/python3', 'workspace', true), 'Device Doctor: set "deviceDoctor.pythonPath" to /usr/bin/python3 in the workspace settings.');
    assert.strictEqual(choiceMessage('/usr/bin/python3', 'global', false), 'Device Doctor: set "deviceDoctor.pythonPath" to /usr/bin/python3 in the user settings.');
    assert.match(choiceMessage('/usr/bin/python3', 'workspace', false), /in the workspace settings\. It takes effect once you trust this workspace\.$/);
    assert.match(choiceMessage('/w/.venv/bin/python', 'global', false, true), /in the user settings\. It takes effect once you trust this workspace\.$/, 'a workspace interpreter in the user settings still waits for trust');
  });
});
