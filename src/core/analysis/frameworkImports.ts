// Whether the analysed program imports Accelerate or Lightning Fabric: read from its whole
// text once per program. A leaf of the analysis graph, so the interpreter's framework
// knowledge (frameworks.ts) and the shape of a program (runCache.ts) both read it.
import type { Program } from './program';

/** Libraries whose import makes a bare `accelerator` / `fabric` name that library's object. */
const FRAMEWORK_IMPORTS: Record<'accelerate' | 'fabric', { word: string; line: RegExp }> = {
  accelerate: { word: 'accelerate', line: /^[ \t]*(?:from|import)[ \t]+accelerate\b/m },
  fabric: { word: 'lightning', line: /^[ \t]*(?:from|import)[ \t]+(?:lightning|lightning_fabric)\b/m },
};

/** The regex only where the library's name occurs: a plain search of a large file is many times faster than a multiline regex. */
function mentions(source: string, framework: 'accelerate' | 'fabric'): boolean {
  const { word, line } = FRAMEWORK_IMPORTS[framework];
  return source.includes(word) && line.test(source);
}

const importCache = new WeakMap<Program, Map<string, boolean>>();

/** Whether the analysed program imports that library (read from its text once per program). */
export function importsFramework(program: Program, framework: 'accelerate' | 'fabric'): boolean {
  let m = importCache.get(program);
  if (!m) importCache.set(program, (m = new Map()));
  let found = m.get(framework);
  if (found === undefined) m.set(framework, (found = program.units.some((u) => mentions(u.source, framework))));
  return found;
}
