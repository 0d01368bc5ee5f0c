// The tree-sitter Python parser, loaded from its wasm files. Callers must
// `await initPythonParser()` before parsing; parsing itself is synchronous.
//
// Tree-sitter's wasm has a 2 GB heap; input that exhausts it (about 20 MB of `(((…`) makes
// the module abort, and from then on every call into it throws. web-tree-sitter keeps its
// emscripten module in a closure and hands the same one to every later `Parser.init()`, so
// recovering takes a fresh copy of its code: the module file is evaluated again (evicted from
// require.cache first), initialised and given the language, and parsing goes on. Trees of the
// dead copy are never touched again: `isLiveTree` tells them apart, and the dead module's
// functions are replaced so that a stray call (a finalizer, a late `delete()`) neither throws
// nor keeps its 2 GB of memory reachable. The bundle ships the module file beside itself
// (esbuild.js copies it to dist/); from source it is node_modules' copy.
import * as fs from 'fs';
import * as path from 'path';
import type * as WebTreeSitter from 'web-tree-sitter';
import type { Edit, Language, Parser, Tree } from 'web-tree-sitter';

type TreeSitterModule = typeof WebTreeSitter;

/** One evaluated copy of web-tree-sitter with its wasm instance, language and parser. */
interface Instance {
  readonly generation: number;
  readonly module: TreeSitterModule;
  /** The emscripten Module object: the options given to Parser.init, filled in by it. */
  readonly emscripten: Record<string, unknown>;
  readonly language: Language;
  readonly parser: Parser;
  dead: boolean;
  /** emscripten's stderr lines (its abort reason), kept for the crash message. */
  readonly stderr: string[];
}

export interface ParserReload {
  /** Milliseconds from the crash until the fresh parser was ready. */
  ms: number;
  /** How many times the parser has been reloaded in this process. */
  reloads: number;
}

/** Thrown by parsePython when tree-sitter's wasm crashed on this text; the parser is being reloaded. */
export class ParserCrashedError extends Error {
  constructor(
    readonly textLength: number,
    /** Settles when the fresh parser is ready (rejects if it could not be loaded). */
    readonly reloaded: Promise<ParserReload>,
    readonly cause: unknown,
  ) {
    super(`The Python parser (tree-sitter wasm) crashed on a text of ${textLength.toLocaleString('en-US')} characters `
      + `(${cause instanceof Error ? cause.message : String(cause)}); it is being reloaded.`);
    this.name = 'ParserCrashedError';
    // Nobody may be waiting yet; a failed reload is reported by the next initPythonParser().
    reloaded.catch(() => undefined);
  }
}

const MODULE_FILE = 'web-tree-sitter.cjs';
/** The functions web-tree-sitter's finalizers and delete() methods call: made harmless in a dead module. */
const RELEASE_FUNCTIONS = new Set([
  '_ts_tree_delete', '_ts_tree_cursor_delete_wasm', '_ts_parser_delete', '_ts_query_delete',
  '_ts_lookahead_iterator_delete', '_free', 'setValue',
]);

/** WebAssembly.RuntimeError: what an aborted or trapped wasm throws (lib ES2022 has no WebAssembly types). */
const WasmRuntimeError = (globalThis as unknown as { WebAssembly: { RuntimeError: ErrorConstructor } }).WebAssembly.RuntimeError;

let current: Instance | undefined;
let loading: Promise<Instance> | undefined;
let generations = 0;
let reloads = 0;
/** The folder the first caller named; reloads look there again. */
let rememberedWasmDir: string | undefined;
const treeOwners = new WeakMap<Tree, Instance>();

/**
 * The wasm files sit beside the bundle in dist/; when running from source (tests,
 * tsx) they are found in node_modules instead.
 */
function locateWasm(file: string, wasmDir?: string): string {
  const beside = locateBeside(file, wasmDir);
  if (beside) return beside;
  // Running from source (src/core/python): the packages' own copies.
  const pkg = file === 'web-tree-sitter.wasm' ? 'web-tree-sitter' : 'tree-sitter-python';
  return path.join(__dirname, '..', '..', '..', 'node_modules', pkg, file);
}

