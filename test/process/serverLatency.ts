// Keystroke-to-diagnostics latency on a 10,000-line file, measured over stdio against
// dist/server.js (not a test: `npx tsx test/process/serverLatency.ts`). Types one character
// at a time with a pause between keystrokes, and reports, per keystroke that got its own
// publication, the milliseconds from the didChange to the diagnostics of that version, and
// how long a code-action request on a small file waited meanwhile.
import { generateTrainingScript } from '../unit/helpers/bigScript';
import { ensureServerBuilt, TestClient } from './serverClient';

async function main(): Promise<void> {
  ensureServerBuilt();
  const { client } = await TestClient.start();
  client.settings = { maxFileLines: 0, maxFileBytes: 0 };
  const { text } = generateTrainingScript(10_000);
  const lines = text.split('\n').length;
  const uri = 'file:///work/project/big.py';
  const small = 'file:///work/project/small.py';
  const smallOpened = client.diagnosticsFor(small);
  await client.openFile(small, 'import torch\n');
  await smallOpened;
  const opened = client.diagnosticsFor(uri, () => true, 120_000);
  let started = Date.now();
  await client.openFile(uri, text);
  await opened;
  console.log(`${lines} lines, ${text.length} chars; first analysis ${Date.now() - started} ms`);
  const latencies: number[] = [];
  const actionWaits: number[] = [];
  const pauseMs = Number(process.env.PAUSE_MS ?? 600);
  for (let version = 2; version <= 11; version++) {
    const published = client.diagnosticsFor(uri, (p) => p.version === version, 120_000);
    started = Date.now();
    await client.connection.sendNotification('textDocument/didChange', {
      textDocument: { uri, version },
      contentChanges: [{ range: { start: { line: 5, character: 0 }, end: { line: 5, character: 0 } }, text: '#' }],
    });
    // A code action on another file shortly after the keystroke, while the big file is analysed.
    await new Promise((resolve) => setTimeout(resolve, 250));
    const asked = Date.now();
    await client.connection.sendRequest('textDocument/codeAction', {
      textDocument: { uri: small }, range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, context: { diagnostics: [] },
    });
    actionWaits.push(Date.now() - asked);
    await published;
    latencies.push(Date.now() - started);
    await new Promise((resolve) => setTimeout(resolve, pauseMs));
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  console.log(`keystroke -> diagnostics ms: ${latencies.join(' ')} (median ${median(latencies)})`);
  console.log(`code action on a small file, asked 250 ms after the keystroke, answered in ms: ${actionWaits.join(' ')} (median ${median(actionWaits)})`);
  await client.stop();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
