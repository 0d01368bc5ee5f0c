// Install Native TensorFlow Backend, without the editor: find npm, copy the manifest and lockfile
// shipped in media/nativeTf/<package>/ into the package's own folder, run `npm ci --ignore-scripts`
// there without a shell (the whole tree pinned, integrity-checked, no install scripts), then fetch
// the native archives tfjs-node's skipped install script would have fetched, each checked against
// its pinned SHA-256 (nativeTfArchives.ts, installArchives.ts). Streams output, stops on cancel,
// and turns a failure into one sentence. No vscode import: tested with a fake npm.
//
// Trust: the command asks for a trusted workspace and a confirmation first. npm comes from VS Code's
// runtime folder or PATH (never an executable a workspace names) and runs in the extension's global
// storage (no workspace .npmrc or package.json is read), with fixed arguments and an environment
// without the variables that redirect TensorFlow's downloads (scrubInstallEnv).
import * as fs from 'fs';
import * as path from 'path';
import { TextTail } from '../../../node/processOutput';
import { startProcess, whenAborted } from '../../../node/processRunner';
import { installArchives } from './installArchives';
import type { NativeTfPackage, PinnedArchive } from './nativeTfArchives';
import type { HttpsGet } from './verifiedDownload';

export type { NativeTfPackage } from './nativeTfArchives';
/** Matches the bundled tfjs-core (src/worker/engines/nativeTf.ts NATIVE_TF_VERSION). */
export const NATIVE_TF_INSTALL_VERSION = '4.22.0';

export interface NpmCommand {
  command: string;
  /** Arguments before npm's own (e.g. npm-cli.js when run through node). */
  prefixArgs: string[];
}

export interface NpmLookup {
  execPath: string;
  env: NodeJS.ProcessEnv;
  platform: NodeJS.Platform;
  exists?: (file: string) => boolean;
}

function isFile(file: string): boolean {
  try {
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

/**
 * npm next to the running Node (a Node install, code-server), else in an absolute PATH entry. On Windows npm is a
 * .cmd, which Node will not spawn without a shell: its npm-cli.js is run with node.exe instead.
 */
export function findNpm(lookup: NpmLookup): NpmCommand | null {
  const exists = lookup.exists ?? isFile;
  const windows = lookup.platform === 'win32';
  const p = windows ? path.win32 : path.posix;
  const pathKey = Object.keys(lookup.env).find((k) => k.toUpperCase() === 'PATH') ?? 'PATH';
  // Empty and relative entries mean the current folder (a workspace's): never looked in.
  const dirs = [p.dirname(lookup.execPath), ...(lookup.env[pathKey] ?? '').split(p.delimiter)].filter((dir) => dir !== '' && p.isAbsolute(dir));
  for (const dir of dirs) {
    if (!windows) {
      if (exists(p.join(dir, 'npm'))) return { command: p.join(dir, 'npm'), prefixArgs: [] };
      continue;
    }
    const cli = p.join(dir, 'node_modules', 'npm', 'bin', 'npm-cli.js');
    const node = p.join(dir, 'node.exe');
    if (exists(p.join(dir, 'npm.cmd')) && exists(cli) && exists(node)) return { command: node, prefixArgs: [cli] };
  }
  return null;
}

/** The whole tree as the shipped lockfile pins it; nothing of the packages' own scripts runs. */
export function npmCiArgs(prefix: string): string[] {
  return ['ci', '--ignore-scripts', '--no-audit', '--no-fund', '--prefix', prefix];
}

/** The folder name of a package's own install (its manifest and lockfile in media/nativeTf/ too). */
export function packageFolderName(packageName: NativeTfPackage): string {
  return packageName.replace('@tensorflow/', '');
}

export interface InstallOptions {
  npm: NpmCommand;
  packageName: NativeTfPackage;
  /** <globalStorage>/native/<package>: npm creates node_modules there; the worker searches it. */
  prefix: string;
  /** media/nativeTf: <package>/package.json and package-lock.json, shipped with the extension. */
  lockDir: string;
  /** The pinned archives to fetch after npm (planNativeInstall's, every one with a hash). */
  archives: readonly PinnedArchive[];
  env: NodeJS.ProcessEnv;
  signal?: AbortSignal;
  onOutput(line: string): void;
  /** Tests: a fake https.get. */
  get?: HttpsGet;
}

export type InstallResult =
  | { kind: 'installed'; packageDir: string }
  | { kind: 'cancelled' }
  | { kind: 'failed'; message: string };

/** Runs npm, then fetches and unpacks the archives; always resolves. */
export async function installNativeTf(options: InstallOptions): Promise<InstallResult> {
  try {
    prepareFolder(options);
  } catch (error) {
    return { kind: 'failed', message: `Could not prepare ${options.prefix}: ${error instanceof Error ? error.message : String(error)}` };
  }
  const end = await runNpm(options);
  if (end.cancelled) return { kind: 'cancelled' };
  const packageDir = path.join(options.prefix, 'node_modules', ...options.packageName.split('/'));
  if (end.error) return { kind: 'failed', message: `npm could not be started (${end.error}).` };
  if (end.code !== 0 || !fs.existsSync(path.join(packageDir, 'package.json'))) return { kind: 'failed', message: describeNpmFailure(end.code, end.output) };
  return installArchives({ ...options, packageDir });
}

/** The folder is its own npm project with the shipped manifest and lockfile, so npm never walks up to a package.json above it. */
function prepareFolder(options: InstallOptions): void {
  fs.mkdirSync(options.prefix, { recursive: true });
  const shipped = path.join(options.lockDir, packageFolderName(options.packageName));
  for (const file of ['package.json', 'package-lock.json']) fs.copyFileSync(path.join(shipped, file), path.join(options.prefix, file));
}

interface NpmEnd {
  code: number | null;
  output: string;
  cancelled: boolean;
  error?: string;
}

const MAX_KEPT_OUTPUT = 64 * 1024;

/** npm runs in its own group: a cancel kills it and anything it started. */
async function runNpm(options: InstallOptions): Promise<NpmEnd> {
  const args = [...options.npm.prefixArgs, ...npmCiArgs(options.prefix)];
  const output = new TextTail(MAX_KEPT_OUTPUT);
  const take = (line: string): void => {
    output.add(`${line}\n`);
    options.onOutput(line);
  };
  const npm = startProcess(options.npm.command, args, {
    cwd: options.prefix,
    env: withDirOnPath(scrubInstallEnv(options.env), path.dirname(options.npm.command)),
    onStdoutLine: take,
    onStderrLine: take,
  });
  let cancelled = false;
  const unsubscribe = whenAborted(options.signal, () => {
    cancelled = true;
    npm.kill();
  });
  const end = await npm.ended;
  unsubscribe();
  return { code: end.exitCode, output: output.text, cancelled, error: end.errorCode ? end.errorMessage : undefined };
}

/**
 * Variables that would send TensorFlow's downloads elsewhere (tfjs-node's TFJS_NODE_CDN_STORAGE,
 * TFJS_NODE_BASE_URI, CDN_STORAGE, their npm_config_ forms, node-pre-gyp's
 * npm_config_<module>_binary_host_mirror) or load code into npm's own Node (NODE_OPTIONS). None is
 * needed with --ignore-scripts and our own downloads: they are dropped so that nothing in the
 * environment can change what is fetched. Proxy and registry settings stay.
 */
const REDIRECTING_VARIABLE = /^(TFJS_|npm_config_tfjs|CDN_STORAGE$|NODE_OPTIONS$)|binary_host_mirror$|binary_host$/i;

export function scrubInstallEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([name]) => !REDIRECTING_VARIABLE.test(name)));
}

