// `device-doctor server`, started with the command line each editor's snippet in
// docs/integrations/lsp-editors.md and jupyterlab.md gives, and driven by ts-lsp-client: a
// generic LSP client that is not VS Code's (vscode-jsonrpc/vscode-languageclient, which the
// other server tests use, could hide a VS Code-only assumption). It answers no server requests
// and declares no workspace capabilities, like the simplest editors.
import * as assert from 'assert';
import { ChildProcess, spawn } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { pathToFileURL } from 'url';
import type * as SmolToml from 'smol-toml' with { 'resolution-mode': 'import' };
import { JSONRPCEndpoint, LspClient } from 'ts-lsp-client';
import { TextDocument } from 'vscode-languageserver-textdocument';
import type { CodeAction, Diagnostic, PublishDiagnosticsParams } from 'vscode-languageserver-protocol';
import { docSnippet } from '../unit/docSnippets';
import { ensureServerBuilt } from './serverClient';

// smol-toml publishes ESM type declarations only; its CommonJS build is what runs here (as in projectConfig.ts).
const { parse: parseToml } = require('smol-toml') as typeof SmolToml;

const ROOT = path.resolve(__dirname, '..', '..');
const CLI_JS = path.join(ROOT, 'dist', 'cli.js');

/** The quoted items of a Lua table `cmd = { 'a', 'b' }`. */
function luaCmd(lua: string): string[] {
  const table = /cmd = \{([^}]*)\}/.exec(lua);
  assert.ok(table, `no cmd = { ... } in ${lua}`);
  return [...table[1].matchAll(/'([^']*)'/g)].map((m) => m[1]);
}

/** The command Zed's extension runs: the program it looks up with `which`, then its `args: vec![...]`. */
function zedCommand(rust: string): string[] {
  const program = /\.which\("([^"]+)"\)/.exec(rust)?.[1];
  const args = /args: vec!\[([^\]]*)\]/.exec(rust)?.[1];
  assert.ok(program && args !== undefined, `no which(...) or args: vec![...] in ${rust}`);
  return [program, ...[...args.matchAll(/"([^"]*)"\.into\(\)/g)].map((m) => m[1])];
}

function helixCommand(toml: string): string[] {
  const config = parseToml(toml) as { 'language-server': Record<string, { command: string; args: string[] }>; language: Array<{ name: string; 'language-servers': string[] }> };
  const python = config.language.find((l) => l.name === 'python');
  assert.ok(python?.['language-servers'].includes('device-doctor'), 'Helix: device-doctor is not among Python\'s language servers');
  const server = config['language-server']['device-doctor'];
  return [server.command, ...server.args];
}

/** The argv of the jupyter-lsp spec, which also names Python and the notebook cells' MIME type. */
function jupyterArgv(): string[] {
  const config = JSON.parse(docSnippet('jupyterlab.md', 'jupyter-server-config'));
  const spec = config.LanguageServerManager.language_servers['device-doctor'];
  assert.strictEqual(spec.version, 2, 'jupyter-lsp reads spec version 2');
  assert.deepStrictEqual(spec.languages, ['python']);
  assert.ok(spec.mime_types.includes('text/x-ipython'), 'notebook cells are text/x-ipython');
  return spec.argv;
}

const COMMAND_LINES: Record<string, () => string[]> = {
  'Neovim 0.11': () => luaCmd(docSnippet('lsp-editors.md', 'neovim')),
  'Neovim 0.8': () => luaCmd(docSnippet('lsp-editors.md', 'neovim-0.8')),
  Helix: () => helixCommand(docSnippet('lsp-editors.md', 'helix')),
  Zed: () => zedCommand(docSnippet('lsp-editors.md', 'zed-extension-rs')),
  JupyterLab: jupyterArgv,
};

/** Each distinct command line, with the editors whose snippet gives it. */
function commandLines(): Map<string, { argv: string[]; editors: string[] }> {
  const lines = new Map<string, { argv: string[]; editors: string[] }>();
  for (const [editor, read] of Object.entries(COMMAND_LINES)) {
    const argv = read();
    const key = JSON.stringify(argv);
    if (!lines.has(key)) lines.set(key, { argv, editors: [] });
    lines.get(key)?.editors.push(editor);
  }
  return lines;
}

