// Install Native TensorFlow Backend without the editor: npm is found next to the runtime or on
// PATH, run without a shell in the extension's folder as `npm ci --ignore-scripts` of the shipped
// lockfile, without the variables that redirect TensorFlow's downloads; a fake npm on PATH that
// fails the way npm does here gives one clear sentence; success leaves the package where the worker
// looks; the pinned archives are fetched (a fake https.get), checked and unpacked with tar, and a
// wrong hash is refused; cancel kills npm and its children.
import * as assert from 'assert';
import { spawnSync } from 'child_process';
import { createHash } from 'crypto';
import * as fs from 'fs';
import type { IncomingMessage } from 'http';
import * as os from 'os';
import * as path from 'path';
import { PassThrough } from 'stream';
import {
  describeNpmFailure, findNpm, installNativeTf, npmCiArgs, withDirOnPath,
} from '../../src/vscode/benchmark/nativeTf/installNativeTfNpm';
import type { NpmCommand } from '../../src/vscode/benchmark/nativeTf/installNativeTfNpm';
import type { PinnedArchive } from '../../src/vscode/benchmark/nativeTf/nativeTfArchives';
import type { HttpsGet } from '../../src/vscode/benchmark/nativeTf/verifiedDownload';

const LOCK_DIR = path.join(__dirname, '..', '..', 'media', 'nativeTf');
const ARCHIVE_URL = 'https://storage.example/libtensorflow-test.tar.gz';

/** https.get answering ARCHIVE_URL with these bytes. */
function serving(body: Buffer): HttpsGet {
  return (url, onResponse) => {
    const response = Object.assign(new PassThrough(), { statusCode: url === ARCHIVE_URL ? 200 : 404, headers: {} });
    setImmediate(() => {
      onResponse(response as unknown as IncomingMessage);
      response.end(url === ARCHIVE_URL ? body : Buffer.alloc(0));
    });
    return { on: () => undefined, destroy: () => undefined };
  };
}

/** What `npm install @tensorflow/tfjs-node@4.22.0` printed on this machine (npm 11, no route to storage.googleapis.com). */
const OFFLINE_NPM_OUTPUT = `npm error code 1
npm error path /tmp/tfnative/node_modules/@tensorflow/tfjs-node
npm error command failed
npm error command sh -c node scripts/install.js
npm error CPU-linux-4.22.0.tar.gz
npm error https://storage.googleapis.com/tensorflow/libtensorflow/libtensorflow-cpu-linux-x86_64-2.9.1.tar.gz
npm error * Downloading libtensorflow
npm error node:events:502
npm error       throw er; // Unhandled 'error' event
npm error       ^
npm error
npm error Error: getaddrinfo ENOTFOUND storage.googleapis.com
npm error     at GetAddrInfoReqWrap.onlookupall [as oncomplete] (node:dns:122:26)
npm error Emitted 'error' event on ClientRequest instance at:
npm error     at emitErrorEvent (node:_http_client:101:11)
npm error   errno: -3008,
npm error   code: 'ENOTFOUND',
npm error   syscall: 'getaddrinfo',
npm error   hostname: 'storage.googleapis.com'
npm error }
npm error
npm error Node.js v20.20.2
npm error A complete log of this run can be found in: /root/.npm/_logs/2026-11-29T17_31_21_181Z-debug-0.log
`;

/**
 * A fake npm: records its arguments and working folder, then, by FAKE_NPM_MODE, fails like
 * offline npm (exit 1, the output above on stderr), installs a stub package into --prefix, or
 * hangs (with a child, as npm's install script would) until killed.
 */
