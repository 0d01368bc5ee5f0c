// Who uses the GPU in the device report's table and the status bar tooltip.
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import type { DeviceReport } from '../../src/core/devices/report';
import type { GpuProcess } from '../../src/protocol/worker';
import { EMPTY_SNAPSHOT } from '../../src/vscode/devices/deviceSnapshot';
import { renderReportBody } from '../../src/vscode/devices/deviceReportHtml';
import { processTableHtml, processTooltipLines } from '../../src/vscode/devices/gpuProcessViews';
import { renderStatusBar } from '../../src/vscode/devices/statusBarView';

const GIB = 1024 ** 3;
const OPTIONS = { memoryWarningPercent: 90 };

function h200Report(): DeviceReport {
  return JSON.parse(fs.readFileSync(path.resolve(__dirname, '..', 'fixtures', 'fakeWorker', 'report.json'), 'utf8')) as DeviceReport;
}

function process(pid: number, extra: Partial<GpuProcess> = {}): GpuProcess {
  return { pid, deviceId: 'cuda:0', mig: null, usedBytes: 20 * GIB, name: 'python', user: 'ada', commandLine: 'python train.py', fromThisWindow: false, visible: true, ...extra };
}

const PROCESSES = [
  process(4821, { usedBytes: 90 * GIB, commandLine: 'python train.py --lr 3e-4', fromThisWindow: true }),
  process(907, { usedBytes: 30 * GIB, user: 'root', commandLine: 'python -m vllm.entrypoints.api_server' }),
  process(4194301, { usedBytes: 8 * GIB, user: null, commandLine: null, visible: false }),
  process(4194302, { usedBytes: null, user: null, commandLine: null, visible: false }),
];

describe('vscode: who uses the GPU', () => {
  it('shows a table row per process: pid, device, memory, user, command, and the window mark', () => {
    const html = processTableHtml(PROCESSES);
    const rows = [...html.matchAll(/<tr( class="mine")?>(.*?)<\/tr>/g)].slice(1);
    assert.strictEqual(rows.length, 4);
    assert.strictEqual(rows[0][1], ' class="mine"');
    assert.match(rows[0][2], /<td class="num">4821<\/td><td>cuda:0<\/td><td class="num">90\.0 GiB<\/td><td>ada<\/td><td><code>python train\.py --lr 3e-4<\/code><\/td><td><span class="badge">this window<\/span><\/td>/);
    assert.match(rows[2][2], /<td>another container<\/td><td><code>python<\/code>/);
    assert.match(rows[3][2], /<td class="num">unknown<\/td>/);
    assert.match(html, /another container or PID namespace/);
  });

  it('escapes command lines, says when nothing uses the GPU, and when the list is not known yet', () => {
    assert.ok(processTableHtml([process(1, { commandLine: '<img src=x onerror=alert(1)>' })]).includes('&lt;img src=x onerror=alert(1)&gt;'));
    assert.match(processTableHtml([]), /No process is using a GPU/);
    assert.match(processTableHtml(null), /Not known yet/);
  });

  it('puts the section in the report of a machine with an NVIDIA GPU', () => {
    const body = renderReportBody({ ...EMPTY_SNAPSHOT, report: h200Report(), processes: PROCESSES }, OPTIONS);
    assert.match(body, /<h2>Processes using the GPU<\/h2><table class="processes">/);
  });

  it('names the three biggest processes in the tooltip, with the window\'s marked, and counts the rest', () => {
    const lines = processTooltipLines(PROCESSES)!.split('\n');
    assert.deepStrictEqual(lines, [
      'GPU processes:',
      '',
      '- 90\\.0 GiB on cuda:0 · python train\\.py \\-\\-lr 3e\\-4 · ada · pid 4821 · **this window**',
      '- 30\\.0 GiB on cuda:0 · python \\-m vllm\\.entrypoints\\.api\\_server · root · pid 907',
      '- 8\\.0 GiB on cuda:0 · python · another container · pid 4194301',
      '- … and 1 more (Show Device Report)',
    ]);
    assert.strictEqual(processTooltipLines([]), null);
    const tooltip = renderStatusBar({ ...EMPTY_SNAPSHOT, report: h200Report(), processes: PROCESSES }, OPTIONS).tooltip;
    assert.ok(tooltip.includes('pid 4821 · **this window**'), tooltip);
  });
});
