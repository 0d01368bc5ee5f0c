// Install Native TensorFlow Backend, without the editor: find npm, run
// `npm install --save-exact --prefix <folder> @tensorflow/tfjs-node(-gpu)@4.22.0` without a shell
// in the extension's own folder, stream its output, stop it on cancel, and turn a failure into one
// sentence ("could not download TensorFlow: … (offline?)"). No vscode import: tested with a fake npm.
//
// Trust: this runs in Restricted Mode too. It runs npm from VS Code's runtime folder or PATH (never
// an executable a workspace names), in the extension's global storage (so no workspace .npmrc or
// package.json is read), with arguments fixed here: nothing of the workspace is used.
import * as fs from 'fs';
import * as path from 'path';
import { TextTail } from '../../../node/processOutput';
import { startProcess, whenAborted } from '../../../node/processRunner';

export type NativeTfPackage = '@tensorflow/tfjs-node' | '@tensorflow/tfjs-node-gpu';
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

/**
 * Saved (exactly) into the folder's own package.json rather than --no-save: npm prunes what its
 * package.json does not list, so a second --no-save install (tfjs-node-gpu after tfjs-node) would
 * delete the first (npm/cli#1460).
 */
export function npmInstallArgs(packageName: NativeTfPackage, prefix: string): string[] {
  return ['install', '--save-exact', '--no-audit', '--no-fund', '--prefix', prefix, `${packageName}@${NATIVE_TF_INSTALL_VERSION}`];
}

export interface InstallOptions {
  npm: NpmCommand;
  packageName: NativeTfPackage;
  /** <globalStorage>/native: npm creates node_modules there; the worker searches it. */
  prefix: string;
  env: NodeJS.ProcessEnv;
  signal?: AbortSignal;
  onOutput(line: string): void;
}

export type InstallResult =
  | { kind: 'installed'; packageDir: string }
  | { kind: 'cancelled' }
  | { kind: 'failed'; message: string };

/** Runs npm; always resolves. */
export async function installNativeTf(options: InstallOptions): Promise<InstallResult> {
  try {
    prepareFolder(options.prefix);
  } catch (error) {
    return { kind: 'failed', message: `Could not prepare ${options.prefix}: ${error instanceof Error ? error.message : String(error)}` };
  }
  const end = await runNpm(options);
  if (end.cancelled) return { kind: 'cancelled' };
  const packageDir = path.join(options.prefix, 'node_modules', ...options.packageName.split('/'));
  if (end.error) return { kind: 'failed', message: `npm could not be started (${end.error}).` };
  if (end.code === 0 && fs.existsSync(path.join(packageDir, 'package.json'))) return { kind: 'installed', packageDir };
  return { kind: 'failed', message: describeNpmFailure(end.code, end.output) };
}

/** The folder is its own npm project, so npm never walks up to a package.json above it. */
function prepareFolder(prefix: string): void {
  fs.mkdirSync(prefix, { recursive: true });
  const manifest = path.join(prefix, 'package.json');
  if (!fs.existsSync(manifest)) {
    fs.writeFileSync(manifest, `${JSON.stringify({ name: 'device-doctor-native-tf', private: true, description: 'Native TensorFlow.js installed by Device Doctor' }, null, 2)}\n`);
  }
}

interface NpmEnd {
  code: number | null;
  output: string;
  cancelled: boolean;
  error?: string;
}

const MAX_KEPT_OUTPUT = 64 * 1024;

/** npm and its install scripts (node-pre-gyp downloading libtensorflow) run in their own group: a cancel kills them all. */
async function runNpm(options: InstallOptions): Promise<NpmEnd> {
  const args = [...options.npm.prefixArgs, ...npmInstallArgs(options.packageName, options.prefix)];
  const output = new TextTail(MAX_KEPT_OUTPUT);
  const take = (line: string): void => {
    output.add(`${line}\n`);
    options.onOutput(line);
  };
  const npm = startProcess(options.npm.command, args, {
    cwd: options.prefix,
    env: withDirOnPath(options.env, path.dirname(options.npm.command)),
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

/** npm's install scripts run `node`: the one next to the npm found must come first on PATH. */
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
