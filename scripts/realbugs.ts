// Recall on the real-bug corpus (test/fixtures/realbugs): device bugs reported in public issue
// threads, each re-written as a small fixture. A fixture marks the line where its bug should be
// reported with `# expect: DD001` (or `# expect: new:<name>` when no rule covers it yet), and
// may mark other acceptable lines for the same rule with `# expect-alt: DD001` (the rule's
// documented place, such as where an unmoved model is built). Each fixture (a file, or a folder
// linted whole as a repository) is copied to a fresh temporary folder and linted there with the
// built CLI's JSON output. It measures and prints; nothing here is a test.
//   npx tsx scripts/realbugs.ts [--cli dist/cli.js] [--json out.json] [--only 0]
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { runTool } from '../src/node/processRunner';

const CORPUS = path.join(__dirname, '..', 'test', 'fixtures', 'realbugs');
const MARK = /#\s*expect(-alt)?:\s*([A-Za-z0-9:_-]+)/g;

interface Place { file: string; cell: number | null; row: number }
interface Expectation extends Place { code: string; alt: boolean }
interface Finding extends Place { code: string; message: string }
interface FixtureResult {
  name: string;
  /** `marked`: a finding of the code on the bug's own `# expect:` line (not only on an `expect-alt` line). */
  bugs: { code: string; place: Place; caught: boolean; marked: boolean; onLine: string[] }[];
  others: Finding[];
  error?: string;
}

function parseArgs(argv: string[]): { cli: string; json?: string; only?: string } {
  const options: { cli: string; json?: string; only?: string } = { cli: 'dist/cli.js' };
  for (let i = 0; i < argv.length; i++) {
    const value = argv[i + 1];
    if (argv[i] === '--cli' && value) options.cli = argv[++i];
    else if (argv[i] === '--json' && value) options.json = argv[++i];
    else if (argv[i] === '--only' && value) options.only = argv[++i];
    else throw new Error(`unknown or incomplete option ${argv[i]}; usage: realbugs.ts [--cli dist/cli.js] [--json out.json] [--only prefix]`);
  }
  return options;
}

/** The marks of one line of source; `cell` is the notebook cell's 1-based index among all cells. */
function marksOf(text: string, file: string, cell: number | null, row: number): Expectation[] {
  return [...text.matchAll(MARK)].map((m) => ({ file, cell, row, code: m[2], alt: m[1] !== undefined }));
}

function expectationsOf(root: string, file: string): Expectation[] {
  const text = fs.readFileSync(path.join(root, file), 'utf8');
  if (file.endsWith('.py')) return text.split('\n').flatMap((line, i) => marksOf(line, file, null, i + 1));
  const cells = (JSON.parse(text) as { cells: { cell_type: string; source: string | string[] }[] }).cells;
  return cells.flatMap((cell, c) => {
    if (cell.cell_type !== 'code') return [];
    const source = Array.isArray(cell.source) ? cell.source.join('') : cell.source;
    return source.split('\n').flatMap((line, i) => marksOf(line, file, c + 1, i + 1));
  });
}

function sourceFiles(root: string, sub = ''): string[] {
  return fs.readdirSync(path.join(root, sub), { withFileTypes: true }).flatMap((entry) => {
    const rel = path.join(sub, entry.name);
    if (entry.isDirectory()) return sourceFiles(root, rel);
    return /\.(py|ipynb)$/.test(entry.name) ? [rel] : [];
  });
}

/** Copies the fixture into a fresh folder, so nothing around it (other fixtures, the project's configuration) takes part. */
function isolate(fixture: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'device-doctor-realbugs-'));
  const from = path.join(CORPUS, fixture);
  if (fs.statSync(from).isDirectory()) fs.cpSync(from, dir, { recursive: true });
  else fs.copyFileSync(from, path.join(dir, fixture));
  return dir;
}

async function lint(cli: string, dir: string): Promise<Finding[]> {
  const run = await runTool(process.execPath, [cli, 'lint', dir, '--format', 'json', '--exit-zero', '--quiet'], { timeoutMs: 120_000 });
  if (run.exitCode !== 0) throw new Error(`lint exited ${run.exitCode ?? run.errorCode}: ${run.stderr.trim().split('\n')[0] ?? ''}`);
  const raw = JSON.parse(run.stdout) as { code: string; filename: string; cell: number | null; location: { row: number }; message: string }[];
  return raw.map((f) => ({ code: f.code, file: path.relative(dir, f.filename), cell: f.cell, row: f.location.row, message: f.message }));
}