function writeFakeNpm(dir: string): string {
  const npm = path.join(dir, 'npm');
  fs.writeFileSync(npm, `#!/bin/sh
printf '%s\\n' "$PWD" "$@" > "$FAKE_NPM_LOG"
env > "$FAKE_NPM_LOG.env"
case "$FAKE_NPM_MODE" in
  offline) cat "$FAKE_NPM_OUTPUT" >&2; exit 1 ;;
  hang) echo "sleeping" ; sleep 30 & echo $! > "$FAKE_NPM_LOG.child"; wait; exit 0 ;;
  ok)
    while [ "$1" != "--prefix" ]; do shift; done
    mkdir -p "$2/node_modules/@tensorflow/tfjs-node"
    echo '{"name":"@tensorflow/tfjs-node","version":"4.22.0"}' > "$2/node_modules/@tensorflow/tfjs-node/package.json"
    echo "added 1 package in 1s" ;;
  *) echo "npm error code E404" >&2; echo "npm error 404 Not Found - GET https://registry.npmjs.org/@tensorflow%2ftfjs-node - Not found" >&2; exit 1 ;;
esac
`);
  fs.chmodSync(npm, 0o755);
  return npm;
}

/** Alive and not a zombie (a killed orphan may wait for a reaper that a container lacks). */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^\d+ \(.*\) Z/.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return true;
  }
}

