// The language server's cross-file plumbing, without the core's interpretation of imports:
// an analyzer that asks the resolver for `config` and reports its text stands in for it.
// What is checked: open documents override the disk (unsaved edits count), an edit, close
// or disk change of an imported file re-analyses its importers, the worker is sent each open
// text once, and a document without a path (untitled) gets no project.
import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { pathToFileURL } from 'url';
import { Worker } from 'worker_threads';
import { TextDocument } from 'vscode-languageserver-textdocument';
import type { PublishDiagnosticsParams } from 'vscode-languageserver';
import type { AnalyzeOptions, Finding } from '../../src/core/analysis';
import type { ProjectSpec } from '../../src/server/analysisMessages';
import { FileAnalyzer, type AnalysisResult } from '../../src/server/fileAnalyzer';
import { FindingStore } from '../../src/server/findingStore';
import { Linter, LinterDeps } from '../../src/server/linter';
import { ModuleDependents } from '../../src/server/moduleDependents';
import { ProjectFiles } from '../../src/server/projectFiles';
import { OverlaySync, type OpenText, type ProjectRequest } from '../../src/server/projectRequest';
import { ServerLog } from '../../src/server/serverLog';
import { DEFAULT_SETTINGS } from '../../src/server/settings';
import { WorkerAnalyzer } from '../../src/server/workerAnalyzer';
import { WorkspaceRoots } from '../../src/server/workspaceRoots';
import { numpyOnGpu } from './serverFindings';

/** Reports the text of the module its first line imports (`import config`) as its one finding's message ("none" when not found). */
class ConfigEcho extends FileAnalyzer {
  runs: string[] = [];
  specs: Array<ProjectSpec | undefined> = [];
  analyzeFile(uri: string, text: string, _options: AnalyzeOptions, spec?: ProjectSpec): AnalysisResult<Finding> {
    this.specs.push(spec);
    this.runs.push(path.basename(uri));
    if (!spec) return { findings: [{ ...numpyOnGpu(), message: 'no project' }] };
    this.projectFiles.setOpen(spec.path, text);
    const session = this.projectFiles.begin(spec);
    const config = session.context.modules.resolve(spec.path, /^import (\w+)/.exec(text)?.[1] ?? '', 0);
    return { findings: [{ ...numpyOnGpu(), message: config?.source.trim() ?? 'none' }], modules: session.finish() };
  }
}

