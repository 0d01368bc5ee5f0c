// HTML building blocks for the webviews: every piece of text goes through escapeHtml, so a
// device name like `<script>` stays text. No vscode import.
import { randomBytes } from 'crypto';

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(value: unknown): string {
  return String(value).replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]!);
}

/** `<tag class="…">text</tag>` with the text escaped. */
export function textElement(tag: string, text: unknown, className?: string): string {
  return `<${tag}${className ? ` class="${escapeHtml(className)}"` : ''}>${escapeHtml(text)}</${tag}>`;
}

/** A definition list of label/value rows; null values are left out. Values are escaped. */
export function facts(rows: Array<[string, unknown]>): string {
  const items = rows
    .filter(([, value]) => value !== null && value !== undefined && value !== '')
    .map(([label, value]) => `<dt>${escapeHtml(label)}</dt><dd>${escapeHtml(value)}</dd>`);
  return items.length ? `<dl>${items.join('')}</dl>` : '';
}

/** A fresh nonce for the page's one script (CSP `script-src 'nonce-…'`): 144 random bits, base64. */
export function createNonce(): string {
  return randomBytes(18).toString('base64');
}
