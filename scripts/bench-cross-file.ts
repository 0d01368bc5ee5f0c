// Section 5 of `npm run bench`: cross-file analysis through the real server over stdio, on a
// project of 200 files generated at bench time (a package of models importing each other
// and a package of utilities, a config module, train.py importing several of them):
//   - the first diagnostics of train.py after opening it (every module it imports read from
//     disk), against the same text as an untitled document (no project, nothing imported);
//   - re-analysis after an edit in an imported module: both open, one didChange to
//     models/net.py, until train.py's diagnostics are published again;
//   - the first diagnostics again with 4,800 unrelated .py files beside the project (5,000 in
//     the workspace): nothing is indexed up front, so they should cost nothing.
// It measures and prints; nothing here is a test. `tsx scripts/bench-cross-file.ts` alone.
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { pathToFileURL } from 'url';
import { median, quantile } from '../src/core/bench/statistics';
import { TestClient } from '../test/process/serverClient';

const FILES = 200;
const OPENS = Number(process.env.BENCH_REPEATS ?? 5);
const EDITS = Number(process.env.BENCH_KEYSTROKES ?? 40);
const BLOCKS = 95;
const LARGE_WORKSPACE = 5_000;
const UTILS = FILES - BLOCKS - 5; // + config.py, train.py, models/__init__.py, models/net.py, utils/__init__.py

const CONFIG = 'import torch\n\ndevice = torch.device("cuda" if torch.cuda.is_available() else "cpu")\nlearning_rate = 0.01\n';

function utilModule(j: number): string {
  const previous = j > 0 ? `from utils.layers_${j - 1} import scale_${j - 1}\n` : '';
  return `import torch\n${previous}from config import device\n\n\ndef scale_${j}(x):\n    return x * ${j + 1}\n\n\n` +
    `def zeros_${j}(n):\n    return torch.zeros(n, device=device)\n`;
}

function blockModule(i: number): string {
  const previous = i > 0 ? `from .block_${i - 1} import Block${i - 1}\n` : '';
  return `from torch import nn\n${previous}from utils.layers_${i % UTILS} import scale_${i % UTILS}\n\n\n` +
    `class Block${i}(nn.Module):\n    def __init__(self):\n        super().__init__()\n        self.fc = nn.Linear(10, 10)\n\n` +
    `    def forward(self, x):\n        return scale_${i % UTILS}(self.fc(x))\n`;
}

const NET = 'from torch import nn\nfrom .block_0 import Block0\nfrom .block_1 import Block1\nfrom .block_2 import Block2\n\n\n' +
  'class Net(nn.Module):\n    def __init__(self):\n        super().__init__()\n        self.layers = nn.Sequential(Block0(), Block1(), Block2())\n\n' +
  '    def forward(self, x):\n        return self.layers(x)\n';

const TRAIN = 'import torch\nfrom config import device, learning_rate\nfrom models.net import Net\nfrom models.block_9 import Block9\n' +
  'from utils.layers_5 import scale_5\nfrom utils.layers_50 import zeros_50\n\n' +
  'model = Net().to(device)\nextra = Block9().to(device)\noptimizer = torch.optim.SGD(model.parameters(), lr=learning_rate)\n' +
  'x = torch.randn(4, 10)\ny = model(x)\nz = scale_5(y) + zeros_50(10)\n';

/** Files nobody imports, in folders of 100, so that the workspace holds `total` .py files. */
function addUnrelatedFiles(root: string, total: number): void {
  for (let k = 0; k < total - FILES; k++) {
    const folder = path.join(root, 'unrelated', `part_${Math.floor(k / 100)}`);
    if (k % 100 === 0) fs.mkdirSync(folder, { recursive: true });
    fs.writeFileSync(path.join(folder, `script_${k}.py`), `import torch

value_${k} = torch.zeros(${k % 10 + 1})
`);
  }
}

/** Writes the project; returns its folder. */
export function generateProject(): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'device-doctor-bench-crossfile-'));
  const files = new Map<string, string>([
    ['config.py', CONFIG], ['train.py', TRAIN], ['models/__init__.py', ''], ['models/net.py', NET], ['utils/__init__.py', ''],
  ]);
  for (let i = 0; i < BLOCKS; i++) files.set(`models/block_${i}.py`, blockModule(i));
  for (let j = 0; j < UTILS; j++) files.set(`utils/layers_${j}.py`, utilModule(j));
  if (files.size !== FILES) throw new Error(`generated ${files.size} files, not ${FILES}`);
  for (const [name, text] of files) {
    fs.mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
    fs.writeFileSync(path.join(root, name), text);
  }
  return root;
}

interface OpenFigures {
  ms: number;
  /** From the server's debug line: module files resolved and the ms spent reading them. */
  resolved?: string;
}

