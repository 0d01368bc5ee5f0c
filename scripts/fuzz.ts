// npm run fuzz -- --count N [--seed S] [--index I] [--replay FILE|DIR] [--out DIR] [--no-minimize] [--timeout-ms MS]
// Seeded fuzzing of the analyzer (test/fuzz): mutations of the rule corpus and the
// notebooks, checked for throws, hangs, ranges outside the document, preferred fixes that
// break Python (judged by the real CPython) and fix-all that does not converge.
// Prints a summary; every failure names its seed and index (replay one with
// `--seed S --index I --count 1`, or `--replay` the saved file) and the saved and
// minimized input. Exits 1 on any failure.
import * as path from 'path';
import { formatSummary, loadSavedInputs, runFuzz, totalFailures } from '../test/fuzz/runner';
import type { FuzzOptions } from '../test/fuzz/runner';

const USAGE = `usage: npm run fuzz -- [--count N] [--seed S] [--index I] [--replay FILE|DIR] [--out DIR] [--no-minimize] [--minimize-ms MS]
  --count N        inputs to generate (default 1000)
  --seed S         the run's seed (default: random, printed)
  --index I        start at input I (with --count 1: replay one input of a seed)
  --replay PATH    check inputs saved by an earlier run (a .json file or a directory of them)
  --out DIR        where failing inputs go (default test-results/fuzz/<seed>)
  --no-minimize    do not shrink failing inputs
  --minimize-ms MS time for shrinking, all failures together (default 60000)
  --timeout-ms MS  time one analysis may take before it counts as a hang (default 10000)`;

function fail(message: string): never {
  process.stderr.write(`${message}\n${USAGE}\n`);
  process.exit(2);
}

function parseArgs(argv: string[]) {
  const args = { count: 1000, seed: undefined as number | undefined, index: 0, replay: undefined as string | undefined, out: undefined as string | undefined, minimize: true, minimizeMs: 60_000, timeoutMs: 10_000 };
  const int = (name: string, value: string | undefined, min: number) => {
    const n = Number(value);
    if (value === undefined || !Number.isInteger(n) || n < min) fail(`${name} needs an integer >= ${min}, got ${value}`);
    return n;
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const [flag, inline] = a.startsWith('--') && a.includes('=') ? [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)] : [a, undefined];
    const value = () => inline ?? argv[++i];
    switch (flag) {
      case '--count': args.count = int('--count', value(), 1); break;
      case '--seed': args.seed = int('--seed', value(), 0) >>> 0; break;
      case '--index': args.index = int('--index', value(), 0); break;
      case '--replay': args.replay = value() ?? fail('--replay needs a path'); break;
      case '--out': args.out = value() ?? fail('--out needs a directory'); break;
      case '--no-minimize': args.minimize = false; break;
      case '--minimize-ms': args.minimizeMs = int('--minimize-ms', value(), 0); break;
      case '--timeout-ms': args.timeoutMs = int('--timeout-ms', value(), 100); break;
      case '-h': case '--help': process.stdout.write(USAGE + '\n'); process.exit(0); break;
      default: fail(`unknown argument ${a}`);
    }
  }
  return args;
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const seed = args.seed ?? Math.floor(Math.random() * 2 ** 32);
  const options: FuzzOptions = {
    count: args.count,
    seed,
    start: args.index,
    outDir: path.resolve(args.out ?? path.join('test-results', 'fuzz', String(seed))),
    minimize: args.minimize,
    minimizeMs: args.minimizeMs,
    timeoutMs: args.timeoutMs,
  };
  if (args.replay) {
    const saved = loadSavedInputs(args.replay);
    options.inputs = saved;
    options.outDir = path.resolve(args.out ?? path.join('test-results', 'fuzz', 'replay'));
    process.stdout.write(`replaying ${saved.length} saved input(s) from ${args.replay}\n`);
  } else {
    process.stdout.write(`fuzz: seed ${seed}, ${args.count} inputs${args.index ? ` from index ${args.index}` : ''}\n`);
  }
  const tty = process.stderr.isTTY;
  let last = Date.now();
  options.onProgress = (done, s) => {
    if (Date.now() - last < (tty ? 250 : 10_000) && done !== (options.inputs?.length ?? args.count)) return;
    last = Date.now();
    const failures = Object.values(s.failures).reduce((a, b) => a + b, 0);
    process.stderr.write(`${tty ? '\r' : ''}  ${done}/${options.inputs?.length ?? args.count} inputs, ${failures} failing${tty ? '   ' : '\n'}`);
  };
  const summary = await runFuzz(options);
  if (tty) process.stderr.write('\n');
  process.stdout.write(formatSummary(summary) + '\n');
  process.exitCode = totalFailures(summary) ? 1 : 0;
}

main().catch((error) => {
  process.stderr.write(`fuzz: ${(error as Error).stack ?? error}\n`);
  process.exit(2);
});