/** A folder with `device-doctor` in it, as `npm install -g` leaves it: a link to the CLI bundle. */
function binFolder(): string {
  const bin = fs.mkdtempSync(path.join(os.tmpdir(), 'dd-lsp-bin-'));
  fs.symlinkSync(CLI_JS, path.join(bin, 'device-doctor'));
  return bin;
}

class Session {
  readonly published: PublishDiagnosticsParams[] = [];
  readonly errors: unknown[] = [];
  readonly stderr: string[] = [];
  readonly exited: Promise<number | null>;
  readonly endpoint: JSONRPCEndpoint;
  readonly client: LspClient;
  private readonly waiters: Array<{ matches: (p: PublishDiagnosticsParams) => boolean; resolve: (p: PublishDiagnosticsParams) => void }> = [];

  constructor(readonly child: ChildProcess) {
    this.exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
    child.stderr?.on('data', (chunk: Buffer) => void this.stderr.push(chunk.toString()));
    this.endpoint = new JSONRPCEndpoint(child.stdin as NodeJS.WritableStream as never, child.stdout as NodeJS.ReadableStream as never);
    // A request from the server would arrive here as an "id mismatch": the server must send none to a client that declares nothing.
    this.endpoint.on('error', (error: unknown) => void this.errors.push(error));
    this.endpoint.on('textDocument/publishDiagnostics', (p: PublishDiagnosticsParams) => {
      this.published.push(p);
      for (const waiter of this.waiters.filter((w) => w.matches(p))) {
        this.waiters.splice(this.waiters.indexOf(waiter), 1);
        waiter.resolve(p);
      }
    });
    this.client = new LspClient(this.endpoint);
  }

  /** The next publication for `uri` with a diagnostic of `code`; bounded by the test's timeout. */
  diagnostics(uri: string, code: string): Promise<PublishDiagnosticsParams> {
    const matches = (p: PublishDiagnosticsParams): boolean => p.uri === uri && p.diagnostics.some((d) => d.code === code);
    const seen = this.published.find(matches);
    return seen ? Promise.resolve(seen) : new Promise((resolve) => this.waiters.push({ matches, resolve }));
  }

  async codeActions(uri: string, diagnostic: Diagnostic): Promise<CodeAction[]> {
    return (await this.endpoint.send('textDocument/codeAction', {
      textDocument: { uri }, range: diagnostic.range, context: { diagnostics: [diagnostic] },
    })) as CodeAction[];
  }
}

function start(bin: string, argv: string[], cwd: string): Session {
  assert.strictEqual(argv[0], 'device-doctor', `the snippet starts ${argv[0]}, not device-doctor`);
  const child = spawn(path.join(bin, argv[0]), argv.slice(1), {
    cwd, stdio: ['pipe', 'pipe', 'pipe'],
    // `#!/usr/bin/env node` finds the node running the tests.
    env: { ...process.env, PATH: `${bin}${path.delimiter}${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH ?? ''}` },
  });
  return new Session(child);
}

async function initialize(session: Session, folder: string): Promise<void> {
  // A command line the CLI refuses exits at once: say so, with its stderr, instead of waiting out the timeout.
  const gone = session.exited.then((code) => {
    throw new Error(`the server exited with ${code} before answering initialize; stderr: ${session.stderr.join('')}`);
  });
  const result = await Promise.race([gone, session.client.initialize({
    processId: process.pid,
    clientInfo: { name: 'ts-lsp-client' },
    rootUri: pathToFileURL(folder).href,
    workspaceFolders: null,
    capabilities: {
      textDocument: { publishDiagnostics: { relatedInformation: true }, codeAction: { codeActionLiteralSupport: { codeActionKind: { valueSet: ['quickfix', 'source.fixAll'] } } } },
    },
  } as never)]);
  gone.catch(() => undefined);
  assert.strictEqual(result.serverInfo?.name, 'Device Doctor');
  session.client.initialized();
}

async function shutdown(session: Session): Promise<void> {
  await session.client.shutdown();
  session.client.exit();
  assert.strictEqual(await session.exited, 0, `the server did not exit with 0 after shutdown and exit; stderr: ${session.stderr.join('')}`);
  assert.deepStrictEqual(session.errors, [], 'the client saw a message it could not match to a request');
}

const MOVED = 'import torch\nt = torch.ones(2).to("cuda")\n';
const NUMPY = 't.numpy()\n';