function locateBeside(file: string, wasmDir?: string): string | undefined {
  const candidates = [
    wasmDir && path.join(wasmDir, file),
    path.join(__dirname, file),
    path.join(__dirname, '..', 'dist', file),
  ].filter((p): p is string => !!p);
  return candidates.find((candidate) => fs.existsSync(candidate));
}

/** web-tree-sitter's CommonJS build: beside the bundle, else the package's (the "require" export). */
function locateModule(wasmDir?: string): string {
  return locateBeside(MODULE_FILE, wasmDir) ?? require.resolve('web-tree-sitter');
}

/** A copy of web-tree-sitter's code evaluated afresh, sharing no state with earlier copies. */
function freshModule(file: string): TreeSitterModule {
  delete require.cache[file];
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require(file) as TreeSitterModule;
  } finally {
    // Nobody else may be handed this copy through the cache.
    delete require.cache[file];
  }
}

async function load(wasmDir: string | undefined): Promise<Instance> {
  const module = freshModule(locateModule(wasmDir));
  const stderr: string[] = [];
  const emscripten: Record<string, unknown> = {
    locateFile: (name: string) => locateWasm(name, wasmDir),
    printErr: (line: string) => void (stderr.length < 20 && stderr.push(String(line))),
  };
  let instance: Instance | undefined;
  // Called by emscripten's abort() before it throws: the module is dead from here on,
  // whichever call hit it (a parse, or reading a node during analysis).
  emscripten.onAbort = () => {
    if (instance) markDead(instance);
  };
  await module.Parser.init(emscripten);
  // Bytes, not a path: given a path, web-tree-sitter reads it through `import('fs/promises')`,
  // and that first dynamic import starts Node's ESM loader (6 ms of every CLI start).
  const language = await module.Language.load(fs.readFileSync(locateWasm('tree-sitter-python.wasm', wasmDir)));
  const parser = new module.Parser();
  parser.setLanguage(language);
  instance = { generation: ++generations, module, emscripten, language, parser, dead: false, stderr };
  return instance;
}

/** Resolves when a working parser is loaded: at once, after the first load, or after a reload. */
export function initPythonParser(wasmDir?: string): Promise<void> {
  if (wasmDir !== undefined && rememberedWasmDir === undefined) rememberedWasmDir = wasmDir;
  if (current && !current.dead) return Promise.resolve();
  return startLoading().then(() => undefined);
}

function startLoading(): Promise<Instance> {
  loading ??= load(rememberedWasmDir).then(
    (instance) => {
      current = instance;
      loading = undefined;
      return instance;
    },
    (error: unknown) => {
      loading = undefined; // the next initPythonParser() tries again
      throw error;
    },
  );
  return loading;
}

export function isParserReady(): boolean {
  return current !== undefined && !current.dead;
}

/** True while `tree` belongs to the loaded parser; a tree of a crashed parser must not be used. */
export function isLiveTree(tree: Tree): boolean {
  const owner = treeOwners.get(tree);
  return owner !== undefined && owner === current && !owner.dead;
}

function requireParser(): Instance {
  if (!current || current.dead) {
    throw new Error(loading ? 'The Python parser is being reloaded after a crash: await initPythonParser() before parsing'
      : 'initPythonParser() must finish before parsing');
  }
  return current;
}

/**
 * Marks `instance` dead and starts loading a fresh copy. Its functions are replaced right
 * away: a finalizer or a `delete()` of one of its objects becomes a no-op, anything else
 * throws a clear error, and its wasm memory is no longer reachable through it.
 */
function markDead(instance: Instance): void {
  if (instance.dead) return;
  instance.dead = true;
  const discarded = (): never => {
    throw new Error('This syntax tree belongs to a Python parser that crashed and was replaced; parse the text again');
  };
  for (const key of Object.keys(instance.emscripten)) {
    const value = instance.emscripten[key];
    if (typeof value === 'function') instance.emscripten[key] = RELEASE_FUNCTIONS.has(key) ? () => 0 : discarded;
    else if (key !== 'onAbort') delete instance.emscripten[key];
  }
  if (current !== instance) return;
  reloads++;
  // Not from inside emscripten's abort(), with the dead wasm still on the stack: once it has unwound.
  queueMicrotask(() => {
    if (current === instance) startLoading().catch(() => undefined);
  });
}

