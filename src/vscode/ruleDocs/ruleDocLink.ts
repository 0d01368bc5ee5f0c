// The diagnostics' code links, in the editor: the server links each code to the public page
// (right for SARIF, JSON and other LSP editors), and the client replaces that link with a
// command that opens the page shipped in the extension (docs/rules/) in the Markdown preview,
// so it works on an offline GPU node. No vscode import: the link text is tested as a string.
import { isRuleCode } from '../../core/analysis/catalog';
import { COMMANDS } from '../shared/commandIds';

/** `command:deviceDoctor.showRuleDocumentation?["DD003"]`, encoded as VS Code's command links want. */
export function ruleDocCommandLink(code: string): string {
  return `command:${COMMANDS.showRuleDoc}?${encodeURIComponent(JSON.stringify([code]))}`;
}

/** The rule code a diagnostic's code names, when it is one of ours. */
export function ownRuleCode(code: unknown): string | undefined {
  const value = typeof code === 'object' && code !== null && 'value' in code ? (code as { value: unknown }).value : code;
  return typeof value === 'string' && isRuleCode(value) ? value : undefined;
}

/** The bundled page's path inside the extension, for a known code only (a code never becomes a path otherwise). */
export function ruleDocPath(code: string): string[] | undefined {
  return isRuleCode(code) ? ['docs', 'rules', `${code}.md`] : undefined;
}
