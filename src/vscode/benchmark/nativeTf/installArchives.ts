// The second half of the native install: the archives tfjs-node's (skipped) install script would
// have fetched, each downloaded by us, kept only when its SHA-256 is the pinned one, and unpacked
// where tfjs-node looks for it (deps/ for libtensorflow, lib/napi-v8/ for the binding), as its
// installer would. Unpacked with the system's tar, found through the one PATH lookup.
import * as fs from 'fs';
import * as path from 'path';
import { runTool } from '../../../node/processRunner';
import type { PinnedArchive } from './nativeTfArchives';
import { ArchiveRejected, downloadVerified, type HttpsGet } from './verifiedDownload';

export interface ArchiveInstallOptions {
  /** node_modules/@tensorflow/<package> */
  packageDir: string;
  /** Where the downloads are kept while they are checked (the install's own folder). */
  prefix: string;
  archives: readonly PinnedArchive[];
  env: NodeJS.ProcessEnv;
  signal?: AbortSignal;
  onOutput(line: string): void;
  get?: HttpsGet;
}

export type ArchivesResult = { kind: 'installed'; packageDir: string } | { kind: 'cancelled' } | { kind: 'failed'; message: string };

const UNPACK_TIMEOUT_MS = 10 * 60_000;

export async function installArchives(options: ArchiveInstallOptions): Promise<ArchivesResult> {
  const downloads = path.join(options.prefix, '.downloads');
  fs.mkdirSync(downloads, { recursive: true, mode: 0o700 });
  try {
    for (const archive of options.archives) {
      // planNativeInstall never hands over an archive without a hash; this keeps it so if that changes.
      if (archive.sha256 === null) return { kind: 'failed', message: `${archive.what} has no pinned checksum: not installed.` };
      const file = path.join(downloads, path.basename(new URL(archive.url).pathname));
      options.onOutput(`Downloading ${archive.what} from ${archive.url}`);
      await downloadVerified(archive.url, archive.sha256, file, { get: options.get, signal: options.signal });
      options.onOutput(`SHA-256 ${archive.sha256} verified`);
      const failure = await unpack(file, path.join(options.packageDir, archive.into), archive.strip, options);
      if (failure) return { kind: 'failed', message: failure };
    }
    return { kind: 'installed', packageDir: options.packageDir };
  } catch (error) {
    if (options.signal?.aborted) return { kind: 'cancelled' };
    if (error instanceof ArchiveRejected) return { kind: 'failed', message: error.message };
    return { kind: 'failed', message: `Could not download TensorFlow: ${error instanceof Error ? error.message : String(error)} (offline?)` };
  } finally {
    fs.rmSync(downloads, { recursive: true, force: true });
  }
}

/** null when unpacked; else one sentence. */
async function unpack(file: string, into: string, strip: number, options: ArchiveInstallOptions): Promise<string | null> {
  fs.mkdirSync(into, { recursive: true });
  const args = ['-xzf', file, '-C', into, '--no-same-owner', ...(strip > 0 ? [`--strip-components=${strip}`] : [])];
  const run = await runTool('tar', args, { timeoutMs: UNPACK_TIMEOUT_MS, env: options.env, signal: options.signal });
  if (run.exitCode === 0) return null;
  const why = run.errorMessage ?? (run.stderr.trim().split('\n').pop() || `exit code ${run.exitCode}`);
  return `Could not unpack ${path.basename(file)} with tar: ${why}`;
}
