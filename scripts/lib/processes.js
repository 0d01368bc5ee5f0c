// Every process the test drivers start lives in its own process group, and every group
// is killed when the driver ends — normally, on an error, or on Ctrl+C — so code-server's
// extension hosts, language servers and Chromium's helpers never outlive a run. Temporary
// folders registered here are removed then too (unless DEVICE_DOCTOR_KEEP_TMP is set).
const fs = require('fs');

const groups = new Set();
const tempDirs = new Set();
let handlersInstalled = false;

function killGroup(pid, signal) {
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    return false; // already gone
  }
}

function groupAlive(pid) {
  return killGroup(pid, 0);
}

/** Sends SIGTERM, then SIGKILL to what is still there after `graceMs`. */
async function stopGroup(pid, graceMs = 3000) {
  groups.delete(pid);
  if (!killGroup(pid, 'SIGTERM')) return;
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline && groupAlive(pid)) await new Promise((r) => setTimeout(r, 100));
  killGroup(pid, 'SIGKILL');
}

function removeDir(dir) {
  tempDirs.delete(dir);
  if (!process.env.DEVICE_DOCTOR_KEEP_TMP) fs.rmSync(dir, { recursive: true, force: true });
}

function killAllNow() {
  for (const pid of groups) killGroup(pid, 'SIGKILL');
  groups.clear();
  for (const dir of tempDirs) removeDir(dir);
}

function installHandlers() {
  if (handlersInstalled) return;
  handlersInstalled = true;
  process.on('exit', killAllNow);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.on(signal, () => {
      killAllNow();
      process.exit(128 + (signal === 'SIGINT' ? 2 : signal === 'SIGTERM' ? 15 : 1));
    });
  }
}

/** Remembers a process-group leader (a child spawned with `detached: true`). */
function trackGroup(pid) {
  installHandlers();
  groups.add(pid);
}

/** A temporary folder to remove with `removeTempDir`, or at exit at the latest. */
function trackTempDir(dir) {
  installHandlers();
  tempDirs.add(dir);
  return dir;
}

module.exports = { trackGroup, stopGroup, killAllNow, trackTempDir, removeTempDir: removeDir };
