// The npm package as a user gets it: `npm pack` of this checkout's build, installed with
// docs/integrations/package.md's snippet into a temporary global prefix, then run from a folder
// outside the checkout with only that prefix and Node.js on PATH, so nothing of the development
// tree (src/, node_modules/) can stand in for what the package lacks.
import * as assert from 'assert';
import { spawn, spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { pathToFileURL } from 'url';
import { JSONRPCEndpoint, LspClient } from 'ts-lsp-client';
import type { PublishDiagnosticsParams } from 'vscode-languageserver-protocol';
import { findExecutable } from '../../src/node/pathLookup';
import { docSnippet } from '../unit/docSnippets';
import { ensureServerBuilt } from './serverClient';

const ROOT = path.resolve(__dirname, '..', '..');
const VERSION = (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
const TORCH_PYTHON = '/usr/bin/python3';

interface Outcome {
  status: number | null;
  stdout: string;
  stderr: string;
}

function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => void (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => void (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

describe('the npm package (npm pack, npm install -g of the tarball, the installed device-doctor)', function () {
  // npm install of the tarball: up to a minute here (it also tries the optional tfjs-node engines).
  this.timeout(10 * 60_000);
  let work: string;
  let prefix: string;
  let project: string;
  let packed: string[];
  /** Only the prefix's bin and the folder of node (for `#!/usr/bin/env node`), nothing of the checkout. */
  let userEnv: NodeJS.ProcessEnv;
  let bin: string;

  before(async () => {
    ensureServerBuilt();
    const npm = findExecutable('npm', process.env, process.platform);
    const bash = findExecutable('bash', process.env, process.platform);
    assert.ok(npm && bash, 'npm and bash must be on PATH');
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'dd-npm-package-'));
    prefix = path.join(work, 'prefix');
    project = path.join(work, 'project');
    fs.mkdirSync(project);
    // --ignore-scripts: the shared dist/ as built, not rebuilt (prepack) under the other tests.
    const pack = await run(npm, ['pack', '--ignore-scripts', '--json', '--pack-destination', work], ROOT, process.env);
    assert.strictEqual(pack.status, 0, pack.stderr);
    const [manifest] = JSON.parse(pack.stdout) as Array<{ filename: string; files: Array<{ path: string }> }>;
    assert.strictEqual(manifest.filename, `device-doctor-${VERSION}.tgz`, 'the snippet names this tarball');
    packed = manifest.files.map((f) => f.path);
    const npmEnv = {
      ...process.env, npm_config_prefix: prefix, npm_config_prefer_offline: 'true', npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false',
      PATH: `${path.join(prefix, 'bin')}${path.delimiter}${process.env.PATH ?? ''}`,
    };
    const snippet = await run(bash, ['-e', '-c', docSnippet('package.md', 'install-tarball')], work, npmEnv);
    assert.strictEqual(snippet.status, 0, snippet.stdout + snippet.stderr);
    assert.strictEqual(snippet.stdout.trim().split('\n').pop(), `device-doctor ${VERSION}`);
    bin = path.join(prefix, 'bin', 'device-doctor');
    userEnv = { PATH: `${path.join(prefix, 'bin')}${path.delimiter}${path.dirname(process.execPath)}`, HOME: work };
  });

  after(() => fs.rmSync(work, { recursive: true, force: true }));

  it('holds the bundles, their wasm and Python files and the rule pages, and no sources, tests or source maps', () => {
    for (const file of ['dist/cli.js', 'dist/cliDevices.js', 'dist/lintWorker.js', 'dist/server.js', 'dist/analysisWorker.js', 'dist/worker.js', 'dist/tree-sitter-python.wasm', 'dist/web-tree-sitter.cjs', 'docs/rules/DD003.md', 'package.json', 'LICENSE']) {
      assert.ok(packed.includes(file), `${file} is not in the package`);
    }
    assert.ok(packed.some((f) => /^dist\/virtual_gpu.*\.py$/.test(f)), 'the virtual GPU\'s Python files are not in the package');
    assert.deepStrictEqual(packed.filter((f) => /^(src|test|scripts|node_modules)\/|\.map$|\.vsix$/.test(f)), []);
  });

  it('device-doctor lint, installed, finds a device mistake and exits 1', async () => {
    fs.writeFileSync(path.join(project, 'train.py'), 'import torch\nt = torch.ones(2).to("cuda")\nt.numpy()\n');
    const lint = await run(bin, ['lint', '.'], project, userEnv);
    assert.strictEqual(lint.status, 1, lint.stdout + lint.stderr);
    assert.match(lint.stdout, /^train\.py:3:\d+: DD003 /m);
    assert.strictEqual(lint.stderr, '');
  });

  it('device-doctor server --stdio, installed, answers initialize, publishes diagnostics and exits 0 after shutdown', async () => {
    const child = spawn(bin, ['server', '--stdio'], { cwd: project, env: userEnv, stdio: ['pipe', 'pipe', 'pipe'] });
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    const endpoint = new JSONRPCEndpoint(child.stdin as never, child.stdout as never);
    const client = new LspClient(endpoint);
    const uri = pathToFileURL(path.join(project, 'train.py')).href;
    const diagnostics = new Promise<PublishDiagnosticsParams>((resolve) => {
      endpoint.on('textDocument/publishDiagnostics', (p: PublishDiagnosticsParams) => {
        if (p.uri === uri && p.diagnostics.length > 0) resolve(p);
      });
    });
    await client.initialize({ processId: process.pid, rootUri: pathToFileURL(project).href, workspaceFolders: null, capabilities: {} } as never);
    client.initialized();
    client.didOpen({ textDocument: { uri, languageId: 'python', version: 1, text: 'import torch\nt = torch.ones(2).to("cuda")\nt.numpy()\n' } });
    assert.ok((await diagnostics).diagnostics.some((d) => d.code === 'DD003'));
    await client.shutdown();
    client.exit();
    assert.strictEqual(await exited, 0);
  });

  it('device-doctor run, installed, runs a script on a virtual GPU with Debian\'s PyTorch and reports the mistake', async () => {
    assert.strictEqual(spawnSync(TORCH_PYTHON, ['-c', 'import torch'], { stdio: 'ignore' }).status, 0, `${TORCH_PYTHON} has no torch: apt-get install -y python3-torch`);
    fs.writeFileSync(path.join(project, 'forward.py'), 'import torch\nmodel = torch.nn.Linear(2, 2).cuda()\nprint(model(torch.ones(1, 2)))\n');
    const result = await run(bin, ['run', '--python', TORCH_PYTHON, 'forward.py'], project, userEnv);
    assert.strictEqual(result.status, 1, result.stdout + result.stderr);
    assert.match(result.stdout, /^forward\.py:3: DD001 /m);
  });
});
