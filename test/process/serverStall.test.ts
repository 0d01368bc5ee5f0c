// No document waits behind another's long analysis: a large file within the default limits
// (about 49,000 lines, 1.5 MB), analysed for seconds, must not hold up a small file's
// diagnostics, whether it was just opened or is being edited every 500 ms. Asserts the order
// of publications and figures relative to the large file's own analysis, measured in the
// same run, rather than fixed times.
import * as assert from 'assert';
import type { PublishDiagnosticsParams } from 'vscode-languageserver-protocol';
import { DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES } from '../../src/core/python/limits';
import { generateTrainingScript } from '../unit/helpers/bigScript';
import { ensureServerBuilt, TestClient } from './serverClient';
import { DD003_SOURCE } from './serverProbe';

const LARGE = generateTrainingScript(49_000);
const EDIT_EVERY_MS = 500;
/** Opened while the large file is edited: with one worker, each waits for the rest of the run it lands in. */
const SMALL_FILES = 6;

async function waitFor(condition: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** The publication of `uri` (at `version`, if given), failing with the versions seen rather than a 1.5 MB dump of findings. */
function published(client: TestClient, uri: string, version?: number): Promise<PublishDiagnosticsParams> {
  return client.diagnosticsFor(uri, (p) => version === undefined || p.version === version, 240_000).catch(() => {
    const seen = client.published.filter((p) => p.uri === uri).map((p) => p.version);
    throw new Error(`no diagnostics for ${uri}${version === undefined ? '' : ` version ${version}`}; published versions: ${JSON.stringify(seen)}`);
  });
}

/** Opens `uri` with the DD003 program and resolves with the milliseconds until its DD003 was published. */
async function openSmall(client: TestClient, uri: string): Promise<number> {
  const started = Date.now();
  const publication = published(client, uri);
  await client.openFile(uri, DD003_SOURCE);
  assert.deepStrictEqual((await publication).diagnostics.map((d) => d.code), ['DD003'], uri);
  return Date.now() - started;
}

describe('server: no document waits behind another\'s long analysis', function () {
  this.timeout(300_000);
  let client: TestClient;

  before(() => {
    ensureServerBuilt();
    assert.ok(LARGE.text.split('\n').length < DEFAULT_MAX_LINES, 'the large file is within the default line limit');
    assert.ok(Buffer.byteLength(LARGE.text) < DEFAULT_MAX_BYTES, 'the large file is within the default byte limit');
  });

  beforeEach(async () => {
    ({ client } = await TestClient.start());
  });

  afterEach(async () => client?.stop());

  it('a small file\'s diagnostics are not held up by a large one', async () => {
    const large = 'file:///work/stall/large.py';
    const order: string[] = [];
    const started = Date.now();
    const largePublished = published(client, large).then((p) => {
      order.push('large');
      return { diagnostics: p.diagnostics, ms: Date.now() - started };
    });
    await client.openFile(large, LARGE.text);
    // Its analysis is queued once the server has its settings: the small file comes after it.
    await waitFor(() => client.configurationScopes.includes(large), 'the settings request for the large file');
    const smallMs = await openSmall(client, 'file:///work/stall/small.py');
    order.push('small');
    const { diagnostics, ms: largeMs } = await largePublished;
    const found = diagnostics.filter((d) => d.code === 'DD003').map((d) => d.range.start.line);
    assert.ok(LARGE.planted.every((line) => found.includes(line)), 'the large file was analysed to its end');
    assert.deepStrictEqual(order, ['small', 'large'], `small file in ${smallMs} ms, large file in ${largeMs} ms`);
    assert.ok(smallMs < largeMs / 4, `the small file took ${smallMs} ms, the large one ${largeMs} ms`);
  });

  it('a file edited every 500 ms does not delay another file\'s diagnostics', async () => {
    const large = 'file:///work/stall/edited.py';
    const opened = published(client, large, 1);
    await client.openFile(large, LARGE.text);
    await opened;
    let version = 1;
    // The whole text each time, as a client without incremental sync sends it: every run is a
    // long one (an incremental run of this file, about a second, would hide a wait in the noise).
    const edit = () => {
      version++;
      return client.changeFile(large, `${LARGE.text}# edit ${version}\n`, version);
    };

    // What one edit of the large file costs, alone: the figure the small files are held against
    // (the smaller of two).
    const editAlone = async (): Promise<number> => {
      const started = Date.now();
      const single = published(client, large, version + 1);
      await edit();
      await single;
      return Date.now() - started;
    };
    const firstEditMs = await editAlone();
    const oneEditMs = Math.min(firstEditMs, await editAlone());

    // Edited every 500 ms (the workload, not a wait): its analyses then run back to back. A small
    // file is opened every fourth edit, so that each lands somewhere inside one of them.
    let editing = true;
    let edits = 0;
    const editsSent: Array<() => void> = [];
    const typist = (async () => {
      while (editing) {
        await edit();
        edits++;
        for (const wake of editsSent.splice(0)) wake();
        await new Promise((resolve) => setTimeout(resolve, EDIT_EVERY_MS));
      }
    })();
    const editCount = async (count: number) => {
      while (edits < count) await new Promise<void>((resolve) => editsSent.push(resolve));
    };
    const smallMs: number[] = [];
    try {
      for (let i = 0; i < SMALL_FILES; i++) {
        await editCount(4 * (i + 1));
        smallMs.push(await openSmall(client, `file:///work/stall/small${i}.py`));
      }
    } finally {
      editing = false;
      await typist;
    }
    const last = version;
    const started = Date.now();
    const lastPublished = await published(client, large, last);
    assert.ok(lastPublished.diagnostics.length >= LARGE.planted.length, 'the large file\'s last version is analysed once the edits stop');
    const figures = `an edit of the large file alone: ${oneEditMs} ms (of two); small files while it was edited: ${smallMs.join(', ')} ms; its last version ${Date.now() - started} ms after the edits stopped`;
    assert.ok(Math.max(...smallMs) < oneEditMs / 3, figures);
  });
});
