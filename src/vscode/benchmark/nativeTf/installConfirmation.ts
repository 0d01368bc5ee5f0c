// What Install Native TensorFlow Backend asks before it downloads anything: a trusted workspace,
// then a modal confirmation that names every download and where it comes from. Pure text, tested
// without the editor.
import * as fs from 'fs';
import * as path from 'path';
import type { NativeTfPackage } from './installNativeTfNpm';
import { NATIVE_TF_INSTALL_VERSION, packageFolderName } from './installNativeTfNpm';
import type { PinnedArchive } from './nativeTfArchives';

export const UNTRUSTED_MESSAGE =
  'Install Native TensorFlow Backend needs a trusted workspace: it downloads native code (TensorFlow) that the benchmark then loads. Trust this folder first, or run the command in a window you trust.';
export const MANAGE_TRUST_ACTION = 'Manage Workspace Trust';
export const INSTALL_ACTION = 'Download and Install';

/** How many packages the shipped lockfile pins (its "packages" less the root project). */
export function lockedPackageCount(lockDir: string, pkg: NativeTfPackage): number {
  const lock = JSON.parse(fs.readFileSync(path.join(lockDir, packageFolderName(pkg), 'package-lock.json'), 'utf8')) as { packages?: Record<string, unknown> };
  return Object.keys(lock.packages ?? {}).filter((key) => key !== '').length;
}

export interface ConfirmationFacts {
  pkg: NativeTfPackage;
  /** Where it is installed (the extension's global storage). */
  prefix: string;
  /** From the shipped lockfile. */
  packageCount: number;
  archives: readonly PinnedArchive[];
}

/** The modal's message and detail: every source named, with how each download is checked. */
export function installConfirmation(facts: ConfirmationFacts): { message: string; detail: string } {
  const lines = [
    `Device Doctor will download and install, into ${facts.prefix}:`,
    `• ${facts.pkg} ${NATIVE_TF_INSTALL_VERSION} and its dependencies, ${facts.packageCount} npm packages in all, from the npm registry (registry.npmjs.org unless your npm configuration names another), each checked by npm against the SHA-512 in the lockfile shipped with Device Doctor; no package's install script runs.`,
    ...facts.archives.map((a) => `• ${a.what} from ${a.url}, checked against its pinned SHA-256 ${a.sha256 ?? '(none: refused)'}.`),
    '',
    'This is native code: the benchmark worker loads it into its process. Nothing from this workspace is used.',
  ];
  return { message: `Download and install ${facts.pkg} ${NATIVE_TF_INSTALL_VERSION}?`, detail: lines.join('\n') };
}