describe('device-doctor server, started as docs/integrations tells each editor to', function () {
  this.timeout(60_000);
  let bin: string;
  let folder: string;
  const sessions: Session[] = [];

  before(() => {
    ensureServerBuilt();
    assert.ok(fs.existsSync(CLI_JS), 'dist/cli.js is missing: npm run build');
    bin = binFolder();
    folder = fs.mkdtempSync(path.join(os.tmpdir(), 'dd-lsp-project-'));
  });

  after(() => {
    for (const session of sessions) session.child.kill();
    fs.rmSync(bin, { recursive: true, force: true });
    fs.rmSync(folder, { recursive: true, force: true });
  });

  for (const { argv, editors } of commandLines().values()) {
    it(`${argv.join(' ')} (${editors.join(', ')}): initialize, a file's diagnostics and its fix, a notebook's, shutdown and exit 0`, async () => {
      const session = start(bin, argv, folder);
      sessions.push(session);
      await initialize(session, folder);

      const uri = pathToFileURL(path.join(folder, 'train.py')).href;
      const text = MOVED + NUMPY;
      session.client.didOpen({ textDocument: { uri, languageId: 'python', version: 1, text } });
      const published = await session.diagnostics(uri, 'DD003');
      const dd003 = published.diagnostics.find((d) => d.code === 'DD003') as Diagnostic;
      assert.strictEqual(dd003.range.start.line, 2);
      const fix = (await session.codeActions(uri, dd003)).find((a) => a.isPreferred);
      const edits = fix?.edit?.changes?.[uri];
      assert.ok(edits, `no preferred fix with edits for this file: ${JSON.stringify(fix)}`);
      assert.strictEqual(TextDocument.applyEdits(TextDocument.create(uri, 'python', 1, text), edits), `${MOVED}t.cpu().numpy()\n`);

      const notebook = pathToFileURL(path.join(folder, 'explore.ipynb')).href;
      const cell = (n: number): string => `vscode-notebook-cell:${new URL(notebook).pathname}#cell${n}`;
      session.endpoint.notify('notebookDocument/didOpen', {
        notebookDocument: { uri: notebook, notebookType: 'jupyter-notebook', version: 1, cells: [{ kind: 2, document: cell(0) }, { kind: 2, document: cell(1) }] },
        cellTextDocuments: [{ uri: cell(0), languageId: 'python', version: 1, text: MOVED }, { uri: cell(1), languageId: 'python', version: 1, text: NUMPY }],
      });
      const inCell = await session.diagnostics(cell(1), 'DD003');
      assert.ok(inCell.diagnostics.find((d) => d.code === 'DD003')?.relatedInformation?.some((r) => r.location.uri === cell(0)), 'the move in the first cell is not related');

      await shutdown(session);
    });
  }

  it('JupyterLab: a notebook sent as jupyterlab-lsp sends it, its code cells joined in one virtual document, gets its findings and fixes', async () => {
    const session = start(bin, jupyterArgv(), folder);
    sessions.push(session);
    await initialize(session, folder);
    const uri = pathToFileURL(path.join(folder, '.virtual_documents', 'explore.ipynb')).href;
    const text = `${MOVED}\n\n${NUMPY}`;
    session.client.didOpen({ textDocument: { uri, languageId: 'python', version: 1, text } });
    const dd003 = (await session.diagnostics(uri, 'DD003')).diagnostics.find((d) => d.code === 'DD003') as Diagnostic;
    assert.strictEqual(dd003.range.start.line, 4);
    const actions = await session.codeActions(uri, dd003);
    assert.ok(actions.some((a) => a.isPreferred && a.edit?.changes?.[uri]), JSON.stringify(actions));
    await shutdown(session);
  });

  it('Zed and Helix name the server for Python under the id their settings use', () => {
    const extension = parseToml(docSnippet('lsp-editors.md', 'zed-extension-toml')) as { language_servers: Record<string, { languages: string[] }> };
    assert.deepStrictEqual(extension.language_servers['device-doctor']?.languages, ['Python']);
    const settings = JSON.parse(docSnippet('lsp-editors.md', 'zed-settings'));
    assert.ok(settings.languages.Python.language_servers.includes('device-doctor'));
    assert.ok(settings.languages.Python.language_servers.includes('...'), 'Zed\'s own Python servers are kept');
    const jupyterSettings = JSON.parse(docSnippet('jupyterlab.md', 'jupyterlab-settings'));
    assert.ok(jupyterSettings.language_servers['device-doctor'].priority > 0);
  });
});
