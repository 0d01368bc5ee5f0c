// Section 8 of `npm run bench`: whole repositories, as users lint them (issue 24). Each
// repository is linted the way `device-doctor lint DIR --no-cache` does it (lintFiles: every
// file with its project, imports followed, importers run), in process, each file's analysis
// timed in CPU. The reference, in the same run and on the same files: Ruff (wasm) checking
// each file. Reported: CPU seconds, lines per CPU second, the ratio to Ruff, and the slowest
// file (goal: none over 1 s).
// Repositories: each folder under --real-code DIR (or BENCH_REAL_CODE), BENCH_REPOSITORY=DIR
// (e.g. a fetched timm; never committed), and the 200-file project of section 5.
import * as fs from 'fs';
import * as path from 'path';
import { Workspace, PositionEncoding } from '@astral-sh/ruff-wasm-nodejs';
import { analyzeNotebook, analyzeSource, initPythonParser } from '../src/core/analysis';
import type { Analyzer } from '../src/cli/lint/analysisCache';
import { lintFiles } from '../src/cli/lint/lintFiles';
import { collectFiles } from '../src/cli/lint/walk';
import { generateProject } from './bench-cross-file';

interface RepositoryFigures {
  name: string;
  files: number;
  lines: number;
  cpuMs: number;
  ruffMs: number;
  slowest: { file: string; ms: number };
}

const cpuNow = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

async function measure(name: string, dir: string): Promise<RepositoryFigures> {
  const { files } = collectFiles([dir], dir);
  const perFile = new Map<string, number>();
  let current = '';
  const timed = <T>(run: () => T): T => {
    const t0 = cpuNow();
    try {
      return run();
    } finally {
      perFile.set(current, (perFile.get(current) ?? 0) + cpuNow() - t0);
    }
  };
  const analyzer: Analyzer = {
    analyzeSource: (source, options) => {
      current = options.project?.path ?? '';
      return timed(() => analyzeSource(source, options));
    },
    analyzeNotebook: (cells, options) => {
      current = options.project?.path ?? '';
      return timed(() => analyzeNotebook(cells, options));
    },
  };
  const t0 = cpuNow();
  await lintFiles(files, { cwd: dir, paths: [dir], noqa: true, fix: false, analyzer });
  const cpuMs = cpuNow() - t0;

  const ruff = new Workspace(Workspace.defaultSettings(), PositionEncoding.Utf16);
  let lines = 0;
  let ruffMs = 0;
  for (const file of files.filter((f) => f.endsWith('.py'))) {
    const text = fs.readFileSync(file, 'utf8');
    lines += text.split('\n').length;
    const r0 = cpuNow();
    ruff.check(text);
    ruffMs += cpuNow() - r0;
  }
  ruff.free();
  const [file, ms] = [...perFile].sort((a, b) => b[1] - a[1])[0] ?? ['-', 0];
  return { name, files: files.length, lines, cpuMs, ruffMs, slowest: { file: path.relative(dir, file), ms } };
}

export async function repositoriesSection(realCode: string | undefined): Promise<void> {
  await initPythonParser();
  const repositories: Array<[string, string]> = [];
  if (realCode && fs.existsSync(realCode)) {
    for (const entry of fs.readdirSync(realCode, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      if (entry.isDirectory()) repositories.push([entry.name, path.join(realCode, entry.name)]);
    }
  }
  const extra = process.env.BENCH_REPOSITORY;
  if (extra && fs.existsSync(extra)) repositories.push([path.basename(path.resolve(extra)), path.resolve(extra)]);
  const generated = generateProject();
  repositories.push(['generated 200-file project', generated]);
  const rows: RepositoryFigures[] = [];
  try {
    for (const [name, dir] of repositories) rows.push(await measure(name, dir));
  } finally {
    fs.rmSync(generated, { recursive: true, force: true });
  }
  console.log('\n## 8. Whole repositories (lint --no-cache, in process): CPU s, lines per CPU s, ratio to Ruff (wasm) on the same files, slowest file');
  const fixed = (x: number, digits = 1) => (Number.isFinite(x) ? x.toFixed(digits) : 'n/a');
  const header = ['repository', 'files', 'lines', 'CPU s', 'lines/CPU s', '/ Ruff', 'slowest file', 'its CPU s'];
  const cells = rows.map((r) => [
    r.name, String(r.files), String(r.lines), fixed(r.cpuMs / 1000, 2), fixed(r.lines / (r.cpuMs / 1000), 0), fixed(r.cpuMs / Math.max(r.ruffMs, 1)),
    r.slowest.file, fixed(r.slowest.ms / 1000, 2),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i].length)));
  const line = (c: readonly string[]) => c.map((x, i) => (i === 0 || i === 6 ? x.padEnd(widths[i]) : x.padStart(widths[i]))).join('  ').trimEnd();
  console.log(line(header));
  for (const c of cells) console.log(line(c));
  const slowest = rows.reduce((a, b) => (b.slowest.ms > a.slowest.ms ? b : a), rows[0]!);
  console.log(`goals: no file over 1 s of CPU (slowest: ${slowest.slowest.file} in ${slowest.name}, ${fixed(slowest.slowest.ms / 1000, 2)} s); ` +
    '25,000 lines per CPU second on the development corpus; timm (BENCH_REPOSITORY) <= 5 s');
}

if (require.main === module) {
  repositoriesSection(process.argv[2]).catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
