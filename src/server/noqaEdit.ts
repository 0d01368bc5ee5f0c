// "Ignore DDxxx on this line": the edit that adds a code to the line's `# noqa` comment,
// written the way flake8 and Ruff read it. Idempotent: no edit when already suppressed.
import type { TextEdit } from 'vscode-languageserver';

interface LineScan {
  /** Index of the `#` that starts the comment, if any. */
  commentStart?: number;
  /** The line ends inside a string: a comment cannot be appended. */
  insideString: boolean;
}

function closingQuoteLength(text: string, i: number, quote: string): number {
  return text.startsWith(quote, i) ? quote.length : 0;
}

/** Finds the comment outside string literals on one physical line. */
function scanLine(text: string): LineScan {
  let quote: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quote !== undefined) {
      if (ch === '\\') i++;
      else if (closingQuoteLength(text, i, quote) > 0) {
        i += quote.length - 1;
        quote = undefined;
      }
    } else if (ch === '#') {
      return { commentStart: i, insideString: false };
    } else if (ch === '"' || ch === "'") {
      quote = text.startsWith(ch.repeat(3), i) ? ch.repeat(3) : ch;
      i += quote.length - 1;
    }
  }
  return { insideString: quote !== undefined };
}

const NOQA = /#\s*noqa(?::[ \t]*([A-Za-z]+[0-9]+(?:[ \t]*,?[ \t]*[A-Za-z]+[0-9]+)*))?/i;

interface NoqaComment {
  /** Codes listed after `noqa:`; empty for a bare `# noqa`. */
  codes: string[];
  /** Index just after the last listed code. */
  codesEnd: number;
}

function findNoqa(text: string, commentStart: number): NoqaComment | undefined {
  const match = NOQA.exec(text.slice(commentStart));
  if (!match) return undefined;
  const list = match[1];
  if (list === undefined) return { codes: [], codesEnd: -1 };
  const codes = list.split(/[\s,]+/).filter((c) => c.length > 0).map((c) => c.toUpperCase());
  return { codes, codesEnd: commentStart + match.index + match[0].length };
}

function insertAt(line: number, character: number, newText: string): TextEdit {
  const position = { line, character };
  return { range: { start: position, end: position }, newText };
}

/**
 * The edit that suppresses `code` on `line` (whose text is `lineText`, without its line
 * break), or undefined when it is already suppressed or no comment can go there.
 */
export function noqaEdit(lineText: string, line: number, code: string): TextEdit | undefined {
  const scan = scanLine(lineText);
  if (scan.insideString) return undefined;
  if (scan.commentStart !== undefined) {
    const noqa = findNoqa(lineText, scan.commentStart);
    if (noqa && (noqa.codes.length === 0 || noqa.codes.includes(code.toUpperCase()))) return undefined;
    if (noqa) return insertAt(line, noqa.codesEnd, `, ${code}`);
    return appendComment(lineText, line, code);
  }
  const content = lineText.trimEnd();
  // A comment after a backslash continuation would be a syntax error.
  if (content.trim().length === 0 || content.endsWith('\\')) return undefined;
  return appendComment(lineText, line, code);
}

/** Replaces trailing whitespace with the comment, so the line keeps no trailing blanks. */
function appendComment(lineText: string, line: number, code: string): TextEdit {
  const contentEnd = lineText.trimEnd().length;
  return {
    range: { start: { line, character: contentEnd }, end: { line, character: lineText.length } },
    newText: `  # noqa: ${code}`,
  };
}
