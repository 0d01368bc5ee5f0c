// The PyTorch probe cache (src/worker/interpreters/probeCache.ts) on a made-up environment
// folder: an answer is reused while nothing that decides it changed, and dropped when the
// interpreter, its site-packages or torch's version file changes (an upgrade in place).
import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import type { ToolRun } from '../../src/core/devices/toolRun';
import { interpreterStamp, TorchProbeCache } from '../../src/worker/interpreters/probeCache';

function probeRun(version: string): ToolRun {
  const answer = { version, cuda: { built: false, available: false, version: null, deviceCount: 0, devices: [], cudnnVersion: null }, hip: null, mps: { built: false, available: false, allocates: false, error: null }, currentAccelerator: null, cudaVisibleDevices: null };
  return { exitCode: 0, stdout: `${JSON.stringify(answer)}\n`, stderr: '' };
}

/** Sets a file's modification time a whole minute away, as an install would (same size too). */
function touchLater(file: string, content: string): void {
  fs.writeFileSync(file, content);
  const later = new Date(fs.statSync(file).mtimeMs + 60_000);
  fs.utimesSync(file, later, later);
}

describe('TorchProbeCache', () => {
  let prefix: string;
  let python: string;
  let versionFile: string;

  beforeEach(() => {
    prefix = fs.mkdtempSync(path.join(os.tmpdir(), 'dd-probe-cache-'));
    python = path.join(prefix, 'bin', 'python');
    const torch = path.join(prefix, 'lib', 'python3.11', 'site-packages', 'torch');
    fs.mkdirSync(path.dirname(python), { recursive: true });
    fs.mkdirSync(torch, { recursive: true });
    fs.writeFileSync(python, '#!/bin/sh\n');
    versionFile = path.join(torch, 'version.py');
    fs.writeFileSync(versionFile, "__version__ = '2.4.0'\n");
  });
  afterEach(() => fs.rmSync(prefix, { recursive: true, force: true }));

  it('answers with the remembered run while nothing changed', () => {
    const cache = new TorchProbeCache();
    cache.remember(python, probeRun('2.4.0'), interpreterStamp(python));
    assert.deepStrictEqual(cache.run(python), probeRun('2.4.0'));
    const status = cache.status(python);
    assert.ok(status && !('error' in status), JSON.stringify(status));
    assert.deepStrictEqual([status.interpreter, status.version], [python, '2.4.0']);
  });

  it("probes again after torch is upgraded in place: only torch/version.py changed, not site-packages' listing", () => {
    const cache = new TorchProbeCache();
    cache.remember(python, probeRun('2.4.0'), interpreterStamp(python));
    const sitePackages = path.dirname(path.dirname(versionFile));
    const listingBefore = fs.statSync(sitePackages).mtimeMs;
    touchLater(versionFile, "__version__ = '2.5.1'\n");
    assert.strictEqual(fs.statSync(sitePackages).mtimeMs, listingBefore, 'the upgrade left the folder listing alone');
    assert.strictEqual(cache.run(python), undefined);
  });

  it('probes again when the interpreter is replaced or a package is installed beside torch', () => {
    const cache = new TorchProbeCache();
    cache.remember(python, probeRun('2.4.0'), interpreterStamp(python));
    touchLater(python, '#!/bin/sh\n');
    assert.strictEqual(cache.run(python), undefined, 'interpreter replaced');
    cache.remember(python, probeRun('2.4.0'), interpreterStamp(python));
    fs.mkdirSync(path.join(prefix, 'lib', 'python3.11', 'site-packages', 'numpy'));
    assert.strictEqual(cache.run(python), undefined, 'package installed');
  });

  it('keeps what was installed while the probe ran as a change: the stamp is the one from before', () => {
    const cache = new TorchProbeCache();
    const before = interpreterStamp(python);
    touchLater(versionFile, "__version__ = '2.5.1'\n");
    cache.remember(python, probeRun('2.4.0'), before);
    assert.strictEqual(cache.run(python), undefined);
  });

  it('does not remember a probe that hung or was cancelled, and forgets the earlier answer then', () => {
    const cache = new TorchProbeCache();
    cache.remember(python, probeRun('2.4.0'), interpreterStamp(python));
    cache.remember(python, { exitCode: null, stdout: '', stderr: '', errorCode: 'TIMEOUT', timeoutMs: 1000 }, interpreterStamp(python));
    assert.strictEqual(cache.run(python), undefined);
    cache.remember(python, { exitCode: null, stdout: '', stderr: '', errorCode: 'CANCELLED' }, interpreterStamp(python));
    assert.strictEqual(cache.run(python), undefined);
  });
});
