// The language server process after input meant to break it: a 20 MB dense file (which
// kills tree-sitter's wasm when nothing stops it) and a pyproject.toml whose per-file-ignores
// glob backtracks on long paths. Each time a later normal file must still get its findings,
// and the server must answer within 2 s.
import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { pathToFileURL } from 'url';
import { ensureServerBuilt, TestClient } from './serverClient';
import { ANSWER_WITHIN_MS, DD003_SOURCE, ServerProbe } from './serverProbe';

/** 20 MB that tree-sitter cannot parse: its 2 GB heap runs out at about 12 MB of '('. */
const DENSE = '('.repeat(20_000_000);
const DENSE_URI = 'file:///work/project/dense.py';

async function waitFor(condition: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('server: a 20 MB dense file with no byte limit crashes the parser; the server reloads it', function () {
  this.timeout(240_000);
  let client: TestClient;
  const probe = () => new ServerProbe(client);
  let checks: ServerProbe;

  before(async () => {
    ensureServerBuilt();
    ({ client } = await TestClient.start());
    client.settings = { maxFileBytes: 0 };
    checks = probe();
    await checks.open();
  });

  after(async () => client?.stop());

  it('publishes nothing for the file that crashed it, then analyses other files and answers within 2 s', async () => {
    // Opened before the crash: its tree belongs to the wasm module that is about to die.
    const before = 'file:///work/project/before.py';
    const opened = client.diagnosticsFor(before);
    await client.openFile(before, 'import torch\nt = torch.tensor([1.0]).to("cuda" if torch.cuda.is_available() else "cpu")\n');
    assert.deepStrictEqual((await opened).diagnostics, []);

    const dense = client.diagnosticsFor(DENSE_URI, () => true, 200_000);
    await client.openFile(DENSE_URI, DENSE);
    assert.deepStrictEqual((await dense).diagnostics, []);
    const crashLogs = client.logs.filter((m) => m.message.includes('dense.py') && m.message.includes('crashed'));
    assert.strictEqual(crashLogs.length, 1, JSON.stringify(client.logs.map((m) => m.message)));
    assert.match(crashLogs[0].message, /20,000,000 characters \(Aborted\(\)/);
    assert.ok(!client.logs.some((m) => m.message.includes('dense.py') && m.message.includes('re-analysed')), 'it is never re-analysed');
    await waitFor(() => client.logs.some((m) => /The Python parser was reloaded in \d+ ms/.test(m.message)), 'the reload to be logged');

    // A new file: findings and a quick fix within 2 s.
    const fresh = 'file:///work/project/after.py';
    const started = Date.now();
    const published = client.diagnosticsFor(fresh);
    await client.openFile(fresh, DD003_SOURCE);
    assert.deepStrictEqual((await published).diagnostics.map((d) => d.code), ['DD003']);
    assert.ok(Date.now() - started < ANSWER_WITHIN_MS, `${Date.now() - started} ms`);
    await checks.check('the crash');

    // The file opened before the crash is parsed again from its text: typing into it works.
    const typed = client.diagnosticsFor(before, (p) => p.version === 2);
    await client.connection.sendNotification('textDocument/didChange', {
      textDocument: { uri: before, version: 2 },
      contentChanges: [{ range: { start: { line: 2, character: 0 }, end: { line: 2, character: 0 } }, text: 't.numpy()\n' }],
    });
    assert.deepStrictEqual((await typed).diagnostics.map((d) => [d.code, d.range.start.line]), [['DD003', 2]]);
  });

  it('does not parse the crashing file again when it changes, and stays prompt', async () => {
    const started = Date.now();
    const again = client.diagnosticsFor(DENSE_URI, (p) => p.version === 2);
    await client.connection.sendNotification('textDocument/didChange', {
      textDocument: { uri: DENSE_URI, version: 2 },
      contentChanges: [{ range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, text: '#' }],
    });
    assert.deepStrictEqual((await again).diagnostics, []);
    assert.ok(Date.now() - started < ANSWER_WITHIN_MS, `a re-parse would take seconds and crash again; took ${Date.now() - started} ms`);
    assert.strictEqual(client.logs.filter((m) => m.message.includes('crashed')).length, 1);
    await checks.check('a change to the crashing file');
  });
});

describe('server: a 20 MB dense file under the default byte limit is skipped before parsing', function () {
  this.timeout(60_000);
  let client: TestClient;
  let checks: ServerProbe;

  before(async () => {
    ensureServerBuilt();
    ({ client } = await TestClient.start());
    checks = new ServerProbe(client);
    await checks.open();
  });

  after(async () => client?.stop());

  it('says once that it is over deviceDoctor.maxFileBytes, without parsing it, and analyses the next file within 2 s', async () => {
    const started = Date.now();
    const dense = client.diagnosticsFor(DENSE_URI);
    await client.openFile(DENSE_URI, DENSE);
    assert.deepStrictEqual((await dense).diagnostics, []);
    const skippedIn = Date.now() - started;
    // Parsing it would take 5 to 25 s here before the crash.
    assert.ok(skippedIn < ANSWER_WITHIN_MS, `skipped in ${skippedIn} ms`);
    const again = client.diagnosticsFor(DENSE_URI, (p) => p.version === 2);
    await client.connection.sendNotification('textDocument/didChange', { textDocument: { uri: DENSE_URI, version: 2 }, contentChanges: [{ text: `${DENSE})` }] });
    await again;

    const warnings = client.logs.filter((m) => m.message.includes('dense.py'));
    assert.strictEqual(warnings.length, 1, JSON.stringify(client.logs.map((m) => m.message)));
    assert.match(warnings[0].message, /dense\.py has 20,000,000 bytes, more than the limit of 2,097,152 \(deviceDoctor\.maxFileBytes\)/);
    assert.ok(!client.logs.some((m) => m.message.includes('crashed')), 'the parser never saw it');

    const fresh = 'file:///work/project/after.py';
    const opened = Date.now();
    const published = client.diagnosticsFor(fresh);
    await client.openFile(fresh, DD003_SOURCE);
    assert.deepStrictEqual((await published).diagnostics.map((d) => d.code), ['DD003']);
    assert.ok(Date.now() - opened < ANSWER_WITHIN_MS, `${Date.now() - opened} ms`);
    await checks.check('a skipped 20 MB file');
  });
});

describe('server: a backtracking per-file-ignores glob and a long path', function () {
  this.timeout(60_000);
  let client: TestClient;
  let checks: ServerProbe;
  let dir: string;

  before(async () => {
    ensureServerBuilt();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dd-glob-'));
    fs.writeFileSync(path.join(dir, 'pyproject.toml'), [
      '[tool.device-doctor.per-file-ignores]',
      // As a regular expression, this backtracks for minutes on a long run of 'a's without a 'b'.
      '"*a*a*a*a*a*a*a*a*a*a*a*a*b" = ["DD003"]',
      '"quiet/*.py" = ["DD003"]',
      '',
    ].join('\n'));
    ({ client } = await TestClient.start());
    checks = new ServerProbe(client);
    await checks.open();
  });

  after(async () => {
    await client?.stop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('still reports DD003 for a file under a 30,000-character path, and honours the other glob, within 2 s', async () => {
    // Folders of 250 'a's and a 5,000-'a' file name: the pattern has no '/', so it is
    // matched against the name too. The file need not exist: its text comes from didOpen.
    const longPath = path.join(dir, ...Array.from({ length: 100 }, () => 'a'.repeat(250)), `${'a'.repeat(5000)}.py`);
    const longUri = pathToFileURL(longPath).href;
    assert.ok(longUri.length > 30_000);
    const started = Date.now();
    const published = client.diagnosticsFor(longUri);
    await client.openFile(longUri, DD003_SOURCE);
    assert.deepStrictEqual((await published).diagnostics.map((d) => d.code), ['DD003'], 'no "b" in the path: not ignored');
    assert.ok(Date.now() - started < ANSWER_WITHIN_MS, `${Date.now() - started} ms`);

    const quietUri = pathToFileURL(path.join(dir, 'quiet', 'eval.py')).href;
    const quiet = client.diagnosticsFor(quietUri);
    await client.openFile(quietUri, DD003_SOURCE);
    assert.deepStrictEqual((await quiet).diagnostics, [], 'the pyproject.toml applies: quiet/*.py ignores DD003');
    await checks.check('matching the backtracking glob');
  });
});
