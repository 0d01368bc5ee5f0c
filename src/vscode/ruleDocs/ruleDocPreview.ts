// A diagnostic's code link names the rule page shipped in the extension by its file URI: the
// one kind of link both the hover (which opens links without allowing commands) and the
// Problems view follow. Opened that way it is a text editor; this turns it into the Markdown
// preview, in place of the text tab. Only in an installed extension: in the Extension
// Development Host the pages are the developer's sources, opened to be edited.
import * as path from 'path';
import * as vscode from 'vscode';
import { isRuleCode } from '../../core/analysis/catalog';

export function bundledRuleDoc(extension: vscode.ExtensionContext, code: string): vscode.Uri {
  return vscode.Uri.joinPath(extension.extensionUri, 'docs', 'rules', `${code}.md`);
}

/** The rule code when `uri` is one of the bundled pages, else undefined. */
function bundledCode(extension: vscode.ExtensionContext, uri: vscode.Uri): string | undefined {
  if (uri.scheme !== 'file') return undefined;
  const dir = vscode.Uri.joinPath(extension.extensionUri, 'docs', 'rules').fsPath;
  if (path.dirname(uri.fsPath) !== dir) return undefined;
  const code = path.basename(uri.fsPath, '.md');
  return isRuleCode(code) ? code : undefined;
}

export function previewBundledRuleDocs(extension: vscode.ExtensionContext, log: vscode.LogOutputChannel): vscode.Disposable {
  if (extension.extensionMode !== vscode.ExtensionMode.Production) return new vscode.Disposable(() => undefined);
  return vscode.window.onDidChangeActiveTextEditor((editor) => {
    const uri = editor?.document.uri;
    if (!uri || bundledCode(extension, uri) === undefined) return;
    void showAsPreview(uri, log);
  });
}

async function showAsPreview(uri: vscode.Uri, log: vscode.LogOutputChannel): Promise<void> {
  try {
    await vscode.commands.executeCommand('markdown.showPreview', uri);
  } catch (error) {
    // No Markdown preview (the built-in extension disabled): the text stays open, which still answers.
    log.warn(`Markdown preview unavailable: ${error instanceof Error ? error.message : String(error)}`);
    return;
  }
  const textTabs = vscode.window.tabGroups.all.flatMap((group) => group.tabs)
    .filter((tab) => tab.input instanceof vscode.TabInputText && tab.input.uri.toString() === uri.toString());
  await vscode.window.tabGroups.close(textTabs, true);
}
