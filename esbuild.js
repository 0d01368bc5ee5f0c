// Bundles one file per process (extension host, language server, CLI and compute
// worker) and copies the runtime assets they load from disk: the tree-sitter and
// tfjs-backend-wasm .wasm files and the Python scripts of src/worker/python.
const esbuild = require('esbuild');
const fs = require('fs');
const path = require('path');

const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');
const outdir = path.join(__dirname, 'dist');

// web-tree-sitter's ESM build reads import.meta.url, which a CommonJS bundle lacks:
// always bundle its CommonJS build.
const webTreeSitterCjs = {
  name: 'web-tree-sitter-cjs',
  setup(build) {
    build.onResolve({ filter: /^web-tree-sitter$/ }, () => ({
      path: require.resolve('web-tree-sitter'), // the "require" condition: web-tree-sitter.cjs
    }));
  },
};

const entries = [
  { in: 'src/extension.ts', out: 'extension' },
  { in: 'src/server/server.ts', out: 'server' },
  { in: 'src/cli/cli.ts', out: 'cli', banner: '#!/usr/bin/env node' },
  { in: 'src/worker/worker.ts', out: 'worker' },
].filter((e) => fs.existsSync(path.join(__dirname, e.in)));

const assets = [
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
        sourcemap: !production,
        minify: production,
        logLevel: 'warning',
        banner: entry.banner ? { js: entry.banner } : undefined,
        plugins: [webTreeSitterCjs],
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
