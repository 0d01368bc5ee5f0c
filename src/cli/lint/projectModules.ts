// Cross-file analysis for `lint`: every file is analysed with a ProjectContext, so that
// `from model import Net` in train.py carries model.py's class. The modules are found where
// Python would look (core/analysis/project.ts) and, past that, under the paths the command
// was given and the current directory. Each module file is read at most once per run.
import * as fs from 'fs';
import * as path from 'path';
import { createModuleResolver, ImporterIndex, MAX_IMPORTER_CANDIDATES, ModuleTrees, type ModuleResolver, type ProjectContext } from '../../core/analysis';
import { ModuleFileReader } from '../../node/moduleFileReader';
import { isInsideFolder, pythonFilesUnder } from '../../node/pythonFiles';

/** The folders imports are also searched from: each given folder itself, a given file's folder, then `cwd`. */
export function projectRoots(paths: readonly string[], cwd: string): string[] {
  const roots = new Set<string>();
  for (const given of paths) {
    const absolute = path.resolve(cwd, given);
    let isFolder = false;
    try {
      isFolder = fs.statSync(absolute).isDirectory();
    } catch {
      // A missing path is reported by the file walk; it adds no root.
      continue;
    }
    roots.add(isFolder ? absolute : path.dirname(absolute));
  }
  roots.add(path.resolve(cwd));
  return [...roots];
}

export class ProjectModules {
  private readonly reader = new ModuleFileReader({ revalidate: false });
  private readonly resolver: ModuleResolver;
  /** Each imported module is parsed once per run, however many linted files import it. */
  private readonly trees = new ModuleTrees();
  private readonly importers: ImporterIndex;

  /** `maxBytes`: a module file over --max-bytes is not read, like a linted file over it is not parsed. */
  /**
   * `files`: the files this run lints. Whose imports say who imports whom: these, and the
   * Python files under each root that holds one of them (walked when a file's importers are
   * first asked for), so that `lint model.py` knows that train.py moves `Net`.
   */
  constructor(roots: readonly string[], maxBytes: number | undefined, files: readonly string[] = []) {
    const read = (file: string) => this.reader.read(file, maxBytes);
    this.resolver = resolvedOnce(createModuleResolver(roots, read), read);
    const holding = roots.filter((root) => files.some((file) => isInsideFolder(file, root)));
    this.importers = new ImporterIndex(() => [...new Set([...files, ...pythonFilesUnder(holding, MAX_IMPORTER_CANDIDATES)])], this.resolver, read);
  }

  contextFor(file: string): ProjectContext {
    return { path: file, modules: this.resolver, trees: this.trees, importers: () => this.importers.importersOf(file) };
  }

  /** `file` was rewritten by --fix: files linted after it import its new text. */
  changed(file: string): void {
    this.reader.forget(file);
  }
}

/**
 * Each import resolved once per run: which file `module` names from a file does not change
 * while the command runs (--fix rewrites files, it adds none); the text is read anew. Keyed
 * by the importing file, not its folder: a file may put folders on sys.path itself.
 */
function resolvedOnce(resolver: ModuleResolver, read: (file: string) => string | undefined): ModuleResolver {
  const found = new Map<string, string | undefined>();
  return {
    resolve(fromPath, module, level, fromSource) {
      const key = `${fromPath}\n${module}\n${level}`;
      let file = found.get(key);
      if (file === undefined && !found.has(key)) found.set(key, (file = resolver.resolve(fromPath, module, level, fromSource)?.path));
      const source = file === undefined ? undefined : read(file);
      return file === undefined || source === undefined ? undefined : { path: file, source };
    },
  };
}
