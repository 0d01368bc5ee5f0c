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

export interface PageResources {
  /** webview.cspSource */
  cspSource: string;
  nonce: string;
  scriptUri: string;
  styleUri: string;
}

/** Nothing by default; the nonce'd script, and styles and images from the extension only. */
export function contentSecurityPolicy(resources: PageResources): string {
  return [
    "default-src 'none'",
    `style-src ${resources.cspSource}`,
    `img-src ${resources.cspSource}`,
    `script-src 'nonce-${resources.nonce}'`,
  ].join('; ');
}

/** The document every panel shares: CSP, stylesheet, a header (title, actions, live notice), main, script. */
export function webviewPage(page: { title: string; resources: PageResources; actionsHtml: string; actionsId?: string; mainId: string; bodyHtml: string }): string {
  const { title, resources } = page;
  const nav = page.actionsId ? `<nav id="${escapeHtml(page.actionsId)}">` : '<nav>';
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${escapeHtml(contentSecurityPolicy(resources))}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${escapeHtml(resources.styleUri)}">
<title>${escapeHtml(title)}</title>
</head>
<body>
<header><h1>${escapeHtml(title)}</h1>${nav}${page.actionsHtml}</nav><p id="notice" role="status" aria-live="polite"></p></header>
<main id="${escapeHtml(page.mainId)}">${page.bodyHtml}</main>
<script nonce="${escapeHtml(resources.nonce)}" src="${escapeHtml(resources.scriptUri)}"></script>
</body>
</html>`;
}

/** A fresh nonce for the page's one script (CSP `script-src 'nonce-…'`): 144 random bits, base64. */
export function createNonce(): string {
  return randomBytes(18).toString('base64');
}
