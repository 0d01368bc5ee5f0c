// Minimal text edits for the rules' fixes. Each keeps formatting and leaves valid Python.
import type { Node } from '../python/pyNode';
import { children, field } from '../python/syntax';
import type { Position, TextEdit } from './types';

const PRIMARY = new Set(['identifier', 'attribute', 'call', 'subscript', 'parenthesized_expression']);

function at(node: Node, end: boolean): Position {
  const p = end ? node.endPosition : node.startPosition;
  return { line: p.row, character: p.column };
}

export function insertAt(pos: Position, text: string, unit: number): TextEdit {
  return { range: { start: pos, end: pos }, newText: text, cellIndex: unit };
}

/** `torch.randn(4, 10)` → `torch.randn(4, 10, device=device)`. */
export function addDeviceKeyword(call: Node, deviceText: string, unit: number): TextEdit[] | undefined {
  const args = field(call, 'arguments');
  if (!args || args.type !== 'argument_list') return undefined;
  const items = children(args);
  if (items.length === 0) {
    return [insertAt({ line: args.startPosition.row, character: args.startPosition.column + 1 }, `device=${deviceText}`, unit)];
  }
  return [insertAt(at(items[items.length - 1], true), `, device=${deviceText}`, unit)];
}

/** `x` → `x.to(device)` at a use; wraps in parentheses when needed. */
export function appendMove(node: Node, deviceText: string, unit: number): TextEdit[] {
  if (PRIMARY.has(node.type)) return [insertAt(at(node, true), `.to(${deviceText})`, unit)];
  return [insertAt(at(node, false), '(', unit), insertAt(at(node, true), `).to(${deviceText})`, unit)];
}

/** Inserts text right after an expression (`t` + `.cpu()` before `.numpy()`). */
/** How the result of appendAfter reads, for a fix's title: `shown` stands for the node's text (shortened). */
export function appendedText(node: Node, shown: string, text: string): string {
  return PRIMARY.has(node.type) ? `${shown}${text}` : `(${shown})${text}`;
}

export function appendAfter(node: Node, text: string, unit: number): TextEdit[] {
  if (PRIMARY.has(node.type)) return [insertAt(at(node, true), text, unit)];
  return [insertAt(at(node, false), '(', unit), insertAt(at(node, true), `)${text}`, unit)];
}

/** `losses` → `[t.cpu() for t in losses]`: each element converted (a comprehension's name never leaks). */
export function mapElements(node: Node, suffix: string, unit: number): TextEdit[] {
  return [insertAt(at(node, false), '[t' + suffix + ' for t in ', unit), insertAt(at(node, true), ']', unit)];
}

/** A statement inserted as the first line of a block, at the block's indentation. */
export function insertFirstInBlock(block: Node, statements: string[], lines: string[], eol: string, unit: number): TextEdit | undefined {
  const first = children(block)[0];
  if (!first) return undefined;
  const header = block.parent;
  if (header && header.startPosition.row === first.startPosition.row) return undefined; // `for x in l: f(x)`
  const lineText = lines[first.startPosition.row] ?? '';
  const indent = lineText.slice(0, first.startPosition.column);
  if (!/^[ \t]*$/.test(indent)) return undefined;
  return insertAt({ line: first.startPosition.row, character: 0 }, statements.map((s) => `${indent}${s}${eol}`).join(''), unit);
}

export function startOf(node: Node): Position {
  return at(node, false);
}
