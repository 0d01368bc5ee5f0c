// A check that a language server under test still works: one small file edited to a new
// version must get its DD003 for that version, and its quick fix, within a deadline.
import * as assert from 'assert';
import type { CodeAction, TextEdit } from 'vscode-languageserver-protocol';
import { applyTextEdits } from '../../src/core/python/edits';
import type { TestClient } from './serverClient';

export const DD003_SOURCE = 'import torch\nt = torch.tensor([1.0]).to("cuda" if torch.cuda.is_available() else "cpu")\nt.numpy()\n';
export const PROBE_URI = 'file:///work/probe/probe.py';
/** What "answers promptly" means in these tests. */
export const ANSWER_WITHIN_MS = 2000;

export class ServerProbe {
  private version = 1;

  constructor(private readonly client: TestClient) {}

  /** Opens the probe file; call once, before the first check. */
  async open(): Promise<void> {
    const published = this.client.diagnosticsFor(PROBE_URI, (p) => p.version === 1);
    await this.client.openFile(PROBE_URI, DD003_SOURCE, 1);
    assert.deepStrictEqual((await published).diagnostics.map((d) => d.code), ['DD003']);
  }

  /**
   * Edits the probe file to a fresh variable name and asserts, within ANSWER_WITHIN_MS, the
   * DD003 of that version on line 3 and a code action whose preferred fix is `.cpu()` on
   * that name. Returns the milliseconds it took.
   */
  async check(what: string): Promise<number> {
    const version = ++this.version;
    const name = `t${version}`;
    const text = `import torch\n${name} = torch.tensor([1.0]).to("cuda" if torch.cuda.is_available() else "cpu")\n${name}.numpy()\n`;
    const started = Date.now();
    const published = this.client.diagnosticsFor(PROBE_URI, (p) => p.version === version, 30_000);
    await this.client.connection.sendNotification('textDocument/didChange', {
      textDocument: { uri: PROBE_URI, version },
      contentChanges: [{ text }],
    });
    const { diagnostics } = await published;
    assert.deepStrictEqual(diagnostics.map((d) => [d.code, d.range.start.line]), [['DD003', 2]], `after ${what}`);
    const actions: CodeAction[] = await this.client.connection.sendRequest('textDocument/codeAction', {
      textDocument: { uri: PROBE_URI }, range: diagnostics[0].range, context: { diagnostics },
    });
    const change = actions.find((a) => a.isPreferred)?.edit?.documentChanges?.[0];
    assert.ok(change && 'edits' in change, `after ${what}: ${JSON.stringify(actions)}`);
    assert.strictEqual(applyTextEdits(text, change.edits as TextEdit[]).split('\n')[2], `${name}.cpu().numpy()`, `after ${what}`);
    const elapsed = Date.now() - started;
    assert.ok(elapsed < ANSWER_WITHIN_MS, `after ${what} the server took ${elapsed} ms to analyse a 3-line file and answer a code action`);
    return elapsed;
  }
}
