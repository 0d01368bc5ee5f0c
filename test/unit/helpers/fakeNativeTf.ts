// Fake @tensorflow/tfjs-node(-gpu) packages laid out as `npm install --prefix <dir>` would
// leave the real ones (whose install downloads libtensorflow, so they cannot be installed here).
import * as fs from 'fs';
import * as path from 'path';

/** Writes <root>/<prefix>/node_modules/@tensorflow/<name>/{package.json,index.js}; returns <root>/<prefix>. */
export function fakeNativePackage(root: string, prefix: string, name: string, indexJs: string): string {
  const dir = path.join(root, prefix, 'node_modules', '@tensorflow', name);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: `@tensorflow/${name}`, version: '4.22.0', main: 'index.js' }));
  fs.writeFileSync(path.join(dir, 'index.js'), indexJs);
  return path.join(root, prefix);
}

/**
 * A tfjs namespace whose "tensorflow" backend is tfjs's cpu backend; gpu says what
 * isUsingGpuDevice reports. loadedMarker: a file the module appends to when it is required.
 */
export function workingNativeFake(gpu: boolean | undefined, loadedMarker?: string): string {
  const core = JSON.stringify(require.resolve('@tensorflow/tfjs-core'));
  const cpu = JSON.stringify(require.resolve('@tensorflow/tfjs-backend-cpu'));
  const mark = loadedMarker ? `require('fs').appendFileSync(${JSON.stringify(loadedMarker)}, 'loaded\\n');` : '';
  return `${mark}
const tf = require(${core});
const cpu = require(${cpu});
if (!tf.findBackendFactory('tensorflow')) {
  tf.registerBackend('tensorflow', () => new cpu.MathBackendCPU(), 0);
  for (const kernel of tf.getKernelsForBackend('cpu')) tf.registerKernel({ ...kernel, backendName: 'tensorflow' });
}
module.exports = { ...tf, version: { 'tfjs-core': tf.version_core, 'tfjs-node': '4.22.0-fake' },
  backend: () => ({ isGPUPackage: true, isUsingGpuDevice: ${JSON.stringify(gpu)} }) };
`;
}
