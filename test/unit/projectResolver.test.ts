// createModuleResolver: Python's search order for the project's own modules, over an
// in-memory file system (the resolver is pure; the front ends supply the reads).
import * as assert from 'assert';
import * as path from 'path';
import { createModuleResolver, type ModuleResolver } from '../../src/core/analysis';

const ROOT = path.resolve('/project');
const at = (...parts: string[]) => path.join(ROOT, ...parts);

/** A resolver over `files` (paths relative to ROOT), recording every path it asked for. */
function resolverOver(files: Record<string, string>, roots: string[] = []): { resolver: ModuleResolver; asked: string[] } {
  const texts = new Map(Object.entries(files).map(([name, text]) => [at(...name.split('/')), text]));
  const asked: string[] = [];
  const resolver = createModuleResolver(roots, (file) => {
    asked.push(file);
    return texts.get(file);
  });
  return { resolver, asked };
}

function resolvedPath(resolver: ModuleResolver, from: string, module: string, level = 0): string | undefined {
  return resolver.resolve(at(...from.split('/')), module, level)?.path;
}

describe('project: createModuleResolver', () => {
  it('finds a module beside the importing script, with its source', () => {
    const { resolver } = resolverOver({ 'train.py': '', 'model.py': 'class Net: pass\n' });
    assert.deepStrictEqual(resolver.resolve(at('train.py'), 'model', 0), { path: at('model.py'), source: 'class Net: pass\n' });
  });

  it('finds a package through its __init__.py, and a submodule inside it', () => {
    const { resolver } = resolverOver({ 'train.py': '', 'pkg/__init__.py': 'X = 1\n', 'pkg/data.py': '' });
    assert.strictEqual(resolvedPath(resolver, 'train.py', 'pkg'), at('pkg', '__init__.py'));
    assert.strictEqual(resolvedPath(resolver, 'train.py', 'pkg.data'), at('pkg', 'data.py'));
  });

  it('searches the folders a file puts on sys.path: insert first, append last, from a notebook\'s cells too', () => {
    const files = {
      'course/helper_train.py': 'def train(): pass\n',
      'course/cnn/helper_train.py': '',
      'course/cnn/lesson.py': 'import sys\nsys.path.insert(0, "..")\nfrom helper_train import train\n',
      'course/cnn/plain.py': 'from helper_train import train\n',
      'course/rnn/lesson.py': "import sys\nsys.path.append('../shared')\nfrom tools import x\n",
      'course/shared/tools.py': '',
    };
    const { resolver } = resolverOver(files);
    const from = (file: string, module: string) => resolver.resolve(at(...file.split('/')), module, 0, files[file as keyof typeof files])?.path;
    assert.strictEqual(from('course/cnn/lesson.py', 'helper_train'), at('course', 'helper_train.py'));
    assert.strictEqual(from('course/cnn/plain.py', 'helper_train'), at('course', 'cnn', 'helper_train.py'));
    assert.strictEqual(from('course/rnn/lesson.py', 'tools'), at('course', 'shared', 'tools.py'));
    const cells = 'import sys\nsys.path.insert(0, "..")';
    assert.strictEqual(resolver.resolve(at('course', 'cnn', 'lesson.ipynb'), 'helper_train', 0, cells)?.path, at('course', 'helper_train.py'));
    assert.strictEqual(resolvedPath(resolver, 'course/cnn/lesson.py', 'helper_train'), at('course', 'cnn', 'helper_train.py'), 'without its code, Python\'s order alone');
  });

  it('searches, last, the folders a module beside the file puts on sys.path when imported (`import _init_paths`)', () => {
    const setup = "import os.path as osp\nimport sys\n\ndef add_path(p):\n    if p not in sys.path:\n        sys.path.insert(0, p)\n\n" +
      "this_dir = osp.dirname(__file__)\nadd_path(osp.join(this_dir, '..', 'lib'))\n";
    const files = {
      'tools/_init_paths.py': setup,
      'tools/train.py': 'import _init_paths\nfrom core.function import train\n',
      'tools/plain.py': 'from core.function import train\n',
      'tools/core/__init__.py': '',
      'tools/near.py': 'import _init_paths\nfrom core import x\n',
      'lib/core/__init__.py': '',
      'lib/core/function.py': 'def train(): pass\n',
    };
    const { resolver } = resolverOver(files);
    const from = (file: string, module: string) => resolver.resolve(at(...file.split('/')), module, 0, files[file as keyof typeof files])?.path;
    assert.strictEqual(from('tools/train.py', 'core.function'), at('lib', 'core', 'function.py'));
    assert.strictEqual(from('tools/plain.py', 'core.function'), undefined, 'without the import, Python\'s order alone');
    assert.strictEqual(from('tools/near.py', 'core'), at('tools', 'core', '__init__.py'), 'what Python finds first still wins');
  });

  it('prefers a module file over a package folder of the same name, as Python does', () => {
    const { resolver } = resolverOver({ 'train.py': '', 'utils.py': '', 'utils/__init__.py': '' });
    assert.strictEqual(resolvedPath(resolver, 'train.py', 'utils'), at('utils.py'));
  });

  it('resolves relative imports: level 1 from the file\'s package, level 2 from the one above', () => {
    const { resolver } = resolverOver({
      'pkg/__init__.py': '', 'pkg/sub/__init__.py': '', 'pkg/sub/train.py': '',
      'pkg/sub/layers.py': '', 'pkg/config.py': '',
    });
    assert.strictEqual(resolvedPath(resolver, 'pkg/sub/train.py', 'layers', 1), at('pkg', 'sub', 'layers.py'));
    assert.strictEqual(resolvedPath(resolver, 'pkg/sub/train.py', 'config', 2), at('pkg', 'config.py'));
    // `from . import x` names no module: the package itself.
    assert.strictEqual(resolvedPath(resolver, 'pkg/sub/train.py', '', 1), at('pkg', 'sub', '__init__.py'));
    assert.strictEqual(resolvedPath(resolver, 'pkg/sub/train.py', 'config', 1), undefined);
  });

  it('searches the script\'s own folder before the package root and the roots', () => {
    const { resolver } = resolverOver({
      'app/train.py': '', 'app/config.py': 'near', 'config.py': 'root',
    }, [ROOT]);
    assert.strictEqual(resolvedPath(resolver, 'app/train.py', 'config'), at('app', 'config.py'));
  });

  it('finds absolute imports of the top package from inside it (the folder above the top package)', () => {
    const { resolver } = resolverOver({
      'pkg/__init__.py': '', 'pkg/models/__init__.py': '', 'pkg/models/net.py': '', 'pkg/utils.py': '',
    });
    assert.strictEqual(resolvedPath(resolver, 'pkg/models/net.py', 'pkg.utils'), at('pkg', 'utils.py'));
  });

  it('falls back to the project roots (workspace folders, the CLI\'s paths)', () => {
    const { resolver } = resolverOver({ 'scripts/run.py': '', 'shared/helpers.py': '' }, [at('shared')]);
    assert.strictEqual(resolvedPath(resolver, 'scripts/run.py', 'helpers'), at('shared', 'helpers.py'));
    assert.strictEqual(resolvedPath(resolverOver({ 'scripts/run.py': '', 'shared/helpers.py': '' }).resolver, 'scripts/run.py', 'helpers'), undefined);
  });

  it('answers undefined for a module that is not the project\'s, after asking only where Python would look', () => {
    const { resolver, asked } = resolverOver({ 'train.py': '' }, [ROOT]);
    assert.strictEqual(resolver.resolve(at('train.py'), 'numpy', 0), undefined);
    assert.ok(asked.length > 0);
    assert.ok(asked.every((file) => file.startsWith(ROOT + path.sep) && file.endsWith('.py')), asked.join('\n'));
  });

  it('answers undefined for names that are not identifiers, never reading outside the project', () => {
    const { resolver, asked } = resolverOver({ 'train.py': '', 'model.py': '' });
    for (const module of ['..model', 'a..b', '../etc/passwd', 'model-v2', '1model', 'a/b', '']) {
      assert.strictEqual(resolver.resolve(at('train.py'), module, 0), undefined, module);
    }
    assert.deepStrictEqual(asked, []);
  });
});
