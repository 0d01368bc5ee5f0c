// A cache of analyses on disk, as Ruff keeps one: linting an unchanged repository again (a
// CI re-run, a pre-commit hook) reads each file's findings instead of analysing it. An entry
// is keyed by the tool's build, the options, the file's path and its text; it also records
// every import the analysis resolved (what it asked the module resolver and what came
// back), and counts only while each of those still resolves to the same file and text. So
// an edit to model.py re-analyses train.py, which imports it.
import { createHash } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import { threadId } from 'worker_threads';
import type { AnalyzeOptions, CellFinding, Finding, ModuleResolver, SkippedStatement } from '../../core/analysis';

/** What lint asks of the analysis; tests give their own (lintFiles.ts names it Analyzer). */
export interface Analyzer {
  analyzeSource(source: string, options: AnalyzeOptions): Finding[];
  analyzeNotebook(cells: readonly string[], options: AnalyzeOptions): CellFinding[];
}

/** One question the analysis asked the resolver, and its answer's path and text hash (none: not the project's). */
interface ResolvedImport {
  from: string;
  module: string;
  level: number;
  path?: string;
  hash?: string;
}

interface Entry<T> {
  imports: ResolvedImport[];
  skipped: SkippedStatement[];
  findings: T;
}

const hash = (text: string) => createHash('sha256').update(text).digest('hex');

/** The folder the CLI uses unless told otherwise; it ignores itself in git, as `.ruff_cache` does. */
export const DEFAULT_CACHE_FOLDER = '.device_doctor_cache';

export class AnalysisCache {
  private ready = false;

  /** `tool`: what identifies the analyzer that made an entry (its version and build). */
  constructor(readonly folder: string, readonly tool: string) {}

  /** `inner`, answering from the cache where an entry still holds and filling it otherwise. */
  wrap(inner: Analyzer): Analyzer {
    return {
      analyzeSource: (source, options) => this.cached('py', [source], options, (o) => inner.analyzeSource(source, o)),
      analyzeNotebook: (cells, options) => this.cached('ipynb', cells, options, (o) => inner.analyzeNotebook(cells, o)),
    };
  }

  private cached<T extends Finding[] | CellFinding[]>(kind: string, sources: readonly string[], options: AnalyzeOptions, analyze: (o: AnalyzeOptions) => T): T {
    const { project, onSyntaxError, ...rest } = options;
    // Files that import this one run with its analysis: their texts are part of what it read.
    const importers = (project?.importers?.() ?? []).map((f) => [f.path, hash(f.source)]);
    const key = hash(JSON.stringify([this.tool, kind, project?.path ?? '', rest, sources, importers]));
    const file = path.join(this.folder, key.slice(0, 2), `${key}.json`);
    const found = this.read<T>(file);
    if (found && (!project || stillResolves(found.imports, project.modules))) {
      for (const s of found.skipped) onSyntaxError?.(s);
      return found.findings;
    }
    const imports: ResolvedImport[] = [];
    const skipped: SkippedStatement[] = [];
    const recording: AnalyzeOptions = {
      ...options,
      onSyntaxError: (s) => {
        skipped.push(s);
        onSyntaxError?.(s);
      },
      project: project && { ...project, modules: recordingResolver(project.modules, imports) },
    };
    const findings = analyze(recording);
    this.write(file, { imports, skipped, findings });
    return findings;
  }

  /** An entry, or undefined when there is none or it cannot be read (a cache is never a reason to fail). */
  private read<T>(file: string): Entry<T> | undefined {
    try {
      const entry = JSON.parse(fs.readFileSync(file, 'utf8')) as Entry<T>;
      return Array.isArray(entry.imports) && Array.isArray(entry.skipped) && Array.isArray(entry.findings) ? entry : undefined;
    } catch {
      return undefined;
    }
  }

  private write(file: string, entry: Entry<unknown>): void {
    try {
      if (!this.ready) {
        fs.mkdirSync(this.folder, { recursive: true });
        const ignore = path.join(this.folder, '.gitignore');
        if (!fs.existsSync(ignore)) fs.writeFileSync(ignore, '# Made by device-doctor lint: the cache of analyses, safe to delete.\n*\n');
        this.ready = true;
      }
      fs.mkdirSync(path.dirname(file), { recursive: true });
      // Written aside and renamed: a reader never sees half an entry.
      const temporary = `${file}.${process.pid}.${threadId}.tmp`;
      fs.writeFileSync(temporary, JSON.stringify(entry));
      fs.renameSync(temporary, file);
    } catch {
      // A read-only or full disk costs the next run its speed, not this run its result.
    }
  }
}

function recordingResolver(inner: ModuleResolver, into: ResolvedImport[]): ModuleResolver {
  return {
    resolve(fromPath, module, level) {
      const file = inner.resolve(fromPath, module, level);
      into.push({ from: fromPath, module, level, ...(file ? { path: file.path, hash: hash(file.source) } : {}) });
      return file;
    },
  };
}

function stillResolves(imports: readonly ResolvedImport[], resolver: ModuleResolver): boolean {
  return imports.every((i) => {
    let file;
    try {
      file = resolver.resolve(i.from, i.module, i.level);
    } catch {
      return false;
    }
    return file ? file.path === i.path && hash(file.source) === i.hash : i.path === undefined;
  });
}

/** The running build's identity: its version and the hash of the script that runs (a rebuilt analyzer never reads an older one's entries). */
export function toolIdentity(version: string, script: string | undefined): string {
  try {
    return `${version}:${script ? hash(fs.readFileSync(script, 'utf8')) : ''}`;
  } catch {
    return version;
  }
}
