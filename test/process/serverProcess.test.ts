// The language server as a real child process over stdio, driven by a bare LSP client.
import * as assert from 'assert';
import type { CodeAction, Diagnostic, InitializeResult, TextEdit } from 'vscode-languageserver-protocol';
import { applyTextEdits } from '../../src/core/python/edits';
import { ensureServerBuilt, TestClient } from './serverClient';

// The analyzer warns only on evidence: without `import torch` a `torch` name proves nothing.
const DD003_SOURCE = 'import torch\nt = torch.tensor([1.0]).to("cuda" if torch.cuda.is_available() else "cpu")\nt.numpy()\n';

describe('server: the language server process (stdio)', function () {
  this.timeout(30_000);
  let client: TestClient;
  let initialized: InitializeResult;

  before(async () => {
    ensureServerBuilt();
    ({ client, result: initialized } = await TestClient.start());
  });

  after(async () => client?.stop());

  it('announces incremental sync, notebook sync and its code action kinds', () => {
    const caps = initialized.capabilities;
    assert.deepStrictEqual(caps.textDocumentSync, { openClose: true, change: 2 });
    assert.deepStrictEqual(caps.notebookDocumentSync, { notebookSelector: [{ notebook: '*', cells: [{ language: 'python' }] }] });
    assert.deepStrictEqual(caps.codeActionProvider, { codeActionKinds: ['quickfix', 'source.fixAll.deviceDoctor'], resolveProvider: false });
  });

  it('publishes diagnostics for an opened Python file', async () => {
    const uri = 'file:///work/project/train.py';
    const published = client.diagnosticsFor(uri);
    await client.openFile(uri, 'import torch\nmodel = torch.nn.Linear(4, 2)\n', 3);
    const params = await published;
    assert.strictEqual(params.uri, uri);
    assert.strictEqual(params.version, 3);
    assert.ok(Array.isArray(params.diagnostics));
  });

  it('re-publishes after an incremental change, for the new version', async () => {
    const uri = 'file:///work/project/edit.py';
    const opened = client.diagnosticsFor(uri);
    await client.openFile(uri, 'import torch\n');
    await opened;
    const changed = client.diagnosticsFor(uri, (p) => p.version === 2);
    await client.connection.sendNotification('textDocument/didChange', {
      textDocument: { uri, version: 2 },
      contentChanges: [{ range: { start: { line: 1, character: 0 }, end: { line: 1, character: 0 } }, text: 'x = torch.zeros(3)\n' }],
    });
    assert.strictEqual((await changed).version, 2);
  });

  it('publishes per cell for a notebook, skipping markdown cells', async () => {
    const notebookUri = 'file:///work/project/explore.ipynb';
    const cell = (id: string) => `vscode-notebook-cell:/work/project/explore.ipynb#${id}`;
    const first = client.diagnosticsFor(cell('a'));
    const second = client.diagnosticsFor(cell('c'));
    await client.connection.sendNotification('notebookDocument/didOpen', {
      notebookDocument: {
        uri: notebookUri, notebookType: 'jupyter-notebook', version: 1,
        cells: [{ kind: 2, document: cell('a') }, { kind: 1, document: cell('b') }, { kind: 2, document: cell('c') }],
      },
      cellTextDocuments: [
        { uri: cell('a'), languageId: 'python', version: 1, text: 'import torch\nx = torch.randn(4, 10)\n' },
        { uri: cell('b'), languageId: 'markdown', version: 1, text: '# Notes\n' },
        { uri: cell('c'), languageId: 'python', version: 1, text: 'y = x * 2\n' },
      ],
    });
    assert.strictEqual((await first).uri, cell('a'));
    assert.strictEqual((await second).uri, cell('c'));
    assert.ok(!client.published.some((p) => p.uri === cell('b')), 'markdown is not analysed');
  });

  it('keeps serving after garbage, and says once that a 50,000-line file is too long instead of freezing', async () => {
    const garbage = 'file:///work/project/garbage.py';
    const garbagePublished = client.diagnosticsFor(garbage);
    await client.openFile(garbage, 'def f(:\n\u0000\uffff )))\nclass\n  x = torch.');
    assert.deepStrictEqual((await garbagePublished).diagnostics, []);

    const huge = 'file:///work/project/huge.py';
    const hugeText = Array.from({ length: 60_000 }, (_, i) => `x${i} = torch.zeros(${i % 7}).to("cuda" if torch.cuda.is_available() else "cpu")`).join('\n');
    const hugePublished = client.diagnosticsFor(huge);
    await client.openFile(huge, hugeText);
    assert.deepStrictEqual((await hugePublished).diagnostics, []);
    const again = client.diagnosticsFor(huge, (p) => p.version === 2);
    await client.connection.sendNotification('textDocument/didChange', { textDocument: { uri: huge, version: 2 }, contentChanges: [{ text: `${hugeText}\n` }] });
    await again;
    const warnings = client.logs.filter((m) => m.message.includes(huge) && m.message.includes('maxFileLines'));
    assert.strictEqual(warnings.length, 1, JSON.stringify(client.logs));

    const small = 'file:///work/project/small.py';
    const start = Date.now();
    const smallPublished = client.diagnosticsFor(small);
    await client.openFile(small, 'import torch\n');
    await smallPublished;
    assert.ok(Date.now() - start < 5000, 'the server still answers promptly');
  });

  it('reads settings for each document\'s own scope', () => {
    assert.ok(client.configurationScopes.includes('file:///work/project/train.py'));
    assert.ok(client.configurationScopes.includes('file:///work/project/explore.ipynb'), 'a notebook\'s cells use the notebook\'s scope');
  });

  it('analyses open documents again when settings or pyproject.toml change', async () => {
    const uri = 'file:///work/project/train.py';
    const afterSettings = client.diagnosticsFor(uri);
    await client.connection.sendNotification('workspace/didChangeConfiguration', { settings: { deviceDoctor: {} } });
    await afterSettings;
    const afterPyproject = client.diagnosticsFor(uri);
    await client.connection.sendNotification('workspace/didChangeWatchedFiles', {
      changes: [{ uri: 'file:///work/project/pyproject.toml', type: 2 }],
    });
    await afterPyproject;
  });

  it('answers code action requests for a file, even without findings', async () => {
    const uri = 'file:///work/project/train.py';
    const actions: CodeAction[] = await client.connection.sendRequest('textDocument/codeAction', {
      textDocument: { uri },
      range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } },
      context: { diagnostics: [] },
    });
    assert.deepStrictEqual(actions, []);
  });

  // These two need the real analyzer (src/core/analysis): per ANALYZER.md, `.numpy()` on a
  // tensor moved to "cuda" is DD003. They failed on purpose while the analyzer was a stub.
  it('reports DD003 with its docs link, and offers its fix and the noqa action (needs the real analyzer)', async () => {
    const uri = 'file:///work/project/dd003.py';
    const published = client.diagnosticsFor(uri);
    await client.openFile(uri, DD003_SOURCE);
    const { diagnostics } = await published;
    const dd003 = diagnostics.find((d: Diagnostic) => d.code === 'DD003');
    assert.ok(dd003, `DD003 expected, got ${JSON.stringify(diagnostics)}`);
    assert.strictEqual(dd003.source, 'Device Doctor');
    assert.match(dd003.codeDescription?.href ?? '', /DD003/);

    const actions: CodeAction[] = await client.connection.sendRequest('textDocument/codeAction', {
      textDocument: { uri }, range: dd003.range, context: { diagnostics: [dd003] },
    });
    const preferred = actions.filter((a) => a.isPreferred);
    assert.strictEqual(preferred.length, 1);
    const change = preferred[0].edit?.documentChanges?.[0];
    assert.ok(change && 'edits' in change, JSON.stringify(preferred[0].edit));
    assert.strictEqual(change.textDocument.version, 1);
    assert.strictEqual(applyTextEdits(DD003_SOURCE, change.edits as TextEdit[]).split('\n')[2], 't.cpu().numpy()');
    assert.ok(actions.some((a) => a.title === 'Ignore DD003 on this line'));
  });

  it('applies the user\'s severity override and "off" (needs the real analyzer)', async () => {
    client.settings = { severity: { DD003: 'hint' } };
    await client.connection.sendNotification('workspace/didChangeConfiguration', { settings: { deviceDoctor: client.settings } });
    const uri = 'file:///work/project/severity.py';
    const asHint = client.diagnosticsFor(uri);
    await client.openFile(uri, DD003_SOURCE);
    assert.deepStrictEqual((await asHint).diagnostics.map((d) => [d.code, d.severity]), [['DD003', 4]]);

    const turnedOff = client.diagnosticsFor(uri, (p) => p.diagnostics.length === 0);
    client.settings = { severity: { DD003: 'off' } };
    await client.connection.sendNotification('workspace/didChangeConfiguration', { settings: { deviceDoctor: client.settings } });
    await turnedOff;
    client.settings = {};
  });

  it('puts a notebook diagnostic in its cell and its preferred fix in the cell that created the tensor', async () => {
    const notebookUri = 'file:///work/project/mismatch.ipynb';
    const cell = (id: string) => `vscode-notebook-cell:/work/project/mismatch.ipynb#${id}`;
    const cells = [
      'import torch\nimport torch.nn as nn\ndevice = torch.device("cuda" if torch.cuda.is_available() else "cpu")\nx = torch.randn(4, 10)\n',
      'model = nn.Linear(10, 2).to(device)\nmodel(x)\n',
    ];
    const firstCell = client.diagnosticsFor(cell('a'));
    const secondCell = client.diagnosticsFor(cell('b'));
    await client.connection.sendNotification('notebookDocument/didOpen', {
      notebookDocument: { uri: notebookUri, notebookType: 'jupyter-notebook', version: 1, cells: [{ kind: 2, document: cell('a') }, { kind: 2, document: cell('b') }] },
      cellTextDocuments: cells.map((text, i) => ({ uri: cell('ab'[i]), languageId: 'python', version: 4 + i, text })),
    });
    assert.deepStrictEqual((await firstCell).diagnostics, []);
    const [dd001] = (await secondCell).diagnostics;
    assert.strictEqual(dd001?.code, 'DD001', JSON.stringify(dd001));
    assert.ok(dd001.relatedInformation?.some((r) => r.location.uri === cell('a')), 'x was created in the first cell');

    const actions: CodeAction[] = await client.connection.sendRequest('textDocument/codeAction', {
      textDocument: { uri: cell('b') }, range: dd001.range, context: { diagnostics: [dd001] },
    });
    const change = actions.find((a) => a.isPreferred)?.edit?.documentChanges?.[0];
    assert.ok(change && 'edits' in change, JSON.stringify(actions));
    assert.deepStrictEqual(change.textDocument, { uri: cell('a'), version: 4 });
    assert.match(applyTextEdits(cells[0], change.edits as TextEdit[]), /x = torch\.randn\(4, 10, device=device\)/);
  });

  it('finds a mistake typed into an open file through incremental changes', async () => {
    const uri = 'file:///work/project/typed.py';
    const opened = client.diagnosticsFor(uri);
    await client.openFile(uri, 'import torch\nt = torch.tensor([1.0]).to("cuda" if torch.cuda.is_available() else "cpu")\n');
    assert.deepStrictEqual((await opened).diagnostics, []);
    const typed = client.diagnosticsFor(uri, (p) => p.version === 3);
    const end = { line: 2, character: 0 };
    await client.connection.sendNotification('textDocument/didChange', { textDocument: { uri, version: 2 }, contentChanges: [{ range: { start: end, end }, text: 't.num' }] });
    await client.connection.sendNotification('textDocument/didChange', {
      textDocument: { uri, version: 3 },
      contentChanges: [{ range: { start: { line: 2, character: 5 }, end: { line: 2, character: 5 } }, text: 'py()\n' }],
    });
    assert.deepStrictEqual((await typed).diagnostics.map((d) => d.code), ['DD003']);
  });

  it('fix-all on save and "Ignore on this line" each leave the file clean once applied', async () => {
    const uri = 'file:///work/project/fixall.py';
    const source = 'import torch\nx = torch.zeros(3)\nx.to("cuda" if torch.cuda.is_available() else "cpu")  # noqa: E501\nt = torch.tensor([1.0]).to("cuda" if torch.cuda.is_available() else "cpu")\nt.numpy()\n';
    const opened = client.diagnosticsFor(uri);
    await client.openFile(uri, source);
    const diagnostics = (await opened).diagnostics;
    assert.deepStrictEqual(diagnostics.map((d) => d.code).sort(), ['DD003', 'DD004']);

    const [fixAll]: CodeAction[] = await client.connection.sendRequest('textDocument/codeAction', {
      textDocument: { uri }, range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } },
      context: { diagnostics: [], only: ['source.fixAll'] },
    });
    assert.strictEqual(fixAll?.kind, 'source.fixAll.deviceDoctor');
    const fixAllChange = fixAll.edit?.documentChanges?.[0];
    assert.ok(fixAllChange && 'edits' in fixAllChange);
    const fixed = applyTextEdits(source, fixAllChange.edits as TextEdit[]);
    const clean = client.diagnosticsFor(uri, (p) => p.version === 2);
    await client.connection.sendNotification('textDocument/didChange', { textDocument: { uri, version: 2 }, contentChanges: [{ text: fixed }] });
    assert.deepStrictEqual((await clean).diagnostics, [], fixed);

    const back = client.diagnosticsFor(uri, (p) => p.version === 3);
    await client.connection.sendNotification('textDocument/didChange', { textDocument: { uri, version: 3 }, contentChanges: [{ text: source }] });
    const again = (await back).diagnostics;
    const actions: CodeAction[] = await client.connection.sendRequest('textDocument/codeAction', {
      textDocument: { uri }, range: again[0].range, context: { diagnostics: again, only: ['quickfix'] },
    });
    const ignoreEdits = actions.filter((a) => a.title.startsWith('Ignore')).flatMap((a) => {
      const change = a.edit?.documentChanges?.[0];
      return change && 'edits' in change ? (change.edits as TextEdit[]) : [];
    });
    assert.strictEqual(ignoreEdits.length, 2);
    const suppressed = applyTextEdits(source, ignoreEdits);
    assert.match(suppressed, /x\.to\("cuda" if torch\.cuda\.is_available\(\) else "cpu"\)  # noqa: E501, DD004\n/);
    const quiet = client.diagnosticsFor(uri, (p) => p.version === 4);
    await client.connection.sendNotification('textDocument/didChange', { textDocument: { uri, version: 4 }, contentChanges: [{ text: suppressed }] });
    assert.deepStrictEqual((await quiet).diagnostics, [], suppressed);
  });
});
