// Install Native TensorFlow Backend's safeguards (issue 22 item 7), without npm or a network: the
// environment npm gets, the whole tree pinned by the shipped lockfile, the archives pinned by
// SHA-256 (and refused without one), the confirmation that names every download, and the
// verified download itself against a fake https.get.
import * as assert from 'assert';
import { createHash } from 'crypto';
import * as fs from 'fs';
import type { IncomingMessage } from 'http';
import * as os from 'os';
import * as path from 'path';
import { PassThrough } from 'stream';
import { installConfirmation, lockedPackageCount, UNTRUSTED_MESSAGE } from '../../src/vscode/benchmark/nativeTf/installConfirmation';
import { NATIVE_TF_INSTALL_VERSION, npmCiArgs, scrubInstallEnv } from '../../src/vscode/benchmark/nativeTf/installNativeTfNpm';
import { planNativeInstall } from '../../src/vscode/benchmark/nativeTf/nativeTfArchives';
import { ArchiveRejected, downloadVerified, type HttpsGet } from '../../src/vscode/benchmark/nativeTf/verifiedDownload';

const LOCK_DIR = path.join(__dirname, '..', '..', 'media', 'nativeTf');
const sha256 = (data: Buffer | string): string => createHash('sha256').update(data).digest('hex');

/** A fake https.get: each URL answers with a status, headers and a body, as scripted. */
function fakeGet(answers: Record<string, { status: number; body?: Buffer; location?: string }>, asked: string[] = []): HttpsGet {
  return (url, onResponse) => {
    asked.push(url);
    const answer = answers[url] ?? { status: 404 };
    const response = Object.assign(new PassThrough(), { statusCode: answer.status, headers: answer.location ? { location: answer.location } : {} });
    setImmediate(() => {
      onResponse(response as unknown as IncomingMessage);
      response.end(answer.body ?? Buffer.alloc(0));
    });
    return { on: () => undefined, destroy: () => undefined };
  };
}

async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  return assert.fail('expected a rejection');
}

describe('native TensorFlow install: what npm gets', () => {
  it('drops the variables that would redirect TensorFlow\'s downloads or load code into npm, and keeps proxy and registry settings', () => {
    const env = {
      PATH: '/usr/bin', HOME: '/home/u', HTTPS_PROXY: 'http://proxy:3128', npm_config_registry: 'https://mirror.example/', npm_config_cache: '/tmp/c',
      TFJS_NODE_CDN_STORAGE: 'https://evil.example/', TFJS_NODE_BASE_URI: 'https://evil.example/lib-', CDN_STORAGE: 'https://evil.example/',
      npm_config_TFJS_NODE_CDN_STORAGE: 'https://evil.example/', npm_config_tfjs_node_base_uri: 'x', npm_config_tfjs_binding_binary_host_mirror: 'https://evil.example/',
      NODE_OPTIONS: '--require /tmp/evil.js',
    };
    assert.deepStrictEqual(Object.keys(scrubInstallEnv(env)).sort(), ['HOME', 'HTTPS_PROXY', 'PATH', 'npm_config_cache', 'npm_config_registry']);
  });

  it('installs the shipped lockfile\'s whole tree with npm ci and runs no install script', () => {
    assert.deepStrictEqual(npmCiArgs('/g/native/tfjs-node'), ['ci', '--ignore-scripts', '--no-audit', '--no-fund', '--prefix', '/g/native/tfjs-node']);
  });

  for (const pkg of ['tfjs-node', 'tfjs-node-gpu']) {
    it(`ships a lockfile that pins every package of @tensorflow/${pkg} ${NATIVE_TF_INSTALL_VERSION} by integrity`, () => {
      const manifest = JSON.parse(fs.readFileSync(path.join(LOCK_DIR, pkg, 'package.json'), 'utf8'));
      assert.deepStrictEqual(manifest.dependencies, { [`@tensorflow/${pkg}`]: NATIVE_TF_INSTALL_VERSION });
      const lock = JSON.parse(fs.readFileSync(path.join(LOCK_DIR, pkg, 'package-lock.json'), 'utf8'));
      assert.strictEqual(lock.packages[`node_modules/@tensorflow/${pkg}`].version, NATIVE_TF_INSTALL_VERSION);
      const entries = Object.entries(lock.packages as Record<string, { integrity?: string }>).filter(([key]) => key !== '');
      assert.ok(entries.length > 100, `the whole tree, not the top package: ${entries.length}`);
      assert.deepStrictEqual(entries.filter(([, e]) => !/^sha512-/.test(e.integrity ?? '')).map(([key]) => key), [], 'every package has a sha512 integrity');
      assert.strictEqual(lockedPackageCount(LOCK_DIR, `@tensorflow/${pkg}` as '@tensorflow/tfjs-node'), entries.length);
    });
  }
});

