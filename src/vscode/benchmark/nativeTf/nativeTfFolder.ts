// Where "Install Native TensorFlow Backend" puts npm's node_modules, in one place: the
// benchmark passes it to the worker's engines, and detect to its TensorFlow.js GPU probe.
import * as fs from 'fs';
import * as vscode from 'vscode';

export function nativeTfFolder(extension: vscode.ExtensionContext): string {
  return vscode.Uri.joinPath(extension.globalStorageUri, 'native').fsPath;
}

/** The worker's nativeSearchPaths: the folder once an install made it, else none. */
export function nativeSearchPaths(folder: string): string[] {
  return fs.existsSync(folder) ? [folder] : [];
}