/** npm runs `node` for some commands: the one next to the npm found must come first on PATH. */
export function withDirOnPath(env: NodeJS.ProcessEnv, dir: string): NodeJS.ProcessEnv {
  const key = Object.keys(env).find((k) => k.toUpperCase() === 'PATH') ?? 'PATH';
  const rest = env[key] ? `${path.delimiter}${env[key]}` : '';
  return { ...env, [key]: `${dir}${rest}` };
}

/** A failed connection, as Node and npm word it. */
const CONNECTION_ERROR = /\b(ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENETUNREACH|EHOSTUNREACH|getaddrinfo|fetch failed|socket hang up|self[- ]signed certificate|unable to get local issuer certificate)\b/i;
/** npm's own summary lines ("code ENOTFOUND", "errno -3008"), less telling than the error itself. */
const FIELD_LINE = /^(npm (ERR!|error)\s+)?\s*(code|errno|syscall|hostname|path|command)\b/i;

/** One sentence: a download failure says so (with "offline?"), anything else names npm's error. */
export function describeNpmFailure(code: number | null, output: string): string {
  const lines = output.split(/\r?\n/).map((l) => l.trim()).filter(Boolean);
  const connection = lines.filter((l) => CONNECTION_ERROR.test(l));
  const network = connection.find((l) => !FIELD_LINE.test(l)) ?? connection[0];
  if (network) return `Could not download TensorFlow: ${clean(network)} (offline?)`;
  const errors = lines.filter((l) => /^npm (ERR!|error)\b/i.test(l) && !FIELD_LINE.test(l) && /\w/.test(clean(l)) && !/A complete log of this run/i.test(l));
  const error = errors.find((l) => /^(npm (ERR!|error)\s+)?\w*Error\b/.test(l)) ?? errors[0];
  const exit = code === null ? 'npm was stopped' : `npm exited with code ${code}`;
  return error ? `Installing TensorFlow failed (${exit}): ${clean(error)}` : `Installing TensorFlow failed (${exit}).`;
}

function clean(line: string): string {
  return line.replace(/^npm (ERR!|error)\s*/i, '').replace(/^Error:\s*/, '').replace(/\s+/g, ' ').trim().slice(0, 300);
}
