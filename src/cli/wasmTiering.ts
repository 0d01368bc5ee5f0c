// `lint` compiles tree-sitter's wasm (670 KB) with V8's baseline compiler only. By default V8
// also compiles it with its optimizing compiler on background threads, which cost about
// 110 ms of CPU per start (measured: a 10-line file took +181 ms over `node -e 0`, +68 ms
// with --liftoff-only). The optimized code parses about 1.3x faster once ready, but parsing
// is a small part of analysis: linting 136 real files (15k lines) or one 50k-line file took
// the same CPU either way, within the noise of repeated runs. The bench/detect commands
// keep the default: their tfjs wasm backend is the thing they measure.
import * as v8 from 'v8';

/** Call before the parser loads its wasm; a flag set later affects only later compilations. */
export function useBaselineWasmCompiler(): void {
  v8.setFlagsFromString('--liftoff-only');
}
