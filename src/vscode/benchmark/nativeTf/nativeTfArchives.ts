// What Install Native TensorFlow Backend downloads besides npm packages, pinned by SHA-256. npm
// installs the package tree from the lockfile shipped in media/nativeTf/ (integrity-checked by
// npm ci) with --ignore-scripts, so tfjs-node's own install script, which fetches these archives
// unchecked from wherever TFJS_*/CDN_STORAGE variables point, never runs: Device Doctor fetches
// them itself from the fixed URLs below and refuses any whose hash differs. An archive without a
// known hash is never installed. No vscode import: tested as a table.

export type NativeTfPackage = '@tensorflow/tfjs-node' | '@tensorflow/tfjs-node-gpu';

/** tfjs-node 4.22.0's scripts/deps-constants.js LIBTENSORFLOW_VERSION. */
const LIBTENSORFLOW_VERSION = '2.9.1';
/** node-pre-gyp picks napi-v8, the highest of tfjs-node's napi_versions, on every Node VS Code ships. */
const NAPI_DIR = 'napi-v8';
const TFJS_VERSION = '4.22.0';

export interface PinnedArchive {
  /** In words, for the confirmation and errors. */
  what: string;
  url: string;
  /** Lower-case hex SHA-256; null: no checksum we could trust is published, so it is never installed. */
  sha256: string | null;
  /** The folder of the installed package it is unpacked into, and how many leading path parts are dropped (as tfjs-node's installer does). */
  into: string;
  strip: number;
}

const LIBTENSORFLOW_BASE = 'https://storage.googleapis.com/tensorflow/libtensorflow/';

/**
 * libtensorflow as tfjs-node 4.22.0's scripts/install.js names it. The hashes are the ones other
 * projects pin for the same URLs, where two or more agree: Bazel http_archive in wamuir/graft
 * (third_party/org_tensorflow), nixpkgs' mjolnir and nextcloud-recognize fetchurl, and a CMake
 * FetchContent URL_HASH. gpu-linux is pinned by graft alone, whose Bazel build checks it.
 */
const LIBTENSORFLOW: Readonly<Record<string, { file: string; sha256: string }>> = {
  'cpu-linux-x64': { file: `libtensorflow-cpu-linux-x86_64-${LIBTENSORFLOW_VERSION}.tar.gz`, sha256: '7f510d2546e3db5e10b1d119463689003d587842892ad3c95bca51cf82820173' },
  'gpu-linux-x64': { file: `libtensorflow-gpu-linux-x86_64-${LIBTENSORFLOW_VERSION}.tar.gz`, sha256: '20c46f761d5905f592c4eac0812e8e50d9cb439f9440a9391912cf4c02ed8be8' },
  'cpu-darwin-x64': { file: `libtensorflow-cpu-darwin-x86_64-${LIBTENSORFLOW_VERSION}.tar.gz`, sha256: '56f83d3320ba0f69aaafd6c058645e1b7fbc75fb9a3fc36d6be98de1291ca226' },
};

/**
 * The prebuilt tfjs_binding.node that node-pre-gyp would fetch (package.json "binary": host,
 * remote_path, and the CPU-/GPU-<platform>-<version>.tar.gz name install.js sets). No checksum
 * is published for it anywhere we could find (not by TensorFlow, nor pinned by another project),
 * so it is listed with none and the install refuses: see planNativeInstall.
 */
function bindingArchive(pkg: NativeTfPackage, platform: NodeJS.Platform): PinnedArchive {
  const kind = pkg === '@tensorflow/tfjs-node-gpu' ? 'GPU' : 'CPU';
  return {
    what: `the prebuilt TensorFlow.js binding (${kind}-${platform}-${TFJS_VERSION}.tar.gz)`,
    url: `https://storage.googleapis.com/tf-builds/pre-built-binary/${NAPI_DIR}/${TFJS_VERSION}/${kind}-${platform}-${TFJS_VERSION}.tar.gz`,
    sha256: null,
    into: `lib/${NAPI_DIR}`,
    strip: 1,
  };
}

export type InstallPlan =
  | { kind: 'ready'; archives: PinnedArchive[] }
  | { kind: 'refused'; message: string; archives: PinnedArchive[] };

const NOTHING_NEEDED = 'The wasm and js engines need nothing installed.';

/** The archives this package needs here, or why Device Doctor will not install it. */
export function planNativeInstall(pkg: NativeTfPackage, platform: NodeJS.Platform, arch: string): InstallPlan {
  const lib = LIBTENSORFLOW[`${pkg === '@tensorflow/tfjs-node-gpu' ? 'gpu' : 'cpu'}-${platform}-${arch}`];
  if (!lib) return { kind: 'refused', archives: [], message: `Device Doctor cannot install ${pkg} on ${platform}-${arch}: it has no pinned TensorFlow library for it. ${NOTHING_NEEDED}` };
  const archives: PinnedArchive[] = [
    { what: `TensorFlow's C library ${LIBTENSORFLOW_VERSION} (${lib.file})`, url: `${LIBTENSORFLOW_BASE}${lib.file}`, sha256: lib.sha256, into: 'deps', strip: 0 },
    bindingArchive(pkg, platform),
  ];
  const unverified = archives.filter((a) => a.sha256 === null);
  if (unverified.length === 0) return { kind: 'ready', archives };
  const names = unverified.map((a) => `${a.what} from ${a.url}`).join('; ');
  return {
    kind: 'refused',
    archives,
    message: `Device Doctor will not install ${pkg}: no published checksum exists for ${names}, so the download could not be verified, and native code that cannot be verified is not installed. ${NOTHING_NEEDED}`,
  };
}
