// Where "Install Native TensorFlow Backend" puts each package's node_modules, in one place: the
// benchmark passes it to the worker's engines, and detect to its TensorFlow.js GPU probe.
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';

/** The packages' own folders under it: npm ci installs exactly one lockfile's tree per folder. */
const PACKAGE_FOLDERS = ['tfjs-node', 'tfjs-node-gpu'];

export function nativeTfFolder(extension: vscode.ExtensionContext): string {
  return vscode.Uri.joinPath(extension.globalStorageUri, 'native').fsPath;
}

/** The manifests and lockfiles shipped with the extension (media/nativeTf/<package>/). */
export function nativeTfLockDir(extension: vscode.ExtensionContext): string {
  return vscode.Uri.joinPath(extension.extensionUri, 'media', 'nativeTf').fsPath;
}

/** The worker's nativeSearchPaths: each package folder an install made (Node also looks in their parent's node_modules). */
export function nativeSearchPaths(folder: string): string[] {
  return PACKAGE_FOLDERS.map((name) => path.join(folder, name)).filter((dir) => fs.existsSync(dir));
}