describe('server: cross-file analysis', () => {
  let tmp: string;
  beforeEach(() => (tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'dd-server-crossfile-')))));
  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  const uriOf = (name: string) => pathToFileURL(path.join(tmp, name)).href;

  function setup() {
    const published: PublishDiagnosticsParams[] = [];
    const debug: string[] = [];
    const open = new Map<string, TextDocument>();
    const console = { error: () => undefined, warn: () => undefined, info: () => undefined, log: () => undefined, debug: (m: string) => debug.push(m) };
    const files = new ConfigEcho();
    const deps = {
      connection: { sendDiagnostics: async (p: PublishDiagnosticsParams) => void published.push(p) },
      documents: { get: (uri: string) => open.get(uri), all: () => [...open.values()] },
      notebooks: { findNotebookDocumentForCell: () => undefined, getNotebookDocument: () => undefined },
      files,
      settings: { get: async () => ({ ...DEFAULT_SETTINGS, debounceMs: 0 }), forget: () => undefined },
      store: new FindingStore(),
      log: new ServerLog(console as never),
      workspaceRoots: () => [tmp],
    } as unknown as LinterDeps;
    const linter = new Linter(deps);
    /** The message published last for `name` (the config text its analysis saw). */
    const lastSeen = (name: string) => published.filter((p) => p.uri === uriOf(name)).at(-1)?.diagnostics[0]?.message;
    const settle = async () => {
      for (let i = 0; i < 5; i++) {
        await new Promise((resolve) => setTimeout(resolve, 5));
        for (const uri of [...open.keys()]) await linter.flushFor(uri);
      }
    };
    const openDoc = async (name: string, text: string) => {
      const uri = name.includes(':') ? name : uriOf(name);
      open.set(uri, TextDocument.create(uri, 'python', 1, text));
      linter.fileOpened(uri);
      await settle();
    };
    const edit = async (name: string, text: string) => {
      const document = open.get(uriOf(name))!;
      TextDocument.update(document, [{ text }], document.version + 1);
      linter.fileChanged(document.uri);
      await settle();
    };
    const close = async (name: string) => {
      open.delete(uriOf(name));
      linter.fileClosed(uriOf(name));
      await settle();
    };
    return { linter, files, published, debug, open, lastSeen, openDoc, edit, close, settle };
  }

  it('reads an imported module from disk, or from its open document with unsaved edits', async () => {
    fs.writeFileSync(path.join(tmp, 'config.py'), 'on disk\n');
    const { linter, lastSeen, openDoc, edit, close, files, debug } = setup();
    try {
      await openDoc('train.py', 'import config\n');
      assert.strictEqual(lastSeen('train.py'), 'on disk');
      assert.deepStrictEqual(files.specs[0], { path: path.join(tmp, 'train.py'), roots: [tmp], maxModuleBytes: DEFAULT_SETTINGS.maxFileBytes });
      assert.match(debug.join('\n'), /train\.py: 1 module file resolved in \d+ ms/);

      files.runs = [];
      await openDoc('config.py', 'opened\n');
      assert.strictEqual(lastSeen('train.py'), 'opened', 'opening the module re-analyses its importer');
      files.runs = [];
      await edit('config.py', 'edited, unsaved\n');
      assert.strictEqual(lastSeen('train.py'), 'edited, unsaved');
      assert.deepStrictEqual(files.runs, ['config.py', 'train.py'], 'the edited module first, then its importer, once each');

      await close('config.py');
      assert.strictEqual(lastSeen('train.py'), 'on disk', 'closed without saving: the disk again');
    } finally {
      linter.dispose();
    }
  });

  it('analyses an open module again when a document that imports it opens: its analysis runs its importers', async () => {
    const { linter, openDoc, files } = setup();
    try {
      await openDoc('config.py', 'device\n');
      files.runs = [];
      await openDoc('train.py', 'import config\n');
      assert.deepStrictEqual(files.runs, ['train.py', 'config.py'], 'config.py now has an open importer');
      files.runs = [];
      await openDoc('eval.py', 'import config\n');
      assert.deepStrictEqual(files.runs, ['eval.py', 'config.py']);
    } finally {
      linter.dispose();
    }
  });

  it('re-analyses importers when a module changes on disk, or is created after a miss', async () => {
    const { linter, lastSeen, openDoc, settle, files } = setup();
    try {
      await openDoc('train.py', 'import config\n');
      assert.strictEqual(lastSeen('train.py'), 'none');
      fs.writeFileSync(path.join(tmp, 'config.py'), 'created\n');
      linter.filesChangedOnDisk([uriOf('config.py')]);
      await settle();
      assert.strictEqual(lastSeen('train.py'), 'created');
      files.runs = [];
      linter.filesChangedOnDisk([uriOf('unrelated.py'), 'untitled:Untitled-1']);
      await settle();
      assert.deepStrictEqual(files.runs, [], 'a file nobody read re-analyses nothing');
    } finally {
      linter.dispose();
    }
  });

  it('does not loop on modules that import each other, and forgets a closed importer', async () => {
    const { linter, openDoc, edit, close, files } = setup();
    try {
      fs.writeFileSync(path.join(tmp, 'config.py'), 'x\n');
      await openDoc('config.py', 'import train\n');
      await openDoc('train.py', 'import config\n');
      files.runs = [];
      await edit('train.py', 'import config  # edited\n');
      assert.deepStrictEqual(files.runs, ['train.py', 'config.py'], 'its importer once; that one\'s analysis triggers no other');
      await close('train.py');
      files.runs = [];
      await edit('config.py', 'y\n');
      assert.deepStrictEqual(files.runs, ['config.py']);
    } finally {
      linter.dispose();
    }
  });

  it('gives an untitled document no project', async () => {
    const { linter, openDoc, files } = setup();
    try {
      await openDoc('untitled:Untitled-1', 'import config\n');
      assert.deepStrictEqual(files.specs, [undefined]);
    } finally {
      linter.dispose();
    }
  });

  it('OverlaySync sends each open text once, never the analysed one, and drops closed documents', () => {
    const sync = new OverlaySync();
    let open: OpenText[] = [];
    const doc = (p: string, version: number): OpenText => ({ path: p, version, text: () => `${p}@${version}` });
    const request = (): ProjectRequest => ({ path: '/w/train.py', version: 3, roots: [], maxModuleBytes: 0, openDocuments: () => open });
    open = [doc('/w/train.py', 3), doc('/w/model.py', 1), doc('/w/config.py', 1)];
    assert.deepStrictEqual(sync.update(request()), { set: [{ path: '/w/model.py', text: '/w/model.py@1' }, { path: '/w/config.py', text: '/w/config.py@1' }], drop: [] });
    assert.deepStrictEqual(sync.update(request()), { set: [], drop: [] });
    open = [doc('/w/train.py', 3), doc('/w/model.py', 2)];
    assert.deepStrictEqual(sync.update(request()), { set: [{ path: '/w/model.py', text: '/w/model.py@2' }], drop: ['/w/config.py'] });
    sync.reset();
    assert.strictEqual(sync.update(request()).set.length, 1, 'after a reset everything but the analysed document again');
  });

  it('ProjectFiles: an open text overrides the disk, within the same size limit, and reads are recorded', () => {
    const files = new ProjectFiles();
    fs.writeFileSync(path.join(tmp, 'config.py'), 'disk\n');
    fs.writeFileSync(path.join(tmp, 'big.py'), 'x'.repeat(100));
    files.applyOverlay({ set: [{ path: path.join(tmp, 'config.py'), text: 'open\n' }, { path: path.join(tmp, 'huge.py'), text: 'é'.repeat(40) }], drop: [] });
    const session = files.begin({ path: path.join(tmp, 'train.py'), roots: [], maxModuleBytes: 50 });
    const resolve = (name: string) => session.context.modules.resolve(path.join(tmp, 'train.py'), name, 0)?.source;
    assert.strictEqual(resolve('config'), 'open\n');
    assert.strictEqual(resolve('huge'), undefined, '80 UTF-8 bytes, over 50');
    assert.strictEqual(resolve('big'), undefined);
    const use = session.finish();
    assert.deepStrictEqual(use.found, [path.join(tmp, 'config.py')]);
    assert.ok(use.missing.includes(path.join(tmp, 'huge.py')) && use.missing.includes(path.join(tmp, 'big.py')));
    files.applyOverlay({ set: [], drop: [path.join(tmp, 'config.py')] });
    assert.strictEqual(files.begin({ path: path.join(tmp, 'train.py'), roots: [], maxModuleBytes: 0 }).context.modules.resolve(path.join(tmp, 'train.py'), 'config', 0)?.source, 'disk\n');
  });

  it('ModuleDependents maps files to the documents that read them', () => {
    const dependents = new ModuleDependents();
    dependents.record('a', ['/w/config.py', '/w/model.py']);
    dependents.record('b', ['/w/config.py']);
    assert.deepStrictEqual(dependents.dependentsOf(['/w/config.py']), ['a', 'b']);
    assert.deepStrictEqual(dependents.dependentsOf(['/w/config.py'], 'a'), ['b']);
    dependents.record('a', ['/w/model.py']);
    assert.deepStrictEqual(dependents.dependentsOf(['/w/config.py']), ['b']);
    dependents.forget('a');
    dependents.forget('b');
    assert.strictEqual(dependents.size, 0);
  });

  it('WorkspaceRoots: folders from initialize (or rootUri), changed by folder events', () => {
    const roots = new WorkspaceRoots();
    roots.initialize({ workspaceFolders: [{ uri: 'file:///w/a', name: 'a' }, { uri: 'vscode-vfs://github/x', name: 'x' }], rootUri: null, processId: null, capabilities: {} });
    assert.deepStrictEqual(roots.paths, [path.resolve('/w/a')]);
    roots.change({ added: [{ uri: 'file:///w/b', name: 'b' }], removed: [{ uri: 'file:///w/a', name: 'a' }] });
    assert.deepStrictEqual(roots.paths, [path.resolve('/w/b')]);
    roots.initialize({ rootUri: 'file:///w/c', processId: null, capabilities: {} });
    assert.deepStrictEqual(roots.paths, [path.resolve('/w/c')]);
  });
});

