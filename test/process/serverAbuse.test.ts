// Language-server abuse: what a buggy or hostile client may send. Ranges past the end of the
// document (and reversed, and negative), binary text, a 5,000-cell notebook and 1,000 changes
// in a burst. After each, the server must have kept the client's text exactly (its findings
// say so) and must answer a later request for a small file correctly within 2 s.
import * as assert from 'assert';
import type { CodeAction, Diagnostic, TextEdit } from 'vscode-languageserver-protocol';
import { TextDocument } from 'vscode-languageserver-textdocument';
import type { TextDocumentContentChangeEvent } from 'vscode-languageserver-textdocument';
import { applyTextEdits } from '../../src/core/python/edits';
import { ensureServerBuilt, TestClient } from './serverClient';
import { ServerProbe } from './serverProbe';

const MOVE_TO_CUDA = 't = torch.tensor([1.0]).to("cuda" if torch.cuda.is_available() else "cpu")\n';

/** The client's copy of a document: the same library the server uses applies each change. */
class ClientDocument {
  private document: TextDocument;

  constructor(readonly uri: string, text: string, private readonly client: TestClient) {
    this.document = TextDocument.create(uri, 'python', 1, text);
  }

  get text(): string {
    return this.document.getText();
  }

  get version(): number {
    return this.document.version;
  }

  async open(): Promise<void> {
    await this.client.openFile(this.uri, this.text, 1);
  }

  /** Sends one didChange (not awaited by the server: a burst is a burst) and applies it here. */
  change(changes: TextDocumentContentChangeEvent[]): Promise<void> {
    this.document = TextDocument.update(this.document, changes, this.version + 1);
    return this.client.connection.sendNotification('textDocument/didChange', {
      textDocument: { uri: this.uri, version: this.version },
      contentChanges: changes,
    });
  }

  end(): { line: number; character: number } {
    return this.document.positionAt(this.text.length);
  }

  /** The diagnostics the server publishes for `version` (ask before sending the change that makes it). */
  published(version: number, timeoutMs = 30_000): Promise<Diagnostic[]> {
    return this.client.diagnosticsFor(this.uri, (p) => p.version === version, timeoutMs).then((p) => p.diagnostics);
  }

  /** The line of the client's text where `.numpy()` is called. */
  numpyLine(): number {
    return this.text.split(/\r\n|\r|\n/).findIndex((line) => line.includes('t.numpy()'));
  }
}

