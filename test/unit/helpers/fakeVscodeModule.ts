// Editor-glue tests run src/vscode/** against a stand-in for the `vscode` module. Within the
// calling describe block, `require('vscode')` resolves to `fakePath`; install() makes a test's
// fake its exports and drops the cached glue modules, so each test loads them bound to it.
import * as path from 'path';

type Resolver = (request: string, ...rest: unknown[]) => string;

export function redirectVscodeModule(fakePath: string): { install(api: unknown, alsoFresh?: readonly string[]): void } {
  const moduleApi = require('module') as { _resolveFilename: Resolver };
  const originalResolve = moduleApi._resolveFilename;
  before(() => {
    moduleApi._resolveFilename = function (this: unknown, request: string, ...rest: unknown[]) {
      return request === 'vscode' ? fakePath : originalResolve.call(this, request, ...rest);
    };
  });
  after(() => {
    moduleApi._resolveFilename = originalResolve;
    delete require.cache[fakePath];
  });
  return {
    /** `alsoFresh`: other module paths (substrings) to load anew, e.g. '@vscode/python-extension'. */
    install(api, alsoFresh = []) {
      require.cache[fakePath] = { id: fakePath, filename: fakePath, loaded: true, exports: api } as unknown as NodeJS.Module;
      const glue = `${path.sep}src${path.sep}vscode${path.sep}`;
      for (const key of Object.keys(require.cache)) {
        if (key.includes(glue) || alsoFresh.some((part) => key.includes(part))) delete require.cache[key];
      }
    },
  };
}
