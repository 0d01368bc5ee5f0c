// Downloads one pinned archive through Node's https, hashing it as it arrives, and keeps it only
// when its SHA-256 is the pinned one: a different file (a changed upload, a proxy's error page, a
// truncated transfer) is deleted and refused. Redirects are followed only to https. No vscode
// import: tested with a fake https.get.
import { createHash } from 'crypto';
import * as fs from 'fs';
import * as https from 'https';
import type { IncomingMessage } from 'http';
import { pipeline } from 'stream/promises';
import { Transform } from 'stream';

/** https.get as used here; tests pass a fake that answers with a stream of their own. */
export type HttpsGet = (url: string, onResponse: (response: IncomingMessage) => void) => { on(event: 'error', listener: (error: Error) => void): unknown; destroy(): void };

export interface DownloadOptions {
  get?: HttpsGet;
  signal?: AbortSignal;
}

/** The archive was fetched but is not the pinned one: never installed. */
export class ArchiveRejected extends Error {}

const MAX_REDIRECTS = 5;

/** Writes `url` to `dest` if and only if its SHA-256 is `sha256` (hex); otherwise rejects and leaves no file. */
export async function downloadVerified(url: string, sha256: string, dest: string, options: DownloadOptions = {}): Promise<void> {
  const response = await open(url, options, MAX_REDIRECTS);
  const hash = createHash('sha256');
  const hashing = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      done(null, chunk);
    },
  });
  try {
    await pipeline(response, hashing, fs.createWriteStream(dest, { mode: 0o600 }), { signal: options.signal });
  } catch (error) {
    fs.rmSync(dest, { force: true });
    throw error;
  }
  const actual = hash.digest('hex');
  if (actual !== sha256.toLowerCase()) {
    fs.rmSync(dest, { force: true });
    throw new ArchiveRejected(`${url} was refused: its SHA-256 is ${actual}, not the pinned ${sha256}.`);
  }
}

function open(url: string, options: DownloadOptions, redirectsLeft: number): Promise<IncomingMessage> {
  if (!url.startsWith('https://')) return Promise.reject(new ArchiveRejected(`${url} was refused: only https is used.`));
  const get: HttpsGet = options.get ?? ((u, onResponse) => https.get(u, onResponse));
  return new Promise((resolve, reject) => {
    const request = get(url, (response) => {
      const status = response.statusCode ?? 0;
      const location = response.headers.location;
      if (status >= 300 && status < 400 && location) {
        response.resume();
        if (redirectsLeft === 0) return reject(new Error(`${url} redirected too many times.`));
        return resolve(open(new URL(location, url).toString(), options, redirectsLeft - 1));
      }
      if (status !== 200) {
        response.resume();
        return reject(new Error(`${url} answered HTTP ${status}.`));
      }
      resolve(response);
    });
    request.on('error', reject);
    options.signal?.addEventListener('abort', () => request.destroy(), { once: true });
  });
}