const samePlace = (a: Place, b: Place): boolean => a.file === b.file && a.cell === b.cell && a.row === b.row;

function judge(name: string, expected: Expectation[], findings: Finding[]): FixtureResult {
  const explained = new Set<Finding>();
  const bugs = expected.filter((e) => !e.alt).map((bug) => {
    const lines = [bug, ...expected.filter((e) => e.alt && e.code === bug.code)];
    const hits = findings.filter((f) => f.code === bug.code && lines.some((l) => samePlace(l, f)));
    hits.forEach((f) => explained.add(f));
    const onLine = findings.filter((f) => samePlace(f, bug)).map((f) => f.code);
    const marked = hits.some((f) => samePlace(f, bug));
    return { code: bug.code, place: { file: bug.file, cell: bug.cell, row: bug.row }, caught: hits.length > 0, marked, onLine };
  });
  return { name, bugs, others: findings.filter((f) => !explained.has(f)) };
}

const where = (p: Place): string => `${p.file}${p.cell === null ? '' : ` cell ${p.cell}`}:${p.row}`;

function printFixture(r: FixtureResult): void {
  if (r.error) {
    console.log(`ERROR   ${r.name}: ${r.error}`);
    return;
  }
  for (const bug of r.bugs) {
    const verdict = bug.code.startsWith('new:') ? 'NEW   ' : bug.marked ? 'CAUGHT' : bug.caught ? 'ALT   ' : 'MISSED';
    const seen = bug.caught || bug.onLine.length === 0 ? '' : `  (on that line: ${bug.onLine.join(', ')})`;
    console.log(`${verdict}  ${r.name}  ${bug.code} at ${where(bug.place)}${seen}`);
  }
  for (const other of r.others) console.log(`        other: ${other.code} at ${where(other)}: ${other.message.slice(0, 140)}`);
}

function printSummary(results: FixtureResult[]): void {
  const bugs = results.flatMap((r) => r.bugs.map((b) => ({ ...b, fixture: r.name })));
  const existing = bugs.filter((b) => !b.code.startsWith('new:'));
  const caught = existing.filter((b) => b.caught).length;
  const percent = existing.length === 0 ? 0 : (100 * caught) / existing.length;
  const marked = existing.filter((b) => b.marked).length;
  console.log(`\nexisting-rule bugs: ${caught} of ${existing.length} caught (${percent.toFixed(0)} %); ${marked} on the marked line, ${caught - marked} only on an expect-alt line`);
  const codes = [...new Set(existing.map((b) => b.code))].sort();
  for (const code of codes) {
    const ofCode = existing.filter((b) => b.code === code);
    console.log(`  ${code}: ${ofCode.filter((b) => b.caught).length} of ${ofCode.length}`);
  }
  const fresh = bugs.filter((b) => b.code.startsWith('new:'));
  console.log(`bugs no rule covers yet (new:): ${fresh.length}${fresh.length ? `: ${fresh.map((b) => `${b.fixture} ${b.code}`).join('; ')}` : ''}`);
  const others = results.reduce((n, r) => n + r.others.length, 0);
  console.log(`other findings (read them: possible false positives): ${others} in ${results.filter((r) => r.others.length > 0).length} fixtures`);
  const errors = results.filter((r) => r.error);
  if (errors.length) console.log(`fixtures that could not be linted: ${errors.map((r) => r.name).join(', ')}`);
}

async function measure(cli: string, name: string): Promise<FixtureResult> {
  const dir = isolate(name);
  try {
    const files = fs.statSync(path.join(CORPUS, name)).isDirectory() ? sourceFiles(dir) : [name];
    const expected = files.flatMap((f) => expectationsOf(dir, f));
    if (!expected.some((e) => !e.alt)) return { name, bugs: [], others: [], error: 'no # expect: mark' };
    return judge(name, expected, await lint(cli, dir));
  } catch (error) {
    return { name, bugs: [], others: [], error: error instanceof Error ? error.message : String(error) };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  const cli = path.resolve(options.cli);
  if (!fs.existsSync(cli)) throw new Error(`no CLI at ${cli}: run npm run build, or pass --cli`);
  const fixtures = fs.readdirSync(CORPUS).filter((n) => /^\d+-/.test(n) && (!options.only || n.startsWith(options.only))).sort();
  const results: FixtureResult[] = [];
  for (const name of fixtures) {
    const result = await measure(cli, name);
    printFixture(result);
    results.push(result);
  }
  printSummary(results);
  if (options.json) fs.writeFileSync(options.json, JSON.stringify({ cli, results }, null, 2) + '\n');
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exitCode = 2;
});
