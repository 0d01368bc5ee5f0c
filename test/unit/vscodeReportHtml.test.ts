// The device report view's HTML: a strict CSP, everything escaped, every section present.
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import type { DeviceReport } from '../../src/core/devices/report';
import { EMPTY_SNAPSHOT } from '../../src/vscode/devices/deviceSnapshot';
import type { DeviceSnapshot } from '../../src/vscode/devices/deviceSnapshot';
import {
  memoryUpdates, renderReportBody, renderReportPage, REPORT_ACTIONS, REPORT_TITLE,
} from '../../src/vscode/devices/deviceReportHtml';
import { contentSecurityPolicy, createNonce, escapeHtml } from '../../src/vscode/shared/html';

const GIB = 1024 ** 3;
const OPTIONS = { memoryWarningPercent: 90 };
const RESOURCES = {
  cspSource: 'https://file+.vscode-resource.vscode-cdn.net',
  nonce: 'n0nce',
  scriptUri: 'https://file+.vscode-resource.vscode-cdn.net/ext/media/deviceReport.js',
  styleUri: 'https://file+.vscode-resource.vscode-cdn.net/ext/media/deviceReport.css',
};

function report(): DeviceReport {
  return JSON.parse(fs.readFileSync(path.resolve(__dirname, '..', 'fixtures', 'fakeWorker', 'report.json'), 'utf8')) as DeviceReport;
}

function snapshot(r: DeviceReport | null = report(), extra: Partial<DeviceSnapshot> = {}): DeviceSnapshot {
  return { ...EMPTY_SNAPSHOT, report: r, ...extra };
}

/** Text content with tags removed and entities decoded, to check what a reader sees. */
function visibleText(html: string): string {
  return html.replace(/<[^>]+>/g, ' ').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&').replace(/\s+/g, ' ');
}

