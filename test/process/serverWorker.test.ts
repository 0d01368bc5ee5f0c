// The analysis runs in a worker thread of the server: while a long analysis of a large file
// runs, the server still answers a code action for another document, from its stored findings.
// Asserts the order of the answers, not how long anything took.
import * as assert from 'assert';
import type { CodeAction, Diagnostic, TextEdit } from 'vscode-languageserver-protocol';
import { applyTextEdits } from '../../src/core/python/edits';
import { generateTrainingScript } from '../unit/helpers/bigScript';
import { ensureServerBuilt, TestClient } from './serverClient';
import { DD003_SOURCE } from './serverProbe';

async function waitFor(condition: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('server: analysis in a worker thread', function () {
  this.timeout(180_000);
  let client: TestClient;

  before(async () => {
    ensureServerBuilt();
    ({ client } = await TestClient.start());
    client.settings = { maxFileLines: 0, maxFileBytes: 0 };
  });

  after(async () => client?.stop());

  it('answers a code action on a small file before the diagnostics of a long analysis of a large one', async () => {
    const small = 'file:///work/project/small.py';
    const smallPublished = client.diagnosticsFor(small);
    await client.openFile(small, DD003_SOURCE);
    const [dd003] = (await smallPublished).diagnostics.filter((d: Diagnostic) => d.code === 'DD003');
    assert.ok(dd003, 'the small file has its DD003');

    const big = 'file:///work/project/big.py';
    const { text, planted } = generateTrainingScript(20_000);
    const order: string[] = [];
    const bigPublished = client.diagnosticsFor(big, () => true, 170_000).then((p) => {
      order.push('big diagnostics');
      return p;
    });
    await client.openFile(big, text);
    // Its analysis starts once the server has the big file's settings; give it a moment to be under way.
    await waitFor(() => client.configurationScopes.includes(big), 'the settings request for the big file');
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.strictEqual(order.length, 0, 'the large file\'s analysis is still running (make the file larger if not)');

    const actions: CodeAction[] = await client.connection.sendRequest('textDocument/codeAction', {
      textDocument: { uri: small }, range: dd003.range, context: { diagnostics: [dd003] },
    });
    order.push('code action');
    const change = actions.find((a) => a.isPreferred)?.edit?.documentChanges?.[0];
    assert.ok(change && 'edits' in change, JSON.stringify(actions));
    assert.strictEqual(applyTextEdits(DD003_SOURCE, change.edits as TextEdit[]).split('\n')[2], 't.cpu().numpy()');

    const { diagnostics } = await bigPublished;
    assert.deepStrictEqual(order, ['code action', 'big diagnostics']);
    const found = diagnostics.filter((d) => d.code === 'DD003').map((d) => d.range.start.line);
    assert.ok(planted.every((line) => found.includes(line)), 'the long analysis reached the end of the file');
  });

  it('drops the result of a run that an edit made stale, and publishes the newer version', async () => {
    const big = 'file:///work/project/big.py';
    const latest = client.diagnosticsFor(big, (p) => p.version === 3, 170_000);
    const edit = (version: number) => client.connection.sendNotification('textDocument/didChange', {
      textDocument: { uri: big, version },
      contentChanges: [{ range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, text: '#\n' }],
    });
    await edit(2);
    // After the 200 ms debounce the analysis of version 2 runs (about a second for 20,000 lines);
    // version 3 arrives while it does.
    await new Promise((resolve) => setTimeout(resolve, 350));
    await edit(3);
    await latest;
    const versions = client.published.filter((p) => p.uri === big).map((p) => p.version);
    assert.deepStrictEqual(versions, [1, 3], 'version 2 was analysed, but its result was stale by then');
  });

  it('answers quick fixes from the last finished analysis, naming its version; fix-all waits for the new one', async () => {
    const uri = 'file:///work/project/stale.py';
    const opened = client.diagnosticsFor(uri);
    await client.openFile(uri, DD003_SOURCE);
    const [dd003] = (await opened).diagnostics;
    const order: string[] = [];
    const ask = (only?: string[]): Promise<CodeAction[]> => client.connection.sendRequest<CodeAction[]>('textDocument/codeAction', {
      textDocument: { uri }, range: dd003.range, context: { diagnostics: [dd003], only },
    }).then((actions) => {
      order.push(only ? 'fix-all' : 'quick fixes');
      return actions;
    });
    const analysed = client.diagnosticsFor(uri, (p) => p.version === 2).then(() => void order.push('version 2 published'));
    await client.connection.sendNotification('textDocument/didChange', {
      textDocument: { uri, version: 2 },
      contentChanges: [{ range: { start: { line: 3, character: 0 }, end: { line: 3, character: 0 } }, text: 'x = 1\n' }],
    });
    // Within the debounce, as on save right after a keystroke: the stored findings are those of version 1.
    const quickAnswer = ask();
    const fixAllAnswer = ask(['source.fixAll']);
    const quick = await quickAnswer;
    assert.deepStrictEqual(order, ['quick fixes'], 'the quick fixes did not wait for the analysis of version 2');
    const preferred = quick.find((a) => a.isPreferred)?.edit?.documentChanges?.[0];
    assert.ok(preferred && 'edits' in preferred, JSON.stringify(quick));
    assert.strictEqual(preferred.textDocument.version, 1, 'the client refuses it if the text has moved on');
    assert.ok(!quick.some((a) => a.kind === 'source.fixAll.deviceDoctor'), 'no fix-all from stale findings');

    const [fixAll] = await fixAllAnswer;
    await analysed;
    assert.deepStrictEqual(order, ['quick fixes', 'version 2 published', 'fix-all']);
    const change = fixAll?.edit?.documentChanges?.[0];
    assert.ok(change && 'edits' in change, JSON.stringify(fixAll));
    assert.strictEqual(change.textDocument.version, 2, 'fix-all is computed on the text being saved');
  });
});
