// The status bar's render function: snapshot in, text/colour/tooltip out, for many states.
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import type { Accelerator, DeviceReport, TorchStatus } from '../../src/core/devices/report';
import type { MemorySample } from '../../src/protocol/worker';
import { COMMANDS } from '../../src/vscode/shared/commandIds';
import { EMPTY_SNAPSHOT } from '../../src/vscode/devices/deviceSnapshot';
import type { DeviceSnapshot } from '../../src/vscode/devices/deviceSnapshot';
import { RESTRICTED_NOTE } from '../../src/vscode/interpreter/interpreterChoice';
import { GPU_UNUSABLE_TEXT, renderStatusBar, TOOLTIP_COMMANDS } from '../../src/vscode/devices/statusBarView';

const GIB = 1024 ** 3;
const OPTIONS = { memoryWarningPercent: 90 };

function h200Report(): DeviceReport {
  const file = path.resolve(__dirname, '..', 'fixtures', 'fakeWorker', 'report.json');
  return JSON.parse(fs.readFileSync(file, 'utf8')) as DeviceReport;
}

/** The tooltip as a reader sees it: Markdown escapes removed. */
function plain(markdown: string): string {
  return markdown.replace(/\\(.)/g, '$1');
}

function withReport(report: DeviceReport, extra: Partial<DeviceSnapshot> = {}): DeviceSnapshot {
  return { ...EMPTY_SNAPSHOT, report, ...extra };
}

function sample(id: string, usedGiB: number, totalGiB: number, utilizationPercent: number | null = null): MemorySample {
  return { id, usedBytes: Math.round(usedGiB * GIB), totalBytes: Math.round(totalGiB * GIB), utilizationPercent, time: 0 };
}

const CPU_TORCH: TorchStatus = {
  interpreter: '/usr/bin/python3', version: '1.13.1',
  cuda: { built: false, available: false, version: null, deviceCount: 0 },
  mps: { built: false, available: false },
};

function cpuOnly(report: DeviceReport, torch: TorchStatus | null = CPU_TORCH): DeviceReport {
  return { ...report, torch, selected: { device: 'cpu', reason: 'no accelerator is available to PyTorch' } };
}

function appleReport(): DeviceReport {
  const base = h200Report();
  const mps: Accelerator = {
    id: 'mps', vendor: 'apple', api: 'mps', name: 'Apple M2', uuid: null, pciBusId: null,
    memory: { totalBytes: 16 * GIB, usedBytes: null, freeBytes: null },
    utilizationPercent: null, temperatureC: null, powerW: null, driverVersion: null, cudaVersion: null, mig: [],
  };
  return {
    ...base,
    host: { ...base.host, platform: 'darwin', arch: 'arm64', memory: { totalBytes: 16 * GIB, freeBytes: 6 * GIB } },
    accelerators: [mps],
    torch: { interpreter: '/opt/homebrew/bin/python3', version: '2.5.0', cuda: { built: false, available: false, version: null, deviceCount: 0 }, mps: { built: true, available: true, allocates: true } },
    selected: { device: 'mps', reason: 'MPS is available to PyTorch' },
  };
}