describe('server: language-server abuse', function () {
  this.timeout(120_000);
  let client: TestClient;
  let checks: ServerProbe;

  before(async () => {
    ensureServerBuilt();
    ({ client } = await TestClient.start());
    checks = new ServerProbe(client);
    await checks.open();
  });

  after(async () => client?.stop());

  it('takes ranges past the end, past a line\'s end, reversed and negative as the client does', async () => {
    const doc = new ClientDocument('file:///work/abuse/ranges.py', 'import torch\n', client);
    const opened = client.diagnosticsFor(doc.uri);
    await doc.open();
    await opened;
    // Past the end of the document, then past the end of a line.
    await doc.change([{ range: { start: { line: 40, character: 7 }, end: { line: 90, character: 3 } }, text: MOVE_TO_CUDA }]);
    await doc.change([{ range: { start: { line: 0, character: 500 }, end: { line: 0, character: 900 } }, text: '  # the one torch' }]);
    // Reversed (the end before the start): 't' replaced by 't'.
    await doc.change([{ range: { start: { line: 1, character: 1 }, end: { line: 1, character: 0 } }, text: 't' }]);
    await doc.change([{ range: { start: { line: -3, character: -1 }, end: { line: -1, character: 0 } }, text: '# head\n' }]);
    // Reversed and past the end: the last line break replaced by a line break.
    await doc.change([{ range: { start: { line: 3, character: 5 }, end: { line: 2, character: 10_000 } }, text: '\n' }]);
    const published = doc.published(7);
    await doc.change([{ range: { start: { line: 1000, character: 0 }, end: { line: 1000, character: 0 } }, text: 't.numpy()\n' }]);
    assert.strictEqual(doc.text, '# head\nimport torch  # the one torch\nt = torch.tensor([1.0]).to("cuda" if torch.cuda.is_available() else "cpu")\nt.numpy()\n', 'the client\'s own reading of those ranges');
    const diagnostics = await published;
    assert.deepStrictEqual(diagnostics.map((d) => [d.code, d.range.start.line, d.range.start.character]), [['DD003', doc.numpyLine(), 2]]);

    // The fix edits the server's copy: applied to the client's text it must be right.
    const actions: CodeAction[] = await client.connection.sendRequest('textDocument/codeAction', {
      textDocument: { uri: doc.uri }, range: diagnostics[0].range, context: { diagnostics },
    });
    const change = actions.find((a) => a.isPreferred)?.edit?.documentChanges?.[0];
    assert.ok(change && 'edits' in change, JSON.stringify(actions));
    assert.match(applyTextEdits(doc.text, change.edits as TextEdit[]), /\nt\.cpu\(\)\.numpy\(\)\n$/);
    await checks.check('ranges past the end');
  });

  it('analyses binary text (NULs, lone surrogates, every UTF-16 unit) without losing the file', async () => {
    let seed = 11;
    let noise = '\u0000'.repeat(64) + '\ud800\udfff\udc00x\ud83d\ufffe\uffff\u0085\u2028\u2029';
    for (let i = 0; i < 50_000; i++) {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      noise += String.fromCharCode(seed % 0x10000);
    }
    const doc = new ClientDocument('file:///work/abuse/binary.py', noise, client);
    const opened = client.diagnosticsFor(doc.uri);
    await doc.open();
    assert.deepStrictEqual((await opened).diagnostics, [], 'nothing to find in noise');
    // The same noise again, inside, through incremental changes.
    await doc.change([{ range: { start: { line: 3, character: 2 }, end: { line: 5, character: 1 } }, text: '\u0000\ud800\n\udfff' }]);
    await checks.check('binary text');

    // Replacing the noise with a program: the file is analysed as usual again.
    const published = doc.published(3);
    await doc.change([{ text: `import torch\n${MOVE_TO_CUDA}t.numpy()\n` }]);
    assert.deepStrictEqual((await published).map((d) => d.code), ['DD003']);
  });

  it('analyses a 5,000-cell notebook as one program and keeps answering', async () => {
    const notebookUri = 'file:///work/abuse/huge.ipynb';
    const cell = (i: number) => `vscode-notebook-cell:/work/abuse/huge.ipynb#c${i}`;
    const texts = Array.from({ length: 5000 }, (_, i) => `x${i} = torch.zeros(${i % 7})\n`);
    texts[0] = `import torch\n${MOVE_TO_CUDA}`;
    texts[4999] = 't.numpy()\n';
    const started = Date.now();
    const last = client.diagnosticsFor(cell(4999), () => true, 60_000);
    const first = client.diagnosticsFor(cell(0), () => true, 60_000);
    await client.connection.sendNotification('notebookDocument/didOpen', {
      notebookDocument: { uri: notebookUri, notebookType: 'jupyter-notebook', version: 1, cells: texts.map((_, i) => ({ kind: 2, document: cell(i) })) },
      cellTextDocuments: texts.map((text, i) => ({ uri: cell(i), languageId: 'python', version: 1, text })),
    });
    const [dd003] = (await last).diagnostics;
    assert.strictEqual(dd003?.code, 'DD003', 'the tensor moved in the first cell reaches .numpy() in the last');
    assert.ok(dd003.relatedInformation?.some((r) => r.location.uri === cell(0)), JSON.stringify(dd003));
    assert.deepStrictEqual((await first).diagnostics, []);
    const analysedIn = Date.now() - started;
    const actions: CodeAction[] = await client.connection.sendRequest('textDocument/codeAction', {
      textDocument: { uri: cell(4999) }, range: dd003.range, context: { diagnostics: [dd003] },
    });
    assert.ok(actions.some((a) => a.isPreferred), JSON.stringify(actions));
    await checks.check(`a 5,000-cell notebook (analysed in ${analysedIn} ms)`);
  });

  it('takes 1,000 changes in a burst and ends on the client\'s text', async () => {
    const doc = new ClientDocument('file:///work/abuse/typed.py', '', client);
    const opened = client.diagnosticsFor(doc.uri);
    await doc.open();
    await opened;
    const program = `import torch\n${MOVE_TO_CUDA}${'# some notes\n'.repeat(80)}t.numpy()\n`;
    assert.ok(program.length > 1000);
    const sent: Array<Promise<void>> = [];
    // 999 keystrokes at the end, without waiting for anything, then the rest at once.
    for (let i = 0; i < 999; i++) {
      const end = doc.end();
      sent.push(doc.change([{ range: { start: end, end }, text: program[i] }]));
    }
    const end = doc.end();
    const published = doc.published(1001);
    sent.push(doc.change([{ range: { start: end, end }, text: program.slice(999) }]));
    await Promise.all(sent);
    assert.strictEqual(doc.version, 1001);
    assert.strictEqual(doc.text, program);
    assert.deepStrictEqual((await published).map((d) => [d.code, d.range.start.line]), [['DD003', doc.numpyLine()]]);
    await checks.check('1,000 changes in a burst');
  });
});
