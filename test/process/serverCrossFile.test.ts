// Cross-file analysis through the real language server over stdio: train.py's DD001 needs
// model.py's Net and config.py's CUDA device. An unsaved edit of config.py (CPU) clears it,
// closing config.py without saving brings it back, and a change on disk (the watcher's
// event) is followed too. The server logs what it resolved at debug level only.
import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { pathToFileURL } from 'url';
import type { PublishDiagnosticsParams } from 'vscode-languageserver-protocol';
import { ensureServerBuilt, TestClient } from './serverClient';

const PROJECT = path.join(__dirname, '..', 'fixtures', 'workspace', 'crossfile');
const CPU_CONFIG = 'import torch\n\ndevice = torch.device("cpu")\n';
const MESSAGE_TYPE_DEBUG = 5;

/** "DD001 8:7" per diagnostic (1-based), plus " (may be)" for a hedged one. */
function codes(p: PublishDiagnosticsParams): string[] {
  return p.diagnostics.map((d) => `${d.code} ${d.range.start.line + 1}:${d.range.start.character + 1}${/ may be /.test(typeof d.message === 'string' ? d.message : d.message.value) ? ' (may be)' : ''}`);
}

describe('server: cross-file analysis over stdio', function () {
  this.timeout(60_000);
  let tmp: string;
  let client: TestClient;
  const uriOf = (name: string) => pathToFileURL(path.join(tmp, name)).href;
  const textOf = (name: string) => fs.readFileSync(path.join(tmp, name), 'utf8');
  /** The next publication for train.py whose codes are `expected`. */
  const trainShows = (expected: string[]) => client.diagnosticsFor(uriOf('train.py'), (p) => codes(p).join() === expected.join(), 20_000);

  before(() => ensureServerBuilt());

  beforeEach(async () => {
    tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'dd-server-crossfile-')));
    for (const name of ['train.py', 'model.py', 'config.py']) fs.copyFileSync(path.join(PROJECT, name), path.join(tmp, name));
    ({ client } = await TestClient.start({ workspaceFolders: [tmp] }));
    client.settings = { debounceMs: 0 };
  });

  afterEach(async () => {
    await client?.stop();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('finds train.py\'s DD001 through its imports; an unsaved CPU device in config.py clears it, closing restores it', async () => {
    const found = trainShows(['DD001 8:7']);
    await client.openFile(uriOf('train.py'), textOf('train.py'));
    await found;
    await client.openFile(uriOf('config.py'), textOf('config.py'));
    const cleared = trainShows([]);
    await client.changeFile(uriOf('config.py'), CPU_CONFIG, 2);
    await cleared;
    const restored = trainShows(['DD001 8:7']);
    await client.connection.sendNotification('textDocument/didClose', { textDocument: { uri: uriOf('config.py') } });
    await restored;
    const resolved = client.logs.filter((l) => /train\.py: \d+ module files? resolved in \d+ ms/.test(l.message));
    assert.ok(resolved.length > 0, client.logs.map((l) => l.message).join('\n'));
    assert.ok(resolved.every((l) => l.type === MESSAGE_TYPE_DEBUG), 'debug level, never info');
  });

  it('follows a module changed on disk (didChangeWatchedFiles), and a module deleted', async () => {
    const found = trainShows(['DD001 8:7']);
    await client.openFile(uriOf('train.py'), textOf('train.py'));
    await found;
    fs.writeFileSync(path.join(tmp, 'config.py'), CPU_CONFIG);
    const cleared = trainShows([]);
    await client.connection.sendNotification('workspace/didChangeWatchedFiles', { changes: [{ uri: uriOf('config.py'), type: 2 }] });
    await cleared;
    fs.rmSync(path.join(tmp, 'config.py'));
    const hedged = trainShows(['DD001 8:7 (may be)']);
    await client.connection.sendNotification('workspace/didChangeWatchedFiles', { changes: [{ uri: uriOf('config.py'), type: 3 }] });
    await hedged;
  });

  it('analyses an untitled document alone, without error', async () => {
    const uri = 'untitled:Untitled-1';
    const published = client.diagnosticsFor(uri);
    await client.openFile(uri, textOf('train.py'));
    assert.deepStrictEqual(codes(await published), ['DD001 8:7 (may be)']);
  });
});