describe('statusBar: the render function', () => {
  it('shows the selected CUDA device with its short name and the report\'s memory', () => {
    const view = renderStatusBar(withReport(h200Report()), OPTIONS);
    assert.strictEqual(view.text, '$(chip) cuda:0 H200 · 20.0/140.4 GiB');
    assert.strictEqual(view.background, undefined);
    assert.strictEqual(view.accessibilityLabel, 'Device Doctor: cuda:0 H200, 20.0/140.4 GiB used');
  });

  it('prefers the newest memory sample over the report', () => {
    const view = renderStatusBar(withReport(h200Report(), { samples: { 'cuda:0': sample('cuda:0', 70.2, 140.4) } }), OPTIONS);
    assert.strictEqual(view.text, '$(chip) cuda:0 H200 · 70.2/140.4 GiB');
  });

  it('turns the warning colour on when memory use reaches the threshold', () => {
    const at = (used: number, threshold: number) =>
      renderStatusBar(withReport(h200Report(), { samples: { 'cuda:0': sample('cuda:0', used, 100) } }), { memoryWarningPercent: threshold });
    assert.strictEqual(at(89.9, 90).background, undefined);
    assert.strictEqual(at(90, 90).background, 'warning');
    assert.strictEqual(at(60, 50).background, 'warning', 'the threshold is a setting');
    assert.match(at(95, 90).accessibilityLabel, /memory almost full/);
  });

  it('shows CPU with host memory when PyTorch runs on the CPU of a machine without a GPU', () => {
    const report = { ...cpuOnly(h200Report()), accelerators: [] };
    const view = renderStatusBar(withReport(report), OPTIONS);
    assert.strictEqual(view.text, '$(chip) CPU · 5.2/24 GiB');
    assert.strictEqual(view.background, undefined);
    const live = renderStatusBar(withReport(report, { samples: { cpu: sample('cpu', 23, 23.4) } }), OPTIONS);
    assert.strictEqual(live.text, '$(chip) CPU · 23.0/23.4 GiB');
    assert.strictEqual(live.background, 'warning');
  });

  it('shows MPS with unified memory, live from the host sample', () => {
    assert.strictEqual(renderStatusBar(withReport(appleReport()), OPTIONS).text, '$(chip) MPS · ?/16 GiB');
    const live = renderStatusBar(withReport(appleReport(), { samples: { cpu: sample('cpu', 9.8, 16) } }), OPTIONS);
    assert.strictEqual(live.text, '$(chip) MPS · 9.8/16 GiB');
  });

  it('warns when a GPU is present but PyTorch cannot use it', () => {
    const view = renderStatusBar(withReport(cpuOnly(h200Report())), OPTIONS);
    assert.strictEqual(view.text, `$(warning) ${GPU_UNUSABLE_TEXT}`);
    assert.strictEqual(view.background, 'warning');
    assert.strictEqual(view.accessibilityLabel, "Device Doctor: GPU present, PyTorch can't use it");
  });

  it('says PyTorch is missing from the interpreter, in the warning colour, and its click opens Choose Interpreter', () => {
    const view = renderStatusBar(withReport(cpuOnly(h200Report(), { interpreter: '/usr/bin/python3', error: "No module named 'torch'" })), OPTIONS);
    assert.strictEqual(view.text, '$(warning) No PyTorch in python3');
    assert.strictEqual(view.background, 'warning');
    assert.strictEqual(view.command, COMMANDS.chooseInterpreter);
    assert.match(plain(view.tooltip), /PyTorch is not usable in \/usr\/bin\/python3: No module named 'torch'/);
    assert.match(view.tooltip, /\[Choose Interpreter\]\(command:deviceDoctor\.chooseInterpreter /);
    // A finished sentence (issue 28 item 11: it ended "a PyTorch that can").
    assert.match(plain(view.tooltip), /another Python may have a PyTorch that can use the GPU/);
  });

  it('says so without a GPU too: no PyTorch is worth a warning on any machine', () => {
    const report = { ...cpuOnly(h200Report(), { interpreter: '/opt/venv/bin/python', error: "No module named 'torch'" }), accelerators: [] };
    const view = renderStatusBar(withReport(report), OPTIONS);
    assert.strictEqual(view.text, '$(warning) No PyTorch in python');
    assert.strictEqual(view.command, COMMANDS.chooseInterpreter);
  });

  it('a healthy report opens the device report when clicked, and a torch that fails to import is not called missing', () => {
    assert.strictEqual(renderStatusBar(withReport(h200Report()), OPTIONS).command, COMMANDS.showDeviceReport);
    const broken = renderStatusBar(withReport(cpuOnly(h200Report(), { interpreter: '/usr/bin/python3', error: 'OSError: libcudnn.so.9: cannot open shared object file' })), OPTIONS);
    assert.strictEqual(broken.text, `$(warning) ${GPU_UNUSABLE_TEXT}`);
    assert.strictEqual(broken.command, COMMANDS.showDeviceReport);
  });

  it('does not warn when the user pinned the CPU although PyTorch could use the GPU', () => {
    const report = { ...h200Report(), selected: { device: 'cpu', reason: 'pinned by deviceDoctor.device' } };
    assert.strictEqual(renderStatusBar(withReport(report), OPTIONS).text, '$(chip) CPU · 5.2/24 GiB');
  });

  it('does not claim PyTorch cannot use the GPU when PyTorch was not probed (Restricted Mode)', () => {
    const snapshot = withReport(cpuOnly(h200Report(), null), { interpreter: { pythonPath: null, source: 'none', note: RESTRICTED_NOTE } });
    const view = renderStatusBar(snapshot, OPTIONS);
    assert.strictEqual(view.text, '$(chip) CPU · 5.2/24 GiB');
    assert.match(plain(view.tooltip), /PyTorch was not probed/);
    assert.ok(plain(view.tooltip).includes(RESTRICTED_NOTE));
  });

  it('spins while probing: before the first report, and over a stale one', () => {
    const first = renderStatusBar({ ...EMPTY_SNAPSHOT, probing: true }, OPTIONS);
    assert.strictEqual(first.text, '$(sync~spin) Detecting devices…');
    assert.strictEqual(first.background, undefined);
    const again = renderStatusBar(withReport(h200Report(), { probing: true }), OPTIONS);
    assert.strictEqual(again.text, '$(sync~spin) cuda:0 H200 · 20.0/140.4 GiB');
    assert.match(again.tooltip, /Detecting devices…/);
  });

  it('says so when the first detection failed', () => {
    const view = renderStatusBar({ ...EMPTY_SNAPSHOT, detectError: 'The Device Doctor worker did not answer "detect" within 60 s.' }, OPTIONS);
    assert.strictEqual(view.text, '$(warning) Device detection failed');
    assert.strictEqual(view.background, 'warning');
    assert.match(plain(view.tooltip), /did not answer "detect" within 60 s\./);
  });

  it('shows an error colour when the worker was given up after crashes', () => {
    const view = renderStatusBar(withReport(h200Report(), { workerStopped: 'The Device Doctor worker crashed 5 times in the last 3 minutes' }), OPTIONS);
    assert.strictEqual(view.text, '$(error) Device Doctor: worker stopped');
    assert.strictEqual(view.background, 'error');
    assert.match(view.tooltip, /crashed 5 times/);
    assert.match(view.tooltip, /\[Restart Worker\]\(command:deviceDoctor\.restartWorker /);
  });

  it('lists every device with memory, utilization and temperature, PyTorch and the problems in the tooltip', () => {
    const report = h200Report();
    report.accelerators.push({ ...report.accelerators[0]!, id: 'cuda:1', name: 'NVIDIA GeForce RTX 4070', utilizationPercent: null, temperatureC: 41,
      memory: { totalBytes: 12282 * 1024 ** 2, usedBytes: 11800 * 1024 ** 2, freeBytes: null } });
    report.problems.push({ source: 'torch', code: 'driver-too-old', message: 'The driver supports CUDA 12.4, this PyTorch needs 13.0', hint: 'update the driver' });
    const tooltip = renderStatusBar(withReport(report, { samples: { 'cuda:0': sample('cuda:0', 20, 140.4, 37) } }), OPTIONS).tooltip;
    const lines = tooltip.split('\n');
    assert.ok(lines.includes('| cuda:0 NVIDIA H200 | 20\\.0/140\\.4 GiB | 37% | 31 °C |'), tooltip);
    assert.ok(lines.includes('| cuda:1 NVIDIA GeForce RTX 4070 | $(warning) 11\\.5/12\\.0 GiB | — | 41 °C |'), tooltip);
    assert.ok(lines.some((l) => l.startsWith('| cpu AMD EPYC 9654 \\(16 cores\\) | 5\\.2/24 GiB |')), tooltip);
    assert.match(tooltip, /PyTorch 2\\\.11\\\.0 · CUDA 13\\\.0 available \\\(1 device\\\)/);
    assert.match(tooltip, /Selected: \*\*cuda:0\*\* — CUDA is available to PyTorch/);
    assert.match(tooltip, /- \$\(warning\) The driver supports CUDA 12\\\.4, this PyTorch needs 13\\\.0 — update the driver/);
  });

  it('links exactly the trusted commands, and every one is a Device Doctor command', () => {
    const tooltip = renderStatusBar(withReport(h200Report()), OPTIONS).tooltip;
    const linked = [...tooltip.matchAll(/\]\(command:([\w.]+)/g)].map((m) => m[1]);
    assert.deepStrictEqual(linked, [...TOOLTIP_COMMANDS]);
    assert.deepStrictEqual(linked, [COMMANDS.detect, COMMANDS.selectDevice, COMMANDS.chooseInterpreter, COMMANDS.showLog, COMMANDS.restartWorker]);
  });

  it('a problem\'s hint names the editor\'s Choose Interpreter, not the CLI\'s --python (issue 28 item 11)', () => {
    const report = h200Report();
    report.problems.push({ source: 'torch', code: 'torch-missing', message: 'PyTorch is not installed in python3', hint: 'choose another interpreter (in the editor: Device Doctor: Choose Interpreter; on the command line: --python) or install PyTorch in this one (python3 -m pip install torch)' });
    const tooltip = plain(renderStatusBar(withReport(report), OPTIONS).tooltip);
    assert.ok(tooltip.includes('choose another interpreter (Device Doctor: Choose Interpreter) or install PyTorch'), tooltip);
    assert.ok(!tooltip.includes('--python'), tooltip);
  });

  it('escapes names and messages so they cannot inject links, tables or icons', () => {
    const report = h200Report();
    report.accelerators[0]!.name = 'Evil | [click](command:workbench.action.terminal.new) <img src=x> $(bug)';
    report.problems.push({ source: 'nvidia-smi', code: 'x', message: 'line one\nline two', hint: '*bold*' });
    const view = renderStatusBar(withReport(report), OPTIONS);
    assert.ok(!view.tooltip.includes('](command:workbench'), 'no foreign command link');
    assert.ok(!/[^\\]<img/.test(view.tooltip), 'no raw HTML');
    assert.ok(!/[^\\]\$\(bug\)/.test(view.tooltip), 'no icon from a name');
    assert.match(view.tooltip, /Evil \\\| \\\[click\\\]/);
    assert.match(view.tooltip, /line one line two — \\\*bold\\\*/);
    assert.ok(!view.text.includes('$(bug)'), `status bar text: ${view.text}`);
  });

  it('without anything yet: a plain item whose tooltip still offers the commands', () => {
    const view = renderStatusBar(EMPTY_SNAPSHOT, OPTIONS);
    assert.strictEqual(view.text, '$(chip) Device Doctor');
    assert.match(view.tooltip, /No device report yet\./);
    assert.match(view.tooltip, /\[Detect Accelerators\]\(command:deviceDoctor\.detectAccelerators/);
  });

  it('shows worker problems such as a hung nvidia-smi', () => {
    const view = renderStatusBar(withReport(h200Report(), { workerProblems: [{ source: 'nvidia-smi', message: 'killed after 10 s without an answer' }] }), OPTIONS);
    assert.match(view.tooltip, /\$\(warning\) nvidia\\-smi: killed after 10 s without an answer/);
  });

  it('leaves memory out when neither number is known', () => {
    const report = h200Report();
    report.accelerators[0]!.memory = { totalBytes: null, usedBytes: null, freeBytes: null };
    assert.strictEqual(renderStatusBar(withReport(report), OPTIONS).text, '$(chip) cuda:0 H200');
  });

  it('names a pinned device the report does not know by its id', () => {
    const report = { ...h200Report(), selected: { device: 'cuda:3', reason: 'pinned' } };
    assert.strictEqual(renderStatusBar(withReport(report), OPTIONS).text, '$(chip) cuda:3 · 5.2/24 GiB');
  });
});