describe('native TensorFlow install: pinned archives', () => {
  it('pins TensorFlow\'s C library by SHA-256 and refuses the install while the prebuilt binding has no published checksum', () => {
    const plan = planNativeInstall('@tensorflow/tfjs-node', 'linux', 'x64');
    assert.strictEqual(plan.kind, 'refused');
    const [lib, binding] = plan.archives;
    assert.deepStrictEqual([lib?.url, lib?.sha256], ['https://storage.googleapis.com/tensorflow/libtensorflow/libtensorflow-cpu-linux-x86_64-2.9.1.tar.gz', '7f510d2546e3db5e10b1d119463689003d587842892ad3c95bca51cf82820173']);
    assert.deepStrictEqual([binding?.url, binding?.sha256], ['https://storage.googleapis.com/tf-builds/pre-built-binary/napi-v8/4.22.0/CPU-linux-4.22.0.tar.gz', null]);
    assert.match(plan.kind === 'refused' ? plan.message : '', /^Device Doctor will not install @tensorflow\/tfjs-node: no published checksum exists for the prebuilt TensorFlow\.js binding \(CPU-linux-4\.22\.0\.tar\.gz\) from https:\/\/storage\.googleapis\.com\/tf-builds\/pre-built-binary\/napi-v8\/4\.22\.0\/CPU-linux-4\.22\.0\.tar\.gz, so the download could not be verified, .* not installed\. The wasm and js engines need nothing installed\.$/);
  });

  it('uses the GPU library and binding for tfjs-node-gpu, each hash 64 hex digits', () => {
    const plan = planNativeInstall('@tensorflow/tfjs-node-gpu', 'linux', 'x64');
    assert.match(plan.archives[0]?.url ?? '', /libtensorflow-gpu-linux-x86_64-2\.9\.1\.tar\.gz$/);
    assert.match(plan.archives[0]?.sha256 ?? '', /^[0-9a-f]{64}$/);
    assert.match(plan.archives[1]?.url ?? '', /GPU-linux-4\.22\.0\.tar\.gz$/);
  });

  it('refuses a platform without a pinned library, naming it', () => {
    const plan = planNativeInstall('@tensorflow/tfjs-node', 'win32', 'x64');
    assert.deepStrictEqual(plan, { kind: 'refused', archives: [], message: 'Device Doctor cannot install @tensorflow/tfjs-node on win32-x64: it has no pinned TensorFlow library for it. The wasm and js engines need nothing installed.' });
  });
});

describe('native TensorFlow install: trust and confirmation', () => {
  it('asks for a trusted workspace, saying why', () => {
    assert.match(UNTRUSTED_MESSAGE, /needs a trusted workspace: it downloads native code/);
  });

  it('names every download, where it comes from and how it is checked, and where it goes', () => {
    const archives = planNativeInstall('@tensorflow/tfjs-node', 'linux', 'x64').archives;
    const { message, detail } = installConfirmation({ pkg: '@tensorflow/tfjs-node', prefix: '/g/native/tfjs-node', packageCount: 127, archives });
    assert.strictEqual(message, 'Download and install @tensorflow/tfjs-node 4.22.0?');
    const lines = detail.split('\n');
    assert.strictEqual(lines[0], 'Device Doctor will download and install, into /g/native/tfjs-node:');
    assert.match(lines[1]!, /^• @tensorflow\/tfjs-node 4\.22\.0 and its dependencies, 127 npm packages in all, from the npm registry \(registry\.npmjs\.org unless your npm configuration names another\), each checked by npm against the SHA-512 in the lockfile shipped with Device Doctor; no package's install script runs\.$/);
    assert.strictEqual(lines[2], `• TensorFlow's C library 2.9.1 (libtensorflow-cpu-linux-x86_64-2.9.1.tar.gz) from ${archives[0]!.url}, checked against its pinned SHA-256 ${archives[0]!.sha256}.`);
    assert.match(detail, /native code: the benchmark worker loads it/);
  });
});

describe('native TensorFlow install: verified download', () => {
  let tmp: string;
  const URL_A = 'https://storage.example/lib.tar.gz';
  const archive = Buffer.from('a fake libtensorflow archive');

  beforeEach(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'dd-verified-'));
  });
  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('keeps an archive whose SHA-256 is the pinned one', async () => {
    const dest = path.join(tmp, 'lib.tar.gz');
    await downloadVerified(URL_A, sha256(archive), dest, { get: fakeGet({ [URL_A]: { status: 200, body: archive } }) });
    assert.deepStrictEqual(fs.readFileSync(dest), archive);
  });

  it('refuses an archive with a different hash and leaves no file behind', async () => {
    const dest = path.join(tmp, 'lib.tar.gz');
    const pinned = sha256('the archive that was pinned');
    const error = await rejection(downloadVerified(URL_A, pinned, dest, { get: fakeGet({ [URL_A]: { status: 200, body: archive } }) }));
    assert.ok(error instanceof ArchiveRejected, String(error));
    assert.strictEqual(error.message, `${URL_A} was refused: its SHA-256 is ${sha256(archive)}, not the pinned ${pinned}.`);
    assert.strictEqual(fs.existsSync(dest), false);
  });

  it('follows a redirect to https, refuses one to http, and never fetches a plain http URL', async () => {
    const asked: string[] = [];
    const dest = path.join(tmp, 'lib.tar.gz');
    const get = fakeGet({ [URL_A]: { status: 302, location: 'https://cdn.example/lib.tar.gz' }, 'https://cdn.example/lib.tar.gz': { status: 200, body: archive } }, asked);
    await downloadVerified(URL_A, sha256(archive), dest, { get });
    assert.deepStrictEqual(asked, [URL_A, 'https://cdn.example/lib.tar.gz']);
    const toHttp = fakeGet({ [URL_A]: { status: 301, location: 'http://cdn.example/lib.tar.gz' } });
    const refusedDest = path.join(tmp, 'refused.tar.gz');
    assert.match((await rejection(downloadVerified(URL_A, sha256(archive), refusedDest, { get: toHttp }))).message, /^http:\/\/cdn\.example\/lib\.tar\.gz was refused: only https is used\.$/);
    assert.strictEqual(fs.existsSync(refusedDest), false);
  });

  it('says which URL failed and how when the server does not answer 200', async () => {
    const error = await rejection(downloadVerified(URL_A, sha256(archive), path.join(tmp, 'x'), { get: fakeGet({}) }));
    assert.strictEqual(error.message, `${URL_A} answered HTTP 404.`);
  });
});
