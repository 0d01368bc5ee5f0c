// Bundles one file per process (extension host, language server and its analysis
// thread, CLI and compute worker) and copies the runtime assets they load from disk:
// the tree-sitter and tfjs-backend-wasm .wasm files and the Python scripts of src/worker/python.
const esbuild = require('esbuild');
const fs = require('fs');
const path = require('path');

const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');
const outdir = path.join(__dirname, 'dist');

// web-tree-sitter is loaded at run time from its CommonJS file, copied beside the bundles,
// never bundled: src/core/python/parser.ts evaluates a fresh copy of it after its wasm
// aborts (a bundled copy is evaluated once and keeps the dead module). Only type imports
// of it are allowed elsewhere; a value import would bundle a second, unrelated copy.
const webTreeSitterAtRunTime = {
  name: 'web-tree-sitter-at-run-time',
  setup(build) {
    build.onResolve({ filter: /^web-tree-sitter$/ }, (args) =>
      // parser.ts falls back to require.resolve() when run from source, beside node_modules.
      args.kind === 'require-resolve' ? { external: true } : {
        errors: [{ text: `${args.importer} imports web-tree-sitter at run time: use src/core/python/parser.ts (or an \`import type\`)` }],
      });
  },
};

// The CLI's bench, detect and doctor commands load tfjs and its backends (about 1.4 MB):
// they are a bundle of their own, cliDevices.js, that src/cli/main.ts requires only when
// one of them runs, so `lint` neither parses nor evaluates them.
const cliDevicesAtRunTime = {
  name: 'cli-devices-at-run-time',
  setup(build) {
    build.onResolve({ filter: /^\.\/deviceCommands$/ }, (args) =>
      args.importer.endsWith(path.join('src', 'cli', 'main.ts')) ? { path: './cliDevices.js', external: true } : undefined);
  },
};

const entries = [
  { in: 'src/extension.ts', out: 'extension' },
  { in: 'src/server/server.ts', out: 'server' },
  // The language server's analysis thread (worker_threads), started by server.js from beside it.
  { in: 'src/server/analysisWorker.ts', out: 'analysisWorker' },
  { in: 'src/cli/cli.ts', out: 'cli', banner: '#!/usr/bin/env node' },
  // A thread of `lint` over many files (src/cli/lint/lintThreads.ts), started from beside cli.js.
  { in: 'src/cli/lint/lintWorker.ts', out: 'lintWorker' },
  { in: 'src/cli/deviceCommands.ts', out: 'cliDevices' },
  { in: 'src/worker/worker.ts', out: 'worker' },
  // npm run device-check, runnable with plain node where there is no node_modules (an accelerator machine).
  { in: 'scripts/device-check.ts', out: 'device-check' },
].filter((e) => fs.existsSync(path.join(__dirname, e.in)));

const assets = [
  require.resolve('web-tree-sitter'), // the "require" condition: web-tree-sitter.cjs
  require.resolve('web-tree-sitter/web-tree-sitter.wasm'),
  path.join(path.dirname(require.resolve('tree-sitter-python/package.json')), 'tree-sitter-python.wasm'),
  // The wasm benchmark engine's binaries (src/worker/engines/wasm.ts finds them next to the bundle);
  // the threaded build is left out: tfjs-backend-wasm never loads it under Node.js.
  ...['tfjs-backend-wasm-simd.wasm', 'tfjs-backend-wasm.wasm'].map((f) =>
    path.join(path.dirname(require.resolve('@tensorflow/tfjs-backend-wasm')), f),
  ),
];

function copyAssets() {
  fs.mkdirSync(outdir, { recursive: true });
  for (const file of assets) fs.copyFileSync(file, path.join(outdir, path.basename(file)));
  const pyDir = path.join(__dirname, 'src/worker/python');
  if (fs.existsSync(pyDir)) {
    for (const f of fs.readdirSync(pyDir).filter((n) => n.endsWith('.py'))) {
      fs.copyFileSync(path.join(pyDir, f), path.join(outdir, f));
    }
  }
}

async function main() {
  // A release build starts from an empty dist/ so no stale source maps are packaged.
  if (production) fs.rmSync(outdir, { recursive: true, force: true });
  copyAssets();
  const contexts = await Promise.all(
    entries.map((entry) =>
      esbuild.context({
        entryPoints: { [entry.out]: entry.in },
        bundle: true,
        format: 'cjs',
        platform: 'node',
        target: 'node18',
        outdir,
        external: ['vscode', '@tensorflow/tfjs-node', '@tensorflow/tfjs-node-gpu'],
        // jsonc-parser's "main" is a UMD file whose require('./impl/…') calls esbuild cannot follow.
        alias: { 'jsonc-parser': 'jsonc-parser/lib/esm/main.js' },
        sourcemap: !production,
        minify: production,
        logLevel: 'warning',
        banner: entry.banner ? { js: entry.banner } : undefined,
        plugins: [webTreeSitterAtRunTime, cliDevicesAtRunTime],
      }),
    ),
  );
  if (watch) {
    await Promise.all(contexts.map((c) => c.watch()));
    return;
  }
  await Promise.all(contexts.map((c) => c.rebuild()));
  await Promise.all(contexts.map((c) => c.dispose()));
  const cli = path.join(outdir, 'cli.js');
  if (fs.existsSync(cli)) fs.chmodSync(cli, 0o755);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