describe('vscode: the device report HTML', () => {
  it('escapes the five HTML characters', () => {
    assert.strictEqual(escapeHtml(`<a href="x" title='y'>&</a>`), '&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;');
  });

  it('has a strict CSP: nothing by default, the nonce\'d script, styles and images from the extension only', () => {
    const csp = contentSecurityPolicy(RESOURCES);
    assert.strictEqual(csp, `default-src 'none'; style-src ${RESOURCES.cspSource}; img-src ${RESOURCES.cspSource}; script-src 'nonce-n0nce'`);
    const page = renderReportPage(snapshot(), OPTIONS, RESOURCES);
    assert.ok(page.includes(`<meta http-equiv="Content-Security-Policy" content="${escapeHtml(csp)}">`));
    const scripts = [...page.matchAll(/<script\b[^>]*>/g)].map((m) => m[0]);
    assert.deepStrictEqual(scripts, [`<script nonce="n0nce" src="${RESOURCES.scriptUri}">`], 'one script, external, with the nonce');
    assert.ok(!/\sstyle=|<style|\son\w+=/i.test(page), 'no inline styles or event handlers');
    assert.ok(!/https?:\/\/(?!file\+\.vscode-resource)/.test(page), 'no network addresses');
    assert.match(page, new RegExp(`<title>${REPORT_TITLE}</title>`));
  });

  it('escapes a device name with <script> and every other report string', () => {
    const r = report();
    r.accelerators[0]!.name = '<script>alert(1)</script>';
    r.selected.reason = '"><img src=x onerror=alert(2)>';
    r.problems.push({ source: 'torch', code: 'x<y', message: '<b>bold</b>', hint: "it's & <i>" });
    r.host.cpu.model = '</dd><script>';
    const page = renderReportPage(snapshot(r), OPTIONS, RESOURCES);
    assert.ok(!page.includes('<script>alert(1)'), 'the name is not markup');
    assert.ok(page.includes('&lt;script&gt;alert(1)&lt;/script&gt;'));
    assert.ok(!page.includes('<img'), 'no injected image');
    assert.ok(!page.includes('<b>bold'), 'no injected markup from messages');
    assert.strictEqual([...page.matchAll(/<script\b/g)].length, 1, 'only the page\'s own script');
    const text = visibleText(page);
    assert.ok(text.includes('<script>alert(1)</script>'), 'a reader still sees the name as written');
    assert.ok(text.includes("it's & <i>"));
  });

  it('lists host, accelerators with memory bars and details, PyTorch, the selected device and why', () => {
    const body = renderReportBody(snapshot(), OPTIONS);
    const text = visibleText(body);
    for (const expected of [
      'Selected device', 'cuda:0 — CUDA is available to PyTorch', 'Problems', 'None found.',
      'cuda:0 · NVIDIA H200', '20.0/140.4 GiB · 37% utilization', 'Temperature 31 °C', 'Power 75.32 W',
      'Driver 580.159.04', 'CUDA (driver supports) 13.0', 'PCI bus 00000000:19:00.0',
      'PyTorch 2.11.0 · CUDA 13.0 available (1 device)', 'Interpreter /usr/bin/python3', 'CUDA built / available yes / yes',
      'Host', 'Platform linux (x64)', 'CPU AMD EPYC 9654', 'Cores 16', 'SIMD avx2 fma avx512f',
    ]) assert.ok(text.includes(expected), `missing "${expected}" in: ${text}`);
    assert.match(body, /<meter data-memory-id="cuda:0" min="0" max="150754820096" value="21474836480" low="\d+" high="135679338086" optimum="0"/);
    assert.match(body, /<meter data-memory-id="host" /);
  });

  it('shows the MPS allocation test only where MPS is built', () => {
    const withMps = (built: boolean): string => {
      const r = report();
      if (!('error' in r.torch!)) r.torch!.mps = { built, available: false, allocates: false, error: null };
      return visibleText(renderReportBody(snapshot(r), OPTIONS));
    };
    assert.ok(!withMps(false).includes('MPS allocation'), 'a CPU-only build has no MPS to allocate on');
    assert.ok(withMps(true).includes('MPS allocation fails'));
  });

  it('shows each problem with its hint as the remedy, and its code', () => {
    const r = report();
    r.problems = [{ source: 'torch', code: 'torch-cpu-only-build', message: 'PyTorch was not built with CUDA support', hint: 'install a CUDA build of PyTorch; this driver supports CUDA 12.4' }];
    const body = renderReportBody(snapshot(r), OPTIONS);
    assert.ok(body.includes('<li class="problem"><p class="message">PyTorch was not built with CUDA support</p><p class="hint">install a CUDA build of PyTorch; this driver supports CUDA 12.4</p>'));
    assert.ok(body.includes('<code>torch-cpu-only-build</code>'));
  });

  it('names the editor\'s way to choose another interpreter, not the CLI\'s --python (issue 28 item 11)', () => {
    const r = report();
    const hint = 'choose another interpreter (in the editor: Device Doctor: Choose Interpreter; on the command line: --python) or install PyTorch in this one (/usr/bin/python3 -m pip install torch)';
    r.problems = [{ source: 'torch', code: 'torch-missing', message: 'PyTorch is not installed in /usr/bin/python3', hint }];
    const text = visibleText(renderReportBody(snapshot(r), OPTIONS));
    assert.ok(text.includes('choose another interpreter (Device Doctor: Choose Interpreter) or install PyTorch in this one'), text);
    assert.ok(!text.includes('--python'), text);
  });

  it('lists MIG instances', () => {
    const r = report();
    r.accelerators[0]!.mig = [{ profile: '3g.20gb', deviceIndex: 0, uuid: 'MIG-aaaa' }, { profile: '1g.5gb', deviceIndex: 1, uuid: 'MIG-bbbb' }];
    const text = visibleText(renderReportBody(snapshot(r), OPTIONS));
    assert.ok(text.includes('MIG instances 3g.20gb · device 0 · MIG-aaaa 1g.5gb · device 1 · MIG-bbbb'), text);
  });

  it('explains a missing torch, Restricted Mode, a failed or running detection and a stopped worker', () => {
    const r = report();
    r.torch = { interpreter: '/usr/bin/python3', error: "No module named 'torch'" };
    assert.ok(visibleText(renderReportBody(snapshot(r), OPTIONS)).includes("PyTorch is not usable in /usr/bin/python3: No module named 'torch'"));
    const restricted = renderReportBody(snapshot({ ...report(), torch: null }, { interpreter: { pythonPath: null, source: 'none', note: 'Restricted Mode: PyTorch is not probed' } }), OPTIONS);
    assert.ok(visibleText(restricted).includes('PyTorch was not probed'));
    assert.ok(visibleText(restricted).includes('Interpreter Restricted Mode: PyTorch is not probed'));
    assert.match(renderReportBody(snapshot(null, { probing: true }), OPTIONS), /class="status busy">Detecting devices…/);
    assert.match(renderReportBody(snapshot(null, { detectError: 'timed out' }), OPTIONS), /class="status error">Detection failed: timed out/);
    assert.match(renderReportBody(snapshot(report(), { workerStopped: 'crashed 5 times' }), OPTIONS), /class="status error">crashed 5 times/);
    assert.match(renderReportBody(snapshot(null), OPTIONS), /No device report yet/);
  });

  it('says so when there is no accelerator', () => {
    const r = { ...report(), accelerators: [] };
    assert.match(renderReportBody(snapshot(r), OPTIONS), /No GPU or other accelerator was found/);
  });

  it('offers the actions as buttons that post a message, including Copy report as JSON', () => {
    const page = renderReportPage(snapshot(), OPTIONS, RESOURCES);
    assert.deepStrictEqual(Object.values(REPORT_ACTIONS), ['Detect Again', 'Select Device', 'Choose Interpreter', 'Copy report as JSON', 'Show Log']);
    for (const [action, title] of Object.entries(REPORT_ACTIONS)) {
      assert.ok(page.includes(`<button type="button" data-action="${action}">${title}</button>`), action);
    }
  });

  it('sends live memory per meter, from samples, with the warning flag', () => {
    const s = snapshot(report(), { samples: { 'cuda:0': { id: 'cuda:0', usedBytes: 130 * GIB, totalBytes: 140 * GIB, utilizationPercent: 99, time: 1 } } });
    const updates = memoryUpdates(s, OPTIONS);
    assert.deepStrictEqual(updates.map((u) => [u.id, u.text, u.warn]), [['cuda:0', '130.0/140 GiB · 99% utilization', true], ['host', '5.2/24 GiB', false]]);
    assert.deepStrictEqual(memoryUpdates(snapshot(null), OPTIONS), []);
  });

  it('makes a different, unguessable nonce each time', () => {
    const a = createNonce();
    const b = createNonce();
    assert.notStrictEqual(a, b);
    assert.match(a, /^[A-Za-z0-9+/]{24}$/);
  });
});
