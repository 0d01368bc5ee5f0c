// A stdio stream the server cannot read on from (a malformed Content-Length header) must end
// the process with a non-zero exit and a line on stderr that says why: the client's restart
// policy reacts to the exit, and a server that stays alive and silent is never restarted.
import * as assert from 'assert';
import { spawn } from 'child_process';
import { ensureServerBuilt, SERVER_JS } from './serverClient';

/** What "ends at once" means here: a server that reads a broken header exits well within this. */
const EXITS_WITHIN_MS = 10_000;

interface Ending {
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
}

/** Starts the server, writes `bytes` to its stdin (left open) and waits for it to exit. */
function feed(bytes: string): Promise<Ending> {
  const child = spawn(process.execPath, [SERVER_JS, '--stdio'], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => void (stderr += chunk.toString()));
  child.stdout.resume();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the server was still running ${EXITS_WITHIN_MS} ms after reading ${JSON.stringify(bytes)}; stderr: ${stderr}`));
    }, EXITS_WITHIN_MS);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stderr });
    });
    child.stdin.write(bytes);
  });
}

const INITIALIZE = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { processId: null, rootUri: null, capabilities: {} } });

describe('server: a broken stdio stream ends the process', function () {
  this.timeout(60_000);

  before(() => ensureServerBuilt());

  const cases: Array<[string, string, RegExp]> = [
    ['a malformed Content-Length header ends the server', 'Content-Length: abc\r\n\r\n{}', /Content-Length/],
    ['a negative Content-Length ends the server', `Content-Length: -5\r\n\r\n${INITIALIZE}`, /Content-Length|message/i],
    ['a Content-Length larger than any message ends the server at once', `Content-Length: 99999999999\r\n\r\n${INITIALIZE}`, /Content-Length/],
    ['a header without Content-Length ends the server', `Content-Type: application/json\r\n\r\n${INITIALIZE}`, /Content-Length/],
  ];
  for (const [name, bytes, says] of cases) {
    it(name, async () => {
      const ending = await feed(bytes);
      assert.strictEqual(ending.signal, null, `killed by ${ending.signal}; stderr: ${ending.stderr}`);
      assert.notStrictEqual(ending.code, 0, `exit code; stderr: ${ending.stderr}`);
      assert.match(ending.stderr, says);
      assert.match(ending.stderr, /^Device Doctor language server: .*; exiting so that the client restarts it\.$/m, ending.stderr);
      assert.ok(!/\n\s+at /.test(ending.stderr), `no stack trace: ${ending.stderr}`);
    });
  }

  it('a well-formed session still ends with exit code 0 after shutdown and exit', async () => {
    const body = (message: object) => {
      const text = JSON.stringify(message);
      return `Content-Length: ${Buffer.byteLength(text)}\r\n\r\n${text}`;
    };
    const child = spawn(process.execPath, [SERVER_JS, '--stdio'], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => void (stdout += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const initialized = new Promise<void>((resolve) => child.stdout.on('data', () => {
      if (stdout.includes('"serverInfo"')) resolve();
    }));
    child.stdin.write(body(JSON.parse(INITIALIZE) as object));
    await initialized;
    child.stdin.write(body({ jsonrpc: '2.0', id: 2, method: 'shutdown' }));
    child.stdin.write(body({ jsonrpc: '2.0', method: 'exit' }));
    assert.strictEqual(await exited, 0);
    assert.match(stdout, /"serverInfo":\{"name":"Device Doctor"\}/);
  });
});