describe('vscode: installing native TensorFlow with npm', function () {
  this.timeout(20_000);
  let tmp: string;
  let bin: string;
  let npm: NpmCommand;
  let prefix: string;
  let env: NodeJS.ProcessEnv;
  const lines: string[] = [];

  beforeEach(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'device-doctor-npm-'));
    bin = path.join(tmp, 'bin');
    fs.mkdirSync(bin);
    writeFakeNpm(bin);
    fs.writeFileSync(path.join(tmp, 'output.txt'), OFFLINE_NPM_OUTPUT);
    prefix = path.join(tmp, 'globalStorage', 'native');
    env = { PATH: `${bin}${path.delimiter}${process.env.PATH}`, FAKE_NPM_LOG: path.join(tmp, 'npm-args.txt'), FAKE_NPM_OUTPUT: path.join(tmp, 'output.txt') };
    const found = findNpm({ execPath: path.join(tmp, 'runtime', 'node'), env, platform: 'linux' });
    assert.ok(found, 'the fake npm is found on PATH');
    npm = found;
    lines.length = 0;
  });
  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  const install = (mode: string, signal?: AbortSignal, extra: { archives?: PinnedArchive[]; get?: HttpsGet; env?: NodeJS.ProcessEnv } = {}) =>
    installNativeTf({ npm, packageName: '@tensorflow/tfjs-node', prefix, lockDir: LOCK_DIR, archives: extra.archives ?? [], get: extra.get, env: { ...env, ...extra.env, FAKE_NPM_MODE: mode }, signal, onOutput: (l) => lines.push(l) });

  /** A small tar.gz like libtensorflow's (lib/…), made with tar, and its pinned archive entry. */
  function tinyLibtensorflow(sha256?: string): { body: Buffer; archive: PinnedArchive } {
    const src = path.join(tmp, 'archive-src');
    fs.mkdirSync(path.join(src, 'lib'), { recursive: true });
    fs.writeFileSync(path.join(src, 'lib', 'libtensorflow.so.2'), 'not really a library');
    const file = path.join(tmp, 'lib.tar.gz');
    assert.strictEqual(spawnSync('tar', ['-czf', file, '-C', src, 'lib']).status, 0);
    const body = fs.readFileSync(file);
    const hash = sha256 ?? createHash('sha256').update(body).digest('hex');
    return { body, archive: { what: 'a test libtensorflow', url: ARCHIVE_URL, sha256: hash, into: 'deps', strip: 0 } };
  }

  it('finds npm next to the runtime first, then on PATH; none is null', () => {
    assert.deepStrictEqual(npm, { command: path.join(bin, 'npm'), prefixArgs: [] });
    const runtime = path.join(tmp, 'runtime');
    fs.mkdirSync(runtime);
    writeFakeNpm(runtime);
    assert.strictEqual(findNpm({ execPath: path.join(runtime, 'node'), env, platform: 'linux' })?.command, path.join(runtime, 'npm'));
    assert.strictEqual(findNpm({ execPath: '/nowhere/node', env: { PATH: '/also/nowhere' }, platform: 'linux' }), null);
  });

  it('never takes npm from the current folder through an empty or relative PATH entry', () => {
    const anyRelative = (file: string): boolean => !path.posix.isAbsolute(file);
    assert.strictEqual(findNpm({ execPath: '/nowhere/node', env: { PATH: ':.:node_modules/.bin' }, platform: 'linux', exists: anyRelative }), null);
    const anyRelativeWindows = (file: string): boolean => !path.win32.isAbsolute(file);
    assert.strictEqual(findNpm({ execPath: 'C:\\vscode\\Code.exe', env: { Path: '.;tools' }, platform: 'win32', exists: anyRelativeWindows }), null);
  });

  it('on Windows runs npm-cli.js with node.exe (a .cmd cannot be spawned without a shell)', () => {
    const files = new Set(['C:\\node\\npm.cmd', 'C:\\node\\node.exe', 'C:\\node\\node_modules\\npm\\bin\\npm-cli.js']);
    const found = findNpm({ execPath: 'C:\\vscode\\Code.exe', env: { Path: 'C:\\Windows;C:\\node' }, platform: 'win32', exists: (f) => files.has(f) });
    assert.deepStrictEqual(found, { command: 'C:\\node\\node.exe', prefixArgs: ['C:\\node\\node_modules\\npm\\bin\\npm-cli.js'] });
  });

  it('fails offline with one sentence naming the download, and leaves nothing broken', async () => {
    const result = await install('offline');
    assert.deepStrictEqual(result, { kind: 'failed', message: 'Could not download TensorFlow: getaddrinfo ENOTFOUND storage.googleapis.com (offline?)' });
    assert.ok(lines.some((l) => l.includes('Downloading libtensorflow')), 'npm\'s output went to the log');
    assert.ok(!fs.existsSync(path.join(prefix, 'node_modules', '@tensorflow')), 'no half-installed package');
  });

  it('runs npm ci --ignore-scripts --prefix <folder> in that folder, with the shipped lockfile, and without TFJS_* or CDN_STORAGE', async () => {
    const result = await install('ok', undefined, { env: { TFJS_NODE_CDN_STORAGE: 'https://evil.example/', CDN_STORAGE: 'https://evil.example/', npm_config_tfjs_binding_binary_host_mirror: 'https://evil.example/' } });
    const packageDir = path.join(prefix, 'node_modules', '@tensorflow', 'tfjs-node');
    assert.deepStrictEqual(result, { kind: 'installed', packageDir });
    const [cwd, ...args] = fs.readFileSync(env.FAKE_NPM_LOG!, 'utf8').trim().split('\n');
    assert.strictEqual(fs.realpathSync(cwd!), fs.realpathSync(prefix), 'npm runs in the extension\'s folder, never the workspace');
    assert.deepStrictEqual(args, npmCiArgs(prefix));
    assert.deepStrictEqual(args, ['ci', '--ignore-scripts', '--no-audit', '--no-fund', '--prefix', prefix]);
    for (const file of ['package.json', 'package-lock.json']) {
      assert.strictEqual(fs.readFileSync(path.join(prefix, file), 'utf8'), fs.readFileSync(path.join(LOCK_DIR, 'tfjs-node', file), 'utf8'), `the shipped ${file}`);
    }
    const npmEnv = fs.readFileSync(`${env.FAKE_NPM_LOG}.env`, 'utf8');
    assert.doesNotMatch(npmEnv, /TFJS_|CDN_STORAGE|binary_host_mirror/i);
    assert.match(npmEnv, /^FAKE_NPM_MODE=ok$/m, 'the rest of the environment is kept');
    assert.deepStrictEqual(lines, ['added 1 package in 1s']);
  });

  it('fetches each pinned archive after npm, checks its SHA-256 and unpacks it where tfjs-node looks', async () => {
    const { body, archive } = tinyLibtensorflow();
    const result = await install('ok', undefined, { archives: [archive], get: serving(body) });
    const packageDir = path.join(prefix, 'node_modules', '@tensorflow', 'tfjs-node');
    assert.deepStrictEqual(result, { kind: 'installed', packageDir });
    assert.strictEqual(fs.readFileSync(path.join(packageDir, 'deps', 'lib', 'libtensorflow.so.2'), 'utf8'), 'not really a library');
    assert.ok(lines.includes(`Downloading a test libtensorflow from ${ARCHIVE_URL}`) && lines.includes(`SHA-256 ${archive.sha256} verified`), lines.join('\n'));
    assert.strictEqual(fs.existsSync(path.join(prefix, '.downloads')), false, 'the download is not kept');
  });

  it('refuses an archive whose SHA-256 is not the pinned one: nothing of it is unpacked', async () => {
    const pinned = 'ab'.repeat(32);
    const { body, archive } = tinyLibtensorflow(pinned);
    const result = await install('ok', undefined, { archives: [archive], get: serving(body) });
    assert.strictEqual(result.kind, 'failed');
    assert.match((result as { message: string }).message, new RegExp(`^${ARCHIVE_URL.replace(/[.]/g, '\\.')} was refused: its SHA-256 is [0-9a-f]{64}, not the pinned ${pinned}\\.$`));
    assert.strictEqual(fs.existsSync(path.join(prefix, 'node_modules', '@tensorflow', 'tfjs-node', 'deps')), false);
    assert.strictEqual(fs.existsSync(path.join(prefix, '.downloads')), false);
  });

  it('says what npm said when it fails for another reason', async () => {
    const result = await install('missing');
    assert.deepStrictEqual(result, { kind: 'failed', message: 'Installing TensorFlow failed (npm exited with code 1): 404 Not Found - GET https://registry.npmjs.org/@tensorflow%2ftfjs-node - Not found' });
  });

  it('stops npm and the children of its install script on cancel', async () => {
    const abort = new AbortController();
    const started = Date.now();
    const pending = install('hang', abort.signal);
    while (!fs.existsSync(`${env.FAKE_NPM_LOG}.child`) || lines.length === 0) await new Promise((r) => setTimeout(r, 20));
    abort.abort();
    assert.deepStrictEqual(await pending, { kind: 'cancelled' });
    assert.ok(Date.now() - started < 5000, 'well before the 30 s sleep');
    const child = Number(fs.readFileSync(`${env.FAKE_NPM_LOG}.child`, 'utf8'));
    const deadline = Date.now() + 2000;
    while (running(child) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    assert.ok(!running(child), 'the install script\'s child is gone too');
  });

  it('reports an npm that cannot be started', async () => {
    const result = await installNativeTf({ npm: { command: path.join(tmp, 'no-such-npm'), prefixArgs: [] }, packageName: '@tensorflow/tfjs-node-gpu', prefix, lockDir: LOCK_DIR, archives: [], env, onOutput: () => undefined });
    assert.strictEqual(result.kind, 'failed');
    assert.match((result as { message: string }).message, /^npm could not be started \(spawn .*no-such-npm ENOENT\)\.$/);
  });

  it('reads npm\'s failures', () => {
    assert.strictEqual(describeNpmFailure(1, 'npm error code ENOTFOUND\nnpm error syscall getaddrinfo\nnpm error network request to https://registry.npmjs.org/x failed, reason: getaddrinfo ENOTFOUND registry.npmjs.org\n'),
      'Could not download TensorFlow: network request to https://registry.npmjs.org/x failed, reason: getaddrinfo ENOTFOUND registry.npmjs.org (offline?)');
    assert.strictEqual(describeNpmFailure(1, 'npm error code EAI_AGAIN\n'), 'Could not download TensorFlow: code EAI_AGAIN (offline?)');
    assert.strictEqual(describeNpmFailure(null, ''), 'Installing TensorFlow failed (npm was stopped).');
  });

  it('puts the npm\'s folder first on PATH for the node it runs', () => {
    assert.strictEqual(withDirOnPath({ PATH: '/usr/bin' }, '/opt/node/bin').PATH, `/opt/node/bin${path.delimiter}/usr/bin`);
    assert.deepStrictEqual(withDirOnPath({ Path: 'C:\\x' }, 'C:\\node'), { Path: `C:\\node${path.delimiter}C:\\x` });
  });
});
