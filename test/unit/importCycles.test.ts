// No import cycles in src/, type-only imports included (ARCHITECTURE.md, "Rules of the house").
import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { importCycles, importGraph } from './helpers/importGraph';

const SRC = path.join(__dirname, '..', '..', 'src');

describe('import structure of src/', () => {
  it('has no import cycles, type-only imports included', () => {
    const cycles = importCycles(importGraph(SRC));
    assert.deepStrictEqual(cycles.map((c) => c.join(' → ')), []);
  });

  it('sees every source file, so the check above covers the whole tree', () => {
    const graph = importGraph(SRC);
    assert.ok(graph.has('extension.ts') && graph.has(path.join('cli', 'cli.ts')) && graph.size > 150, `only ${graph.size} files`);
    assert.ok((graph.get('extension.ts') ?? []).length > 0, 'extension.ts imports nothing?');
  });

  describe('the cycle finder', () => {
    let tmp: string;
    beforeEach(() => {
      tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'dd-cycles-'));
    });
    afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));
    const write = (file: string, text: string) => {
      fs.mkdirSync(path.dirname(path.join(tmp, file)), { recursive: true });
      fs.writeFileSync(path.join(tmp, file), text);
    };

    it('finds a cycle made of a type-only import and a value import through an index file', () => {
      write('a.ts', "import type { B } from './b';\nexport const a = 1;\n");
      write('b/index.ts', "import { c } from './c';\nexport type B = number;\n");
      write('b/c.ts', "import { a } from '../a';\nexport const c = a;\n");
      assert.deepStrictEqual(importCycles(importGraph(tmp)), [['a.ts', path.join('b', 'index.ts'), path.join('b', 'c.ts'), 'a.ts']]);
    });

    it('finds a cycle through a dynamic import and an export-from, and ignores packages and comments', () => {
      write('x.ts', "export * from './y';\nimport 'fs';\n// import { z } from './z';\n");
      write('y.ts', "export async function f() { return import('./x'); }\n");
      write('z.ts', "import { f } from './y';\n");
      assert.deepStrictEqual(importCycles(importGraph(tmp)), [['x.ts', 'y.ts', 'x.ts']]);
    });

    it('reports nothing for a diamond (shared dependencies are not cycles)', () => {
      write('top.ts', "import './l';\nimport './r';\n");
      write('l.ts', "import './base';\n");
      write('r.ts', "import './base';\n");
      write('base.ts', 'export {};\n');
      assert.deepStrictEqual(importCycles(importGraph(tmp)), []);
    });
  });
});
