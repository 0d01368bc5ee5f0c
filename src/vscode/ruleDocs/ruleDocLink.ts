// The diagnostics' code links, in the editor: the server links each code to the public page
// (right for SARIF, JSON and other LSP editors), and the client replaces that link with the
// page shipped in the extension (docs/rules/, ruleDocPreview.ts), so it works on an offline GPU
// node. A file, not a command link: the hover opens links without allowing commands. No vscode import.
import { isRuleCode } from '../../core/analysis/catalog';

/** The rule code a diagnostic's code names, when it is one of ours. */
export function ownRuleCode(code: unknown): string | undefined {
  const value = typeof code === 'object' && code !== null && 'value' in code ? (code as { value: unknown }).value : code;
  return typeof value === 'string' && isRuleCode(value) ? value : undefined;
}

/** The bundled page's path inside the extension, for a known code only (a code never becomes a path otherwise). */
export function ruleDocPath(code: string): string[] | undefined {
  return isRuleCode(code) ? ['docs', 'rules', `${code}.md`] : undefined;
}
