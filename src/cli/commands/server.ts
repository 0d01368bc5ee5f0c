// `device-doctor server`: the language server (dist/server.js, the one VS Code starts) over
// stdio, for every other editor that speaks LSP (Neovim, Helix, Zed, JupyterLab's
// jupyterlab-lsp). It runs in this process, not a child: the editor starts and kills one
// process, and stdin/stdout are the protocol's, untouched.
import * as fs from 'fs';
import * as path from 'path';
import type { CliIo } from '../io';

/** server.ts picks its transport from its command line when it loads: stdio needs this flag there. */
const STDIO_FLAG = '--stdio';

/** The bundle beside dist/cli.js; a plain path, so esbuild leaves it out of the CLI bundle. */
function serverBundle(): string {
  return path.join(__dirname, 'server.js');
}

/**
 * Starts the language server and never settles: the server ends the process itself, on the
 * client's `exit` notification or when stdin closes (stdioTransport.ts). Returns 2 when there
 * is no server bundle (the CLI run from source, not from a build or the package).
 */
export function runServerCommand(io: CliIo): Promise<number> {
  const bundle = serverBundle();
  if (!fs.existsSync(bundle)) {
    io.stderr(`error: the language server is missing (${bundle}); run 'npm run build' first\n`);
    return Promise.resolve(2);
  }
  if (!process.argv.includes(STDIO_FLAG)) process.argv.push(STDIO_FLAG);
  // A computed path: required at run time from dist/, never bundled into cli.js.
  require(bundle);
  return new Promise<number>(() => undefined);
}
