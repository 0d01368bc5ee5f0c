// Section 9 of `npm run bench`: the language server's memory in a 1,000-file workspace (issue
// 24's goal: RSS <= 400 MB). The server (dist/server.js --stdio) is given the workspace folder
// and its 30 largest model and training files are opened one after another, each waiting for
// its diagnostics, as a person opening files of a repository would; VmRSS of the server process
// is read after 5, 10 and 30 files, and again after 10 s idle. The workspace is real code when
// the bench has one (`--real-code DIR` or BENCH_REAL_CODE, read in place, never committed),
// else a package generated at bench time: 600 layer modules re-exported by one __init__.py,
// 380 model files of 300-3,000 lines importing a few layers each, and training scripts.
// It measures and prints; nothing here is a test. `tsx scripts/bench-server-memory.ts [DIR]` alone.
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { pathToFileURL } from 'url';
import { TestClient } from '../test/process/serverClient';
import { generateTrainingScript } from '../test/unit/helpers/bigScript';

const FILES = 1_000;
const LAYERS = 600;
const TRAIN_SCRIPTS = 19;
const OPENED = 30;
const IDLE_MS = 10_000;
const GOAL_MB = 400;

function layerModule(j: number): string {
  const previous = j > 0 ? `from .layer_${j - 1} import Layer${j - 1}\n` : '';
  return `import torch\nfrom torch import nn\n${previous}\n\nclass Layer${j}(nn.Module):\n` +
    `    def __init__(self, dim=${16 + (j % 7) * 8}):\n        super().__init__()\n        self.proj = nn.Linear(dim, dim)\n` +
    `        self.register_buffer("scale", torch.ones(dim))\n\n    def forward(self, x):\n        return self.proj(x) * self.scale\n\n\n` +
    `def make_layer_${j}(dim):\n    return Layer${j}(dim)\n`;
}

function modelModule(k: number): string {
  const used = [k % LAYERS, (k * 7) % LAYERS, (k * 13) % LAYERS];
  const imports = `from ..layers import ${used.map((j) => `Layer${j}`).join(', ')}\n`;
  const body = generateTrainingScript(300 + ((k * 37) % 2_700)).text;
  const head = `class Model${k}(nn.Module):\n    def __init__(self):\n        super().__init__()\n` +
    `        self.blocks = nn.Sequential(${used.map((j) => `Layer${j}()`).join(', ')})\n\n    def forward(self, x):\n        return self.blocks(x)\n\n\n`;
  return body.replace(/^(import torch\n)/, `$1${imports}`) + '\n\n' + head;
}

/** A package of FILES .py files under a fresh temporary folder; returns the folder. */
function generateWorkspace(): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'device-doctor-memory-'));
  const pkg = path.join(root, 'pkg');
  for (const dir of ['layers', 'models']) fs.mkdirSync(path.join(pkg, dir), { recursive: true });
  fs.writeFileSync(path.join(pkg, '__init__.py'), '');
  for (let j = 0; j < LAYERS; j++) fs.writeFileSync(path.join(pkg, 'layers', `layer_${j}.py`), layerModule(j));
  fs.writeFileSync(path.join(pkg, 'layers', '__init__.py'), Array.from({ length: LAYERS }, (_, j) => `from .layer_${j} import Layer${j}, make_layer_${j}\n`).join(''));
  const models = FILES - LAYERS - TRAIN_SCRIPTS - 3;
  fs.writeFileSync(path.join(pkg, 'models', '__init__.py'), '');
  for (let k = 0; k < models; k++) fs.writeFileSync(path.join(pkg, 'models', `model_${k}.py`), modelModule(k));
  for (let t = 0; t < TRAIN_SCRIPTS; t++) {
    const dir = path.join(root, `experiment_${t}`);
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, 'train.py'), `from pkg.models.model_${t} import Model${t}\n` + generateTrainingScript(1_000 + t * 100).text +
      `\nnet = Model${t}().to(device)\n`);
  }
  return root;
}

function pythonFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...pythonFiles(full));
    else if (entry.isFile() && entry.name.endsWith('.py')) out.push(full);
  }
  return out;
}

function rssMb(pid: number | undefined): { rss: number; hwm: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rss: kb('VmRSS') / 1024, hwm: kb('VmHWM') / 1024 };
}

export async function serverMemorySection(realCode?: string): Promise<void> {
  console.log(`\n## 9. Server memory in a ${FILES.toLocaleString('en-US')}-file workspace (VmRSS of dist/server.js, /proc/<pid>/status)`);
  if (!fs.existsSync('/proc/self/status')) {
    console.log('n/a: /proc/<pid>/status cannot be read here');
    return;
  }
  const root = realCode && fs.existsSync(realCode) ? realCode : generateWorkspace();
  try {
    const all = pythonFiles(root);
    const picks = all.filter((f) => /(^|\/)(train|main|inference|validate|detect)\.py$|models\/[a-z_0-9]+\.py$/.test(f))
      .sort((a, b) => fs.statSync(b).size - fs.statSync(a).size).slice(0, OPENED);
    console.log(`${root === realCode ? `real code: ${root}` : 'generated at bench time'}: ${all.length} .py files; opening the ${picks.length} largest model and training files in turn`);
    const { client } = await TestClient.start({ workspaceFolders: [root] });
    client.settings = { debounceMs: 0 };
    const rows: string[][] = [];
    try {
      const pid = client.child.pid;
      const started = performance.now();
      for (const [i, file] of picks.entries()) {
        const uri = pathToFileURL(file).href;
        const published = client.diagnosticsFor(uri, () => true, 300_000);
        await client.openFile(uri, fs.readFileSync(file, 'utf8'));
        await published;
        if (i + 1 === 5 || i + 1 === 10 || i + 1 === picks.length) {
          const m = rssMb(pid);
          rows.push([`after opening ${i + 1}`, m.rss.toFixed(0), m.hwm.toFixed(0), ((performance.now() - started) / 1000).toFixed(1),
            i + 1 === picks.length ? `RSS <= ${GOAL_MB} MB: ${m.rss <= GOAL_MB ? 'met' : 'NOT met'}` : '-']);
        }
      }
      await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
      const idle = rssMb(pid);
      rows.push([`${IDLE_MS / 1000} s later, idle`, idle.rss.toFixed(0), idle.hwm.toFixed(0), '-', '-']);
    } finally {
      await client.stop();
    }
    const widths = [0, 1, 2, 3, 4].map((c) => Math.max(...[['when', 'VmRSS MB', 'VmHWM (peak) MB', 's since first open', 'goal'], ...rows].map((r) => r[c].length)));
    for (const row of [['when', 'VmRSS MB', 'VmHWM (peak) MB', 's since first open', 'goal'], ...rows]) console.log(row.map((cell, c) => cell.padEnd(widths[c])).join('  '));
  } finally {
    if (root !== realCode) fs.rmSync(root, { recursive: true, force: true });
  }
}

if (require.main === module) {
  serverMemorySection(process.argv[2] ? path.resolve(process.argv[2]) : undefined).catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
