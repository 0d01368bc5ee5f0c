// npm run bench: the analyzer's speed as ratios against references measured in the
// same run on the same inputs (machines are noisy; ratios are what we compare):
//   parse  - tree-sitter parsing alone, the floor any analysis pays;
//   ruff   - Ruff's own checker (wasm build, pyflakes + pycodestyle rules), a linter
//            people already run on every keystroke.
// Inputs: the rule corpus concatenated, and a generated 20,000-line training script.
import * as fs from 'fs';
import * as path from 'path';
import { Workspace, PositionEncoding } from '@astral-sh/ruff-wasm-nodejs';
import { analyzeSource, initPythonParser } from '../src/core/analysis';
import { parsePython } from '../src/core/python/parser';
import { generateTrainingScript } from '../test/unit/helpers/bigScript';
import { torchAgreementSection } from './bench-torch-agreement';

const REPEATS = Number(process.env.BENCH_REPEATS ?? 5);

function corpus(): string {
  const root = path.join(__dirname, '..', 'test', 'fixtures', 'rules');
  const files: string[] = [];
  for (const rule of fs.readdirSync(root)) {
    for (const verdict of ['fire', 'silent']) {
      const dir = path.join(root, rule, verdict);
      if (!fs.existsSync(dir)) continue;
      for (const f of fs.readdirSync(dir).sort()) files.push(fs.readFileSync(path.join(dir, f), 'utf8'));
    }
  }
  return files.join('\n\n');
}

function medianMs(run: () => void): number {
  run(); // warm-up: JIT and wasm compilation
  const times: number[] = [];
  for (let i = 0; i < REPEATS; i++) {
    const t0 = process.hrtime.bigint();
    run();
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

async function main(): Promise<void> {
  await initPythonParser();
  const ruff = new Workspace({ lint: { select: ['E', 'F'] } }, PositionEncoding.Utf16);
  const inputs: Array<[string, string]> = [
    ['rule corpus', corpus()],
    ['generated 20k-line script', generateTrainingScript(20_000).text],
  ];
  console.log(`median of ${REPEATS} runs after a warm-up\n`);
  console.log('input                        lines   parse ms  analyze ms  ruff ms   analyze/parse  analyze/ruff');
  for (const [name, source] of inputs) {
    const parse = medianMs(() => parsePython(source).delete());
    const analyze = medianMs(() => analyzeSource(source));
    const lint = medianMs(() => ruff.check(source));
    const lines = source.split('\n').length;
    console.log(
      `${name.padEnd(28)} ${String(lines).padStart(6)} ${parse.toFixed(1).padStart(10)} ${analyze.toFixed(1).padStart(11)} ` +
        `${lint.toFixed(1).padStart(8)} ${(analyze / parse).toFixed(2).padStart(15)} ${(analyze / lint).toFixed(2).padStart(13)}`,
    );
  }
}

// ---- the torch engine against a direct torch timing, within 10% (scripts/bench-torch-agreement.ts) ----
async function torchAgreement(): Promise<void> {
  console.log('');
  if (!torchAgreementSection()) process.exitCode = 1;
}

main()
  .then(torchAgreement)
  .catch((err) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