function crashed(instance: Instance, textLength: number, cause: unknown): ParserCrashedError {
  const started = Date.now();
  markDead(instance);
  // emscripten prints its reason before throwing a bare "Aborted()"; keep anything more telling.
  const printed = instance.stderr.filter((line) => !/^Aborted\(\)$/.test(line.trim()));
  const reason = printed.length > 0 && cause instanceof Error ? new Error(`${cause.message} ${printed.join(' ')}`) : cause;
  const reloaded = initPythonParser().then(() => ({ ms: Date.now() - started, reloads }));
  return new ParserCrashedError(textLength, reloaded, reason);
}

/**
 * For an error thrown while a tree was being read or walked, outside parsePython (which
 * handles its own): a WebAssembly.RuntimeError is tree-sitter's wasm aborting ("Aborted().
 * Build with -sASSERTIONS for more info.", e.g. out of memory) or trapping. Its state cannot
 * be trusted after either, so the parser is replaced (an abort has already started that
 * through onAbort; a trap has not). True when `error` was such a failure.
 */
export function discardParserAfter(error: unknown): boolean {
  if (!(error instanceof WasmRuntimeError)) return false;
  if (current && !current.dead) markDead(current);
  return true;
}

/** How many times the parser has been replaced after a crash in this process. */
export function parserReloads(): number {
  return reloads;
}

/**
 * Parses `source`; with `oldTree` (already `edit()`ed) tree-sitter reuses unchanged subtrees.
 * Throws ParserCrashedError when the wasm crashes on this text (the parser then reloads:
 * await initPythonParser() before the next parse); an `oldTree` of a crashed parser is ignored.
 *
 * Tree-sitter ends a line only at `\n`, so a file with lone `\r` line breaks (valid Python)
 * parsed as one long broken line. A lone `\r` becomes `\n` for the parser: the same length,
 * so every offset is unchanged, and tree-sitter's rows and columns are then exactly the
 * LSP positions of lines.ts (`\n`, `\r\n` and `\r` each end a line). Node texts show `\n`
 * there; fixes insert the file's own line break (see the analysis' `eol`).
 */
export function parsePython(source: string, oldTree?: Tree | null): Tree {
  const instance = requireParser();
  const reuse = oldTree && isLiveTree(oldTree) ? oldTree : null;
  let tree: Tree | null;
  try {
    tree = instance.parser.parse(parserText(source), reuse);
  } catch (error) {
    // A parse never throws for a string: the wasm itself failed (an abort, a trap, a stack
    // overflow inside it) and its state cannot be trusted any more.
    throw crashed(instance, source.length, error);
  }
  if (!tree) throw new Error('tree-sitter returned no tree');
  treeOwners.set(tree, instance);
  return tree;
}

/** The fields of a tree-sitter edit (as in web-tree-sitter's `Edit`). */
export type TreeEdit = Pick<Edit, 'startIndex' | 'oldEndIndex' | 'newEndIndex' | 'startPosition' | 'oldEndPosition' | 'newEndPosition'>;

/** Tells `tree` what changed before it is passed to parsePython as `oldTree`; a dead tree is left alone. */
export function editTree(tree: Tree, edit: TreeEdit): void {
  const owner = treeOwners.get(tree);
  if (!owner || !isLiveTree(tree)) return;
  try {
    tree.edit(new owner.module.Edit(edit));
  } catch (error) {
    throw crashed(owner, 0, error);
  }
}

/** A copy of `tree` to edit and re-parse from, leaving `tree` as it is (shallow: very fast). */
export function copyTree(tree: Tree): Tree {
  const owner = treeOwners.get(tree);
  const copy = tree.copy();
  if (owner) treeOwners.set(copy, owner);
  return copy;
}

/** Frees `tree` unless it belongs to a crashed parser (whose memory is gone with it). */
export function deleteTree(tree: Tree): void {
  if (isLiveTree(tree)) tree.delete();
}

/** `source` with each lone `\r` as `\n` (length-preserving). */
export function parserText(source: string): string {
  return source.includes('\r') ? source.replace(/\r(?!\n)/g, '\n') : source;
}

export type { Tree, Node } from 'web-tree-sitter';
