// The project around an analysed file: which of its imports are the project's own modules
// (`from model import Net`, `from .utils import train`, `import pkg.data as d`), resolved
// to files the way Python's import system would find them. Pure: the front end supplies
// the file reads (the CLI reads the disk; the editor's open documents override the disk).
import * as path from 'path';
import type { ModuleTrees } from './moduleTrees';

/** A Python file of the project that an analysed file imports. */
export interface ModuleFile {
  /** Absolute path, as the front end names files. */
  path: string;
  source: string;
  /** A notebook's code cells (IPython syntax blanked), whose joined text `source` is. */
  cells?: readonly string[];
}

/** Finds the project's own modules; called synchronously during an analysis. */
export interface ModuleResolver {
  /**
   * The file of `module` as imported from `fromPath` (absolute): `a.b` is `a/b.py` or
   * `a/b/__init__.py`; `level` counts a relative import's leading dots (`from ..x import y`
   * is module "x", level 2). Undefined when the module is not the project's (torch, numpy).
   * `fromSource`: the importing file's code (a notebook's cells joined), for the folders it
   * puts on sys.path; without it only Python's own search order applies.
   */
  resolve(fromPath: string, module: string, level: number, fromSource?: string): ModuleFile | undefined;
}

/** Where the analysed text lives and how to find what it imports. */
export interface ProjectContext {
  /** Absolute path of the analysed file (a notebook's path for its cells). */
  path: string;
  modules: ModuleResolver;
  /** Parsed modules shared with the other analyses of a run or workspace; without it, each analysis parses its imports. */
  trees?: ModuleTrees;
  /**
   * Files of the project that import the analysed file, most telling first (a few: each
   * runs with the analysis). Facts flow back from them: a class of the analysed file moved
   * to the GPU there, a helper called there with GPU tensors.
   */
  importers?: () => readonly ModuleFile[];
}

/** The front end's file access: the text at an absolute path, or undefined when there is no such file. */
export type ReadFile = (absolutePath: string) => string | undefined;

/**
 * Python's search order for `import a.b` from a file: the file's own folder (a script's
 * folder is first on sys.path), the folder above its top package (so `pkg.sub` resolves
 * from inside `pkg/`), then the project roots (workspace folders, the CLI's paths).
 */
export function createModuleResolver(roots: readonly string[], read: ReadFile): ModuleResolver {
  const hasInit = (dir: string) => read(path.join(dir, '__init__.py')) !== undefined;
  // Per importing file, while its code stays the same (an edited document may add the line).
  const added = new Map<string, { text: string; first: string[]; last: string[] }>();
  const addedBy = (fromPath: string, fromSource: string | undefined) => {
    const text = fromSource ?? '';
    let found = added.get(fromPath);
    if (found?.text !== text) {
      const own = sysPathAdditions(fromPath, text);
      // `import _init_paths`: a module beside the file that puts folders on sys.path when
      // imported; they are searched after Python's own order, so nothing found before changes.
      for (const m of text.matchAll(SIBLING_IMPORT)) {
        const sibling = path.join(path.dirname(fromPath), `${m[1]}.py`);
        const code = sibling === fromPath ? undefined : read(sibling);
        if (code !== undefined && code.includes('sys.path')) {
          const more = sysPathAdditions(sibling, code);
          own.last.push(...more.first, ...more.last);
        }
      }
      added.set(fromPath, (found = { text, ...own }));
    }
    return found;
  };
  const find = (base: string, parts: readonly string[]): ModuleFile | undefined => {
    const stem = path.join(base, ...parts);
    for (const file of parts.length ? [stem + '.py', path.join(stem, '__init__.py')] : [path.join(stem, '__init__.py')]) {
      const source = read(file);
      if (source !== undefined) return { path: file, source };
    }
    return undefined;
  };
  return {
    resolve(fromPath, module, level, fromSource) {
      const parts = module ? module.split('.') : [];
      if (parts.some((p) => !/^[A-Za-z_]\w*$/.test(p))) return undefined;
      if (level > 0) {
        let base = path.dirname(fromPath);
        for (let i = 1; i < level; i++) base = path.dirname(base);
        return find(base, parts);
      }
      if (parts.length === 0) return undefined;
      const own = path.dirname(fromPath);
      let top = own;
      while (hasInit(top) && path.dirname(top) !== top) top = path.dirname(top);
      const searched = new Set<string>();
      const extra = addedBy(fromPath, fromSource);
      for (const base of [...extra.first, own, top, ...roots, ...extra.last]) {
        if (searched.has(base)) continue;
        searched.add(base);
        const found = find(base, parts);
        if (found) return found;
      }
      return undefined;
    },
  };
}

/**
 * Folders a file puts on sys.path itself: `sys.path.insert(0, "..")` (searched first),
 * `sys.path.append("../helpers")` (searched last), as literals relative to the file's
 * folder (a notebook's working folder, a script run from its own). The text may be a
 * notebook's JSON, where the quotes are escaped.
 */
function sysPathAdditions(fromPath: string, text: string): { first: string[]; last: string[] } {
  const first: string[] = [];
  const last: string[] = [];
  for (const m of text.matchAll(/sys\.path\.(insert\(\s*\d+\s*,|append\()\s*\\?["']([^"'\\\n]+)\\?["']\s*\)/g)) {
    const folder = path.resolve(path.dirname(fromPath), m[2]!);
    (m[1]!.startsWith('insert') ? first : last).push(folder);
  }
  // `this_dir = osp.dirname(__file__)`, then `osp.join(this_dir, '..', 'lib')` handed to
  // sys.path (often through a helper): searched last, after what Python finds anyway.
  if (/sys\.path\.(insert|append)\s*\(/.test(text)) {
    const here = new Set([...text.matchAll(FILE_FOLDER)].map((m) => m[1]!));
    for (const m of text.matchAll(JOINED_FOLDER)) {
      if (!here.has(m[1]!)) continue;
      const parts = [...m[2]!.matchAll(/["']([^"'\n]+)["']/g)].map((p) => p[1]!);
      last.push(path.resolve(path.dirname(fromPath), ...parts));
    }
  }
  return { first, last };
}

/** `import name` alone on its line: a module of the project beside the file may be meant. */
const SIBLING_IMPORT = /^[ \t]*import[ \t]+([A-Za-z_]\w*)[ \t]*(?:#.*)?$/gm;

/** `this_dir = os.path.dirname(__file__)` (or of its abspath/realpath, through `osp`): the name. */
const FILE_FOLDER = /^[ \t]*([A-Za-z_]\w*)[ \t]*=[ \t]*(?:os\.path|osp|path)\.dirname\(\s*(?:(?:os\.path|osp|path)\.(?:abspath|realpath)\(\s*)?__file__\s*\)?\s*\)/gm;

/** `osp.join(this_dir, '..', 'lib')`: the first argument's name and the string literals after it. */
const JOINED_FOLDER = /(?:os\.path|osp|path)\.join\(\s*([A-Za-z_]\w*)\s*,\s*((?:["'][^"'\n]+["']\s*,?\s*)+)\)/g;
