// The line-streaming process runner bench.py runs under: lines as they arrive, whatever the
// chunking; silence before and after the first line; a runaway line; the end of stderr;
// a command that does not exist; and an abort that kills the whole process group.
import * as assert from 'assert';
import { killLineProcesses, runLineProcess, type LineProcessOptions } from '../../src/node/lineProcess';
import { isRunning } from './benchTorchKit';
import { waitFor } from './workerTestKit';

function node(script: string, options: Partial<LineProcessOptions> = {}) {
  const lines: string[] = [];
  const done = runLineProcess(process.execPath, ['-e', script], { firstLineTimeoutMs: 10_000, silenceTimeoutMs: 10_000, onLine: (l) => lines.push(l), ...options });
  return { lines, done };
}

describe('worker: line process (bench.py runner)', function () {
  this.timeout(20_000);

  it('hands over whole lines however the output is chunked, CRLF and a last line without newline included', async () => {
    const script = `
      const parts = ['{"a":', '1}\\r\\n\\n{"b"', ':2}\\n', 'tail'];
      (function next() { const p = parts.shift(); if (p === undefined) return; process.stdout.write(p); setTimeout(next, 30); })();`;
    const { lines, done } = node(script);
    const end = await done;
    assert.deepStrictEqual(lines, ['{"a":1}', '{"b":2}', 'tail']);
    assert.deepStrictEqual([end.reason, end.exitCode, end.signal], ['exited', 0, null]);
  });

  it('keeps only the end of stderr', async () => {
    const end = await node(`process.stderr.write('x'.repeat(5000) + 'THE END')`, { maxStderrChars: 100 }).done;
    assert.strictEqual(end.stderrTail.length, 100);
    assert.ok(end.stderrTail.endsWith('THE END'));
  });

  it('stops a process that says nothing before its first line, or falls silent after it', async () => {
    const started = Date.now();
    const mute = await node('setTimeout(() => {}, 60000)', { firstLineTimeoutMs: 300 }).done;
    assert.strictEqual(mute.reason, 'silent');
    assert.ok(Date.now() - started < 3_000);
    const { lines, done } = node(`console.log('ready'); setTimeout(() => {}, 60000)`, { silenceTimeoutMs: 300 });
    const quiet = await done;
    assert.deepStrictEqual([quiet.reason, lines], ['silent', ['ready']]);
    assert.ok((quiet.silentMs ?? 0) >= 300);
  });

  it('stops a runaway line', async () => {
    const end = await node(`process.stdout.write('y'.repeat(1 << 20)); setTimeout(() => {}, 60000)`, { maxLineChars: 1000 }).done;
    assert.strictEqual(end.reason, 'line-too-long');
  });

  it('reports a command that cannot start', async () => {
    const end = await runLineProcess('/nonexistent/python3', [], { firstLineTimeoutMs: 1000, silenceTimeoutMs: 1000, onLine: () => undefined });
    assert.deepStrictEqual([end.reason, end.errorCode], ['spawn-error', 'ENOENT']);
  });

  it('on abort kills the process and what it started, and settles once they are gone', async () => {
    const controller = new AbortController();
    const script = `
      const { spawn } = require('child_process');
      const child = spawn('sleep', ['60'], { stdio: 'ignore' });
      console.log(JSON.stringify({ pid: process.pid, grandchild: child.pid }));
      setTimeout(() => {}, 60000);`;
    const { lines, done } = node(script, { signal: controller.signal });
    const pids = JSON.parse(await waitFor('the pids', () => lines[0])) as { pid: number; grandchild: number };
    const aborted = Date.now();
    controller.abort();
    const end = await done;
    assert.ok(Date.now() - aborted < 1000);
    assert.deepStrictEqual([end.reason, end.signal], ['cancelled', 'SIGKILL']);
    assert.ok(!isRunning(pids.pid), 'the process is gone');
    await waitFor('the grandchild to be gone', () => !isRunning(pids.grandchild), 1000);
  });

  it('kills every process still running when the worker exits', async () => {
    const { lines, done } = node(`console.log(process.pid); setTimeout(() => {}, 60000)`);
    const pid = Number(await waitFor('the pid', () => lines[0]));
    assert.strictEqual(killLineProcesses(), 1);
    const end = await done;
    assert.strictEqual(end.signal, 'SIGKILL');
    assert.ok(!isRunning(pid));
  });
});
