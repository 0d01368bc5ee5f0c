// The tree-sitter Python parser, loaded once per process from its wasm files.
// Callers must `await initPythonParser()` before parsing; parsing itself is synchronous.
import * as fs from 'fs';
import * as path from 'path';
import { Language, Parser, Tree } from 'web-tree-sitter';

let language: Language | undefined;
let parser: Parser | undefined;
let loading: Promise<void> | undefined;

/**
 * The wasm files sit beside the bundle in dist/; when running from source (tests,
 * tsx) they are found in node_modules instead.
 */
function locateWasm(file: string, wasmDir?: string): string {
  const candidates = [
    wasmDir && path.join(wasmDir, file),
    path.join(__dirname, file),
    path.join(__dirname, '..', 'dist', file),
  ].filter((p): p is string => !!p);
  for (const candidate of candidates) if (fs.existsSync(candidate)) return candidate;
  // Running from source (src/core/python): the packages' own copies.
  const pkg = file === 'web-tree-sitter.wasm' ? 'web-tree-sitter' : 'tree-sitter-python';
  return path.join(__dirname, '..', '..', '..', 'node_modules', pkg, file);
}

export function initPythonParser(wasmDir?: string): Promise<void> {
  loading ??= (async () => {
    await Parser.init({ locateFile: (name: string) => locateWasm(name, wasmDir) });
    language = await Language.load(locateWasm('tree-sitter-python.wasm', wasmDir));
    parser = new Parser();
    parser.setLanguage(language);
  })();
  return loading;
}

export function isParserReady(): boolean {
  return parser !== undefined;
}

function requireParser(): Parser {
  if (!parser) throw new Error('initPythonParser() must finish before parsing');
  return parser;
}

/**
 * Parses `source`; with `oldTree` (already `edit()`ed) tree-sitter reuses unchanged subtrees.
 *
 * Tree-sitter ends a line only at `\n`, so a file with lone `\r` line breaks (valid Python)
 * parsed as one long broken line. A lone `\r` becomes `\n` for the parser: the same length,
 * so every offset is unchanged, and tree-sitter's rows and columns are then exactly the
 * LSP positions of lines.ts (`\n`, `\r\n` and `\r` each end a line). Node texts show `\n`
 * there; fixes insert the file's own line break (see the analysis' `eol`).
 */
export function parsePython(source: string, oldTree?: Tree | null): Tree {
  const tree = requireParser().parse(parserText(source), oldTree ?? null);
  if (!tree) throw new Error('tree-sitter returned no tree');
  return tree;
}

/** `source` with each lone `\r` as `\n` (length-preserving). */
export function parserText(source: string): string {
  return source.includes('\r') ? source.replace(/\r(?!\n)/g, '\n') : source;
}

export type { Tree, Node } from 'web-tree-sitter';
