// Expectation markers in fixtures: a trailing comment `# expect: DD003` (or
// `# expect: DD001(x), DD010`) on the line where a diagnostic must START. A name in
// parentheses means the finding's message must mention that variable.
import type { Finding, RuleCode } from '../../../src/core/analysis';
import { isRuleCode } from '../../../src/core/analysis';

export interface Marker {
  code: RuleCode;
  /** 0-based, like Finding ranges. */
  line: number;
  /** The variable the message must name, when the marker gives one. */
  name?: string;
}

const MARKER_COMMENT = /#\s*expect:\s*(.+?)\s*$/;
const MARKER_ITEM = /^(DD\d{3})(?:\(([^()]+)\))?$/;

/** Throws on a malformed marker: a typo in a fixture must not silently expect nothing. */
export function parseMarkers(source: string): Marker[] {
  const markers: Marker[] = [];
  source.split(/\r\n|\r|\n/).forEach((text, line) => {
    const comment = MARKER_COMMENT.exec(text);
    if (!comment) return;
    for (const item of comment[1].split(',').map((s) => s.trim())) {
      const parsed = MARKER_ITEM.exec(item);
      if (!parsed || !isRuleCode(parsed[1])) {
        throw new Error(`bad expectation marker "${item}" on line ${line + 1}`);
      }
      markers.push({ code: parsed[1], line, name: parsed[2]?.trim() });
    }
  });
  return markers;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** True when `message` names `name` as a whole word (so `x` is not found inside `max`). */
export function mentions(message: string, name: string): boolean {
  return new RegExp(`(?<![A-Za-z0-9_])${escapeRegExp(name)}(?![A-Za-z0-9_])`).test(message);
}

export function describeMarker(m: Marker): string {
  return `${m.code}${m.name ? `(${m.name})` : ''}`;
}

/**
 * Pairs findings with markers on (code, start line); returns one readable problem per
 * missing or unexpected finding, or per finding whose message does not name the variable.
 */
export function compareWithMarkers(findings: readonly Finding[], markers: readonly Marker[], lines: readonly string[]): string[] {
  const unmatched = [...findings];
  const problems: string[] = [];
  const show = (line: number) => `line ${line + 1} \`${(lines[line] ?? '').trim()}\``;
  // Named markers first, so a bare marker cannot take the finding a named one needs.
  const ordered = [...markers].sort((a, b) => Number(!!b.name) - Number(!!a.name));
  for (const marker of ordered) {
    const candidates = unmatched.filter((f) => f.code === marker.code && f.range.start.line === marker.line);
    const match = marker.name ? candidates.find((f) => mentions(f.message, marker.name!)) : candidates[0];
    if (match) {
      unmatched.splice(unmatched.indexOf(match), 1);
    } else if (candidates.length > 0) {
      unmatched.splice(unmatched.indexOf(candidates[0]), 1); // reported here, not again as unexpected
      const messages = candidates.map((f) => `"${f.message}"`).join(', ');
      problems.push(`${show(marker.line)}: ${marker.code} reported, but its message does not name \`${marker.name}\`: ${messages}`);
    } else {
      problems.push(`${show(marker.line)}: expected ${describeMarker(marker)}, not reported`);
    }
  }
  for (const f of unmatched) {
    problems.push(`${show(f.range.start.line)}: unexpected ${f.code} at ${f.range.start.line + 1}:${f.range.start.character + 1} "${f.message}"`);
  }
  return problems;
}
