// What every Device Doctor webview panel sets up the same way: scripts on, resources only
// from media/, the extension icon, and the page's CSP inputs (nonce, script and style URIs).
import * as vscode from 'vscode';
import { createNonce, type PageResources } from './html';

/** Scripts on, resources only from media/: for a new panel and for one restored after a reload. */
export function mediaPanelOptions(extension: vscode.ExtensionContext): vscode.WebviewOptions {
  return { enableScripts: true, localResourceRoots: [vscode.Uri.joinPath(extension.extensionUri, 'media')] };
}

/** A panel VS Code restored after a reload, set up like a new one. */
export function adoptMediaPanel(extension: vscode.ExtensionContext, panel: vscode.WebviewPanel): vscode.WebviewPanel {
  panel.webview.options = mediaPanelOptions(extension);
  panel.iconPath = vscode.Uri.joinPath(extension.extensionUri, 'media', 'icon.png');
  return panel;
}

export function createMediaPanel(
  extension: vscode.ExtensionContext,
  viewType: string,
  title: string,
  show: { viewColumn: vscode.ViewColumn; preserveFocus?: boolean },
): vscode.WebviewPanel {
  const media = vscode.Uri.joinPath(extension.extensionUri, 'media');
  const panel = vscode.window.createWebviewPanel(viewType, title, show, mediaPanelOptions(extension));
  panel.iconPath = vscode.Uri.joinPath(media, 'icon.png');
  return panel;
}

/** A fresh nonce and the webview URIs of media/<script> and media/<style>. */
export function pageResources(extension: vscode.ExtensionContext, panel: vscode.WebviewPanel, script: string, style: string): PageResources {
  const media = vscode.Uri.joinPath(extension.extensionUri, 'media');
  return {
    cspSource: panel.webview.cspSource,
    nonce: createNonce(),
    scriptUri: panel.webview.asWebviewUri(vscode.Uri.joinPath(media, script)).toString(),
    styleUri: panel.webview.asWebviewUri(vscode.Uri.joinPath(media, style)).toString(),
  };
}
