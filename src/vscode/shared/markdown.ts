// Markdown for hovers and tooltips built from text that came from outside (device names,
// tool messages, paths): every character Markdown or VS Code's icon syntax could act on is
// escaped, and a line break cannot end a table row or a list item. No vscode import.

const MARKDOWN_SPECIAL = /[\\`*_{}[\]()#+\-.!|<>~$&]/g;

export function escapeMarkdown(text: string): string {
  return text.replace(/\s*[\r\n]+\s*/g, ' ').replace(MARKDOWN_SPECIAL, '\\$&');
}

/** A table whose cells are already escaped Markdown. */
export function markdownTable(header: string[], rows: string[][]): string {
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map((_, i) => (i === 0 ? ':--' : '--:'))), ...rows.map(line)].join('\n');
}
