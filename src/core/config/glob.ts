// Glob patterns for `per-file-ignores`, matched against '/'-separated relative paths.
// Supported: `**` (any number of directories), `*` and `?` (never cross a '/'),
// `[abc]` / `[!abc]` classes, `{a,b}` alternatives (not nested) and `\` escapes.

const REGEX_SPECIAL = /[.+^$()|{}[\]\\*?]/;

function escapeChar(ch: string): string {
  return REGEX_SPECIAL.test(ch) ? `\\${ch}` : ch;
}

/** Translates a `[...]` class starting at `start`; undefined when it never closes. */
function translateClass(pattern: string, start: number): { regex: string; next: number } | undefined {
  let i = start + 1;
  let negate = false;
  if (pattern[i] === '!' || pattern[i] === '^') {
    negate = true;
    i++;
  }
  let body = '';
  // A ']' right after the opening bracket is a literal member, as in shell globs.
  if (pattern[i] === ']') {
    body += '\\]';
    i++;
  }
  for (; i < pattern.length; i++) {
    const ch = pattern[i];
    if (ch === ']') return { regex: `${negate ? '[^/' : '['}${body}]`, next: i + 1 };
    body += ch === '\\' || ch === '^' || ch === '[' ? `\\${ch}` : ch;
  }
  return undefined;
}

/** Translates `**` at `i`: a whole path segment matches zero or more directories. */
function translateDoubleStar(pattern: string, i: number): { regex: string; next: number } {
  const atSegmentStart = i === 0 || pattern[i - 1] === '/';
  const afterStars = i + 2;
  if (atSegmentStart && pattern[afterStars] === '/') return { regex: '(?:[^/]*/)*', next: afterStars + 1 };
  if (atSegmentStart && afterStars === pattern.length) return { regex: '.*', next: afterStars };
  return { regex: '[^/]*', next: afterStars };
}

function translateBraces(pattern: string, start: number): { regex: string; next: number } | undefined {
  const close = pattern.indexOf('}', start);
  if (close < 0) return undefined;
  const alternatives = pattern.slice(start + 1, close).split(',');
  return { regex: `(?:${alternatives.map((alt) => translate(alt, false)).join('|')})`, next: close + 1 };
}

function translate(pattern: string, allowBraces: boolean): string {
  let out = '';
  let i = 0;
  while (i < pattern.length) {
    const ch = pattern[i];
    let step: { regex: string; next: number } | undefined;
    if (ch === '*' && pattern[i + 1] === '*') step = translateDoubleStar(pattern, i);
    else if (ch === '*') step = { regex: '[^/]*', next: i + 1 };
    else if (ch === '?') step = { regex: '[^/]', next: i + 1 };
    else if (ch === '[') step = translateClass(pattern, i);
    else if (ch === '{' && allowBraces) step = translateBraces(pattern, i);
    else if (ch === '\\' && i + 1 < pattern.length) step = { regex: escapeChar(pattern[i + 1]), next: i + 2 };
    step ??= { regex: escapeChar(ch), next: i + 1 };
    out += step.regex;
    i = step.next;
  }
  return out;
}

/** Compiles a glob to an anchored regular expression over '/'-separated paths. */
export function globToRegExp(pattern: string): RegExp {
  return new RegExp(`^${translate(pattern, true)}$`);
}

export interface GlobMatcher {
  readonly pattern: string;
  /** `relativePath` uses '/' separators and has no leading './'. */
  matches(relativePath: string): boolean;
}

/**
 * As in Ruff, a pattern is relative to the project root; a pattern without a '/'
 * (such as `__init__.py` or `test_*.py`) also matches a file's name in any folder.
 */
export function compileGlob(pattern: string): GlobMatcher {
  const normalized = pattern.replace(/^(?:\.\/)+/, '');
  const full = globToRegExp(normalized);
  const matchesBasename = !normalized.includes('/');
  return {
    pattern,
    matches(relativePath: string): boolean {
      if (full.test(relativePath)) return true;
      if (!matchesBasename) return false;
      const slash = relativePath.lastIndexOf('/');
      return full.test(relativePath.slice(slash + 1));
    },
  };
}