/** Echoes each request's project and overlay; answers with modules found. */
const STAND_IN = `
const { parentPort } = require('worker_threads');
parentPort.on('message', (m) => {
  if (m.kind === 'release' || m.kind === 'filesChanged') return;
  const message = JSON.stringify({ project: m.project, overlay: m.overlay, options: m.options });
  const finding = { code: 'DD003', message, range: { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } }, severity: 'warning', related: [], fixes: [] };
  if (m.text === 'EXIT') process.exit(3);
  parentPort.postMessage({ kind: 'file', id: m.id, findings: [finding], modules: { found: ['/w/config.py'], missing: [], ms: 1 } });
});
`;

describe('server: cross-file requests to the worker thread', () => {
  it('sends the project as plain data, each open text once, again to a fresh worker; hears what was read', async () => {
    const analyzer = new WorkerAnalyzer(() => new Worker(STAND_IN, { eval: true }));
    const heard: string[][] = [];
    const open: OpenText[] = [{ path: '/w/train.py', version: 1, text: () => 'T' }, { path: '/w/config.py', version: 1, text: () => 'C' }];
    const project: ProjectRequest = { path: '/w/train.py', version: 1, roots: ['/w'], maxModuleBytes: 10, openDocuments: () => open, resolved: (use) => heard.push(use.found) };
    const sent = async (text = 'x') => JSON.parse((await analyzer.analyze('file:///w/train.py', text, { noqa: true }, project))[0].message);
    try {
      assert.deepStrictEqual(await sent(), {
        project: { path: '/w/train.py', roots: ['/w'], maxModuleBytes: 10 },
        overlay: { set: [{ path: '/w/config.py', text: 'C' }], drop: [] },
        options: { noqa: true },
      });
      assert.strictEqual((await sent()).overlay, undefined, 'nothing changed: no overlay');
      assert.deepStrictEqual(heard, [['/w/config.py'], ['/w/config.py']]);
      await assert.rejects(sent('EXIT'));
      assert.deepStrictEqual((await sent()).overlay, { set: [{ path: '/w/config.py', text: 'C' }], drop: [] }, 'a fresh worker gets the texts again');
    } finally {
      analyzer.dispose();
    }
  });
});
