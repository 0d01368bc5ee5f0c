// Notebook cells as program units. IPython syntax (`%magic`, `!shell`, `%%cell magics`)
// is not Python: it is blanked out with spaces, so every position maps 1:1 to the cell.

const NON_PYTHON_CELL_MAGICS = /^%%(bash|sh|script|html|javascript|js|latex|markdown|perl|ruby|svg|writefile|file|sql|capture\s+--no-stdout\s*$)/;

export function blankIPythonSyntax(cell: string): string {
  const lines = cell.split(/(?<=\n)/);
  if (lines.length > 0 && NON_PYTHON_CELL_MAGICS.test(lines[0].trimStart())) {
    return lines.map(blank).join('');
  }
  return lines
    .map((line) => {
      const trimmed = line.trimStart();
      if (trimmed.startsWith('%') || trimmed.startsWith('!')) return blank(line);
      // `files = !ls` assigns shell output: keep the name bound, drop the command.
      const shellAssign = /^(\s*[A-Za-z_]\w*\s*=\s*)(!.*)$/.exec(line.replace(/\r?\n$/, ''));
      if (shellAssign) return shellAssign[1] + 'None' + ' '.repeat(Math.max(0, shellAssign[2].length - 4)) + line.slice(shellAssign[0].length);
      return line;
    })
    .join('');
}

function blank(line: string): string {
  return line.replace(/[^\r\n]/g, ' ');
}
