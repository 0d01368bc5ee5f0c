// Starts code-server for a test run: a fresh user-data and extensions directory under a
// temporary folder, our user settings, the given extensions installed from .vsix files,
// bound to a free port on 127.0.0.1 only. code-server needs Node 24 (setup-code-server.js).
const { spawn, execFile } = require('child_process');
const fs = require('fs');
const net = require('net');
const os = require('os');
const path = require('path');
const { paths, node24Env } = require('../setup-code-server');
const { trackGroup, stopGroup, trackTempDir, removeTempDir } = require('./processes');

/** Settings every run wants: no welcome page, no network chatter, no surprise UI. */
const BASE_USER_SETTINGS = {
  'workbench.startupEditor': 'none',
  'workbench.tips.enabled': false,
  'workbench.enableExperiments': false,
  'telemetry.telemetryLevel': 'off',
  'update.mode': 'none',
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'extensions.ignoreRecommendations': true,
  'chat.disableAIFeatures': true,
  'git.enabled': false,
  'files.autoSave': 'off',
  'workbench.secondarySideBar.defaultVisibility': 'hidden',
};

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

function execCodeServer(args, env) {
  return new Promise((resolve, reject) => {
    execFile(paths.codeServer, args, { env, timeout: 120_000 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`code-server ${args.join(' ')} failed: ${err.message}\n${stdout}${stderr}`));
      else resolve(stdout);
    });
  });
}

/** Installs .vsix files offline into `extensionsDir` (code-server's own CLI, as a user would). */
async function installExtensions(dirs, vsixFiles) {
  for (const vsix of vsixFiles) {
    await execCodeServer(
      ['--user-data-dir', dirs.userDataDir, '--extensions-dir', dirs.extensionsDir, '--force', '--install-extension', vsix],
      node24Env(),
    );
  }
}

async function waitForHealth(url, child, logFile, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) {
      throw new Error(`code-server exited with ${child.exitCode}; log:\n${fs.readFileSync(logFile, 'utf8')}`);
    }
    try {
      const response = await fetch(`${url}/healthz`);
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`code-server did not answer on ${url} within ${timeoutMs / 1000}s; log:\n${fs.readFileSync(logFile, 'utf8')}`);
}

function makeDirs(label) {
  const base = trackTempDir(fs.mkdtempSync(path.join(os.tmpdir(), `device-doctor-${label}-`)));
  const dirs = {
    base,
    userDataDir: path.join(base, 'user-data'),
    extensionsDir: path.join(base, 'extensions'),
    logFile: path.join(base, 'code-server.log'),
  };
  fs.mkdirSync(path.join(dirs.userDataDir, 'User'), { recursive: true });
  fs.mkdirSync(dirs.extensionsDir, { recursive: true });
  return dirs;
}

/**
 * Starts code-server and resolves once it answers. Options: label, vsixFiles,
 * userSettings (merged over the base settings), env (extra environment for the server and
 * so for its extension hosts), trustWorkspace (false leaves Workspace Trust on, so a new
 * folder opens in Restricted Mode).
 */
async function startCodeServer(options) {
  const dirs = makeDirs(options.label || 'code-server');
  const settings = { ...BASE_USER_SETTINGS, ...(options.userSettings || {}) };
  if (options.trustWorkspace !== false) settings['security.workspace.trust.enabled'] = false;
  fs.writeFileSync(path.join(dirs.userDataDir, 'User', 'settings.json'), JSON.stringify(settings, null, 2));
  await installExtensions(dirs, options.vsixFiles || []);

  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  // An empty config of our own: ~/.config/code-server/config.yaml must not change a test run.
  const config = path.join(dirs.base, 'config.yaml');
  fs.writeFileSync(config, '');
  const args = [
    '--config', config,
    '--bind-addr', `127.0.0.1:${port}`, '--auth', 'none', '--disable-telemetry', '--disable-update-check',
    '--disable-getting-started-override', '--ignore-last-opened',
    '--user-data-dir', dirs.userDataDir, '--extensions-dir', dirs.extensionsDir,
  ];
  const log = fs.openSync(dirs.logFile, 'a');
  const child = spawn(paths.codeServer, args, {
    env: node24Env({ ...process.env, ...(options.env || {}) }),
    detached: true, // its own process group: stopping it takes the extension hosts too
    stdio: ['ignore', log, log],
  });
  fs.closeSync(log);
  trackGroup(child.pid);
  await waitForHealth(url, child, dirs.logFile, 60_000);
  return {
    url,
    dirs,
    /** The workbench URL that opens `folder`. */
    folderUrl: (folder) => `${url}/?folder=${encodeURIComponent(folder)}`,
    log: () => fs.readFileSync(dirs.logFile, 'utf8'),
    async stop() {
      await stopGroup(child.pid);
      removeTempDir(dirs.base);
    },
  };
}

module.exports = { startCodeServer, freePort };
