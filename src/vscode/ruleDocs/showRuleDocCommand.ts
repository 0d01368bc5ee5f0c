// Device Doctor: Show Rule Documentation — the rule's page from the extension itself in the
// Markdown preview (offline), from a diagnostic's code link or from a quick pick of the rules.
import * as vscode from 'vscode';
import { RULES } from '../../core/analysis/catalog';
import { ruleDocPath } from './ruleDocLink';
import { bundledRuleDoc } from './ruleDocPreview';

export async function showRuleDoc(extension: vscode.ExtensionContext, log: vscode.LogOutputChannel, code?: unknown): Promise<void> {
  const chosen = typeof code === 'string' ? code : await pickRule();
  if (chosen === undefined) return;
  if (!ruleDocPath(chosen)) {
    void vscode.window.showWarningMessage(`Device Doctor has no rule ${String(chosen).slice(0, 20)}.`);
    return;
  }
  const page = bundledRuleDoc(extension, chosen);
  try {
    await vscode.workspace.fs.stat(page);
  } catch {
    log.error(`The rule page ${page.fsPath} is missing from the extension.`);
    void vscode.window.showErrorMessage(`The documentation of ${chosen} is missing from this installation of Device Doctor; reinstall it.`);
    return;
  }
  try {
    await vscode.commands.executeCommand('markdown.showPreview', page);
  } catch (error) {
    // The built-in Markdown extension may be disabled: the page as text still answers.
    log.warn(`Markdown preview unavailable (${error instanceof Error ? error.message : String(error)}); opening ${chosen}.md as text.`);
    await vscode.window.showTextDocument(page, { preview: true });
  }
}

async function pickRule(): Promise<string | undefined> {
  const picked = await vscode.window.showQuickPick(
    RULES.map((r) => ({ label: r.code, description: `${r.name}${r.implemented ? '' : ' (planned)'}`, detail: r.summary })),
    { title: 'Device Doctor: Show Rule Documentation', matchOnDescription: true, matchOnDetail: true },
  );
  return picked?.label;
}