/** A fresh server each time: nothing cached, every module read from disk. */
async function timeFirstDiagnostics(root: string, uri: string, text: string): Promise<OpenFigures> {
  const { client } = await TestClient.start({ workspaceFolders: [root] });
  client.settings = { debounceMs: 0 };
  try {
    const published = client.diagnosticsFor(uri, () => true, 120_000);
    const t0 = performance.now();
    await client.openFile(uri, text);
    await published;
    const ms = performance.now() - t0;
    const line = client.logs.map((l) => /: (\d+ module files? resolved in \d+ ms)/.exec(l.message)?.[1]).find((m) => m !== undefined);
    return { ms, resolved: line };
  } finally {
    await client.stop();
  }
}

/** Long enough for any re-analysis here; none by then means the server did not see the dependency. */
const DEPENDENT_WAIT_MS = 15_000;

/**
 * didChange of models/net.py (a comment typed and deleted, a key at a time) → train.py's next
 * publication. Empty when train.py is not re-published at all.
 */
async function timeDependentUpdates(root: string, edits: number): Promise<number[]> {
  const { client } = await TestClient.start({ workspaceFolders: [root] });
  client.settings = { debounceMs: 0 };
  const train = pathToFileURL(path.join(root, 'train.py')).href;
  const net = pathToFileURL(path.join(root, 'models', 'net.py')).href;
  try {
    const trainOpened = client.diagnosticsFor(train, () => true, 120_000);
    await client.openFile(train, TRAIN);
    await trainOpened;
    const netOpened = client.diagnosticsFor(net, () => true, 120_000);
    await client.openFile(net, NET);
    await netOpened;
    const end = NET.split('\n').length - 1;
    const comment = '# tuned';
    let version = 1;
    const times: number[] = [];
    const WARM_UP = 3;
    for (let k = 0; k < edits + WARM_UP; k++) {
      const typed = k % (2 * comment.length);
      const change = typed < comment.length
        ? { range: { start: { line: end, character: typed }, end: { line: end, character: typed } }, text: comment[typed] }
        : { range: { start: { line: end, character: 2 * comment.length - typed - 1 }, end: { line: end, character: 2 * comment.length - typed } }, text: '' };
      version++;
      const republished = client.diagnosticsFor(train, () => true, DEPENDENT_WAIT_MS).then(() => true, () => false);
      const start = performance.now();
      await client.connection.sendNotification('textDocument/didChange', { textDocument: { uri: net, version }, contentChanges: [change] });
      if (!(await republished)) return [];
      if (k >= WARM_UP) times.push(performance.now() - start);
    }
    return times;
  } finally {
    await client.stop();
  }
}

const fixed = (x: number | undefined, digits = 1) => (x !== undefined && Number.isFinite(x) ? x.toFixed(digits) : 'n/a');

function table(header: readonly string[], rows: ReadonlyArray<readonly string[]>): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: readonly string[]) => cells.map((c, i) => (i === 0 || i === cells.length - 1 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ').trimEnd();
  console.log(line(header));
  for (const row of rows) console.log(line(row));
}

export async function crossFileSection(): Promise<void> {
  const root = generateProject();
  const large = generateProject();
  try {
    addUnrelatedFiles(large, LARGE_WORKSPACE);
    const trainIn = (folder: string) => pathToFileURL(path.join(folder, 'train.py')).href;
    const withProject: OpenFigures[] = [];
    const inLarge: OpenFigures[] = [];
    const alone: OpenFigures[] = [];
    for (let r = 0; r < OPENS; r++) { // in turn, so drift hits all alike
      withProject.push(await timeFirstDiagnostics(root, trainIn(root), TRAIN));
      inLarge.push(await timeFirstDiagnostics(large, trainIn(large), TRAIN));
      alone.push(await timeFirstDiagnostics(root, `untitled:Untitled-${r}`, TRAIN));
    }
    const updates = (await timeDependentUpdates(root, EDITS)).sort((a, b) => a - b);
    console.log(`\n## 5. Across files: real server (dist/server.js --stdio), debounce 0, a generated project of ${FILES} files`);
    console.log('train.py imports config, models.net, models.block_9 and two utils modules; each block imports the one before it and a ' +
      'utils module, each utils module the one before it and config');
    table(
      ['what', 'median ms', 'p95 ms', 'runs', 'resolved (server debug log)'],
      [
        ['open train.py -> first diagnostics (fresh server)', fixed(median(withProject.map((f) => f.ms))), '-', String(OPENS), withProject[0]?.resolved ?? 'n/a'],
        [`the same, ${LARGE_WORKSPACE.toLocaleString('en-US')} .py files in the workspace`, fixed(median(inLarge.map((f) => f.ms))), '-', String(OPENS), inLarge[0]?.resolved ?? 'n/a'],
        ['same text untitled (no project) -> first diagnostics', fixed(median(alone.map((f) => f.ms))), '-', String(OPENS), '-'],
        updates.length > 0
          ? ['edit open models/net.py -> train.py re-published', fixed(quantile(updates, 0.5)), fixed(quantile(updates, 0.95)), String(updates.length), '-']
          : ['edit open models/net.py -> train.py re-published', 'n/a', 'n/a', '0', `not re-published within ${DEPENDENT_WAIT_MS / 1000} s`],
      ],
    );
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
    fs.rmSync(large, { recursive: true, force: true });
  }
}

if (require.main === module) {
  crossFileSection().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
