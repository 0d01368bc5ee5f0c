// Reads the copy-paste snippets of docs/integrations/*.md, so the tests run exactly what the
// pages tell people to paste and the two cannot drift. A snippet is the first fenced code
// block after a marker line `<!-- snippet: name -->`.
import * as fs from 'fs';
import * as path from 'path';

export const INTEGRATION_DOCS = path.join(__dirname, '..', '..', 'docs', 'integrations');

/** The text of the fenced block after `<!-- snippet: name -->` in docs/integrations/`page`; throws when absent. */
export function docSnippet(page: string, name: string): string {
  const text = fs.readFileSync(path.join(INTEGRATION_DOCS, page), 'utf8');
  const marker = `<!-- snippet: ${name} -->`;
  const at = text.indexOf(marker);
  if (at < 0) throw new Error(`docs/integrations/${page} has no ${marker}`);
  const block = /^(```+|~~~+)[^\n]*\n([\s\S]*?)^\1[ \t]*$/m.exec(text.slice(at + marker.length));
  if (!block) throw new Error(`docs/integrations/${page}: no fenced code block after ${marker}`);
  return block[2];
}
