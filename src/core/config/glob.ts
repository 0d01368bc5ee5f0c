// Glob patterns for `per-file-ignores`, matched against '/'-separated relative paths.
// Supported: `**` (any number of directories), `*` and `?` (never cross a '/'),
// `[abc]` / `[a-z]` / `[!abc]` classes, `{a,b}` alternatives (not nested) and `\` escapes.
//
// Matched without regular expressions, on purpose: pyproject.toml comes with the folder,
// Restricted Mode included, and a pattern such as "*a*a*a*a*a*a*a*a*a*a*a*a*b" compiled to
// a regular expression backtracks for minutes on a long path. Here a segment is matched by
// the two-pointer wildcard algorithm (at most pattern × segment steps) and `**` by a table
// over (pattern segment, path segment) pairs, so no input costs more than a product of lengths.
// Well-kept glob libraries (picomatch, minimatch) compile to regular expressions too.

/** Longer patterns are refused: a per-file-ignores key is a path, never a kilobyte. */
export const MAX_GLOB_LENGTH = 1024;
/** `{a,b}{c,d}…` multiplies; past this many alternatives the pattern is refused. */
export const MAX_GLOB_ALTERNATIVES = 256;

type Token =
  | { kind: 'char'; ch: string }
  | { kind: 'one' }
  | { kind: 'star' }
  | { kind: 'class'; negate: boolean; singles: string[]; ranges: Array<[string, string]> };

/** A pattern item before alternatives are expanded; `slash` and `globstar` split segments later. */
type Item = Token | { kind: 'slash' } | { kind: 'doubleStar' } | { kind: 'alt'; options: Item[][] };

type Segment = { kind: 'globstar' } | { kind: 'tokens'; tokens: Token[] };

export class GlobError extends Error {}

/** Reads a `[...]` class whose '[' is at `start`; undefined when it never closes (then '[' is literal). */
function readClass(chars: string[], start: number): { token: Token; next: number } | undefined {
  let i = start + 1;
  let negate = false;
  if (chars[i] === '!' || chars[i] === '^') {
    negate = true;
    i++;
  }
  const members: string[] = [];
  // A ']' right after the opening bracket is a literal member, as in shell globs.
  if (chars[i] === ']') members.push(chars[i++]);
  for (; i < chars.length && chars[i] !== ']'; i++) members.push(chars[i]);
  if (i >= chars.length) return undefined;
  const singles: string[] = [];
  const ranges: Array<[string, string]> = [];
  for (let m = 0; m < members.length; m++) {
    if (members[m + 1] === '-' && m + 2 < members.length) {
      ranges.push([members[m], members[m + 2]]);
      m += 2;
    } else singles.push(members[m]);
  }
  return { token: { kind: 'class', negate, singles, ranges }, next: i + 1 };
}

function readItems(chars: string[], allowBraces: boolean): Item[] {
  const items: Item[] = [];
  let i = 0;
  while (i < chars.length) {
    const ch = chars[i];
    if (ch === '*' && chars[i + 1] === '*') {
      items.push({ kind: 'doubleStar' });
      i += 2;
    } else if (ch === '*') {
      items.push({ kind: 'star' });
      i++;
    } else if (ch === '?') {
      items.push({ kind: 'one' });
      i++;
    } else if (ch === '/') {
      items.push({ kind: 'slash' });
      i++;
    } else if (ch === '\\' && i + 1 < chars.length) {
      items.push({ kind: 'char', ch: chars[i + 1] });
      i += 2;
    } else if (ch === '[' && readClass(chars, i)) {
      const cls = readClass(chars, i)!;
      items.push(cls.token);
      i = cls.next;
    } else if (ch === '{' && allowBraces && chars.indexOf('}', i) > i) {
      const close = chars.indexOf('}', i);
      const options = splitOn(chars.slice(i + 1, close), ',').map((alt) => readItems(alt, false));
      items.push({ kind: 'alt', options });
      i = close + 1;
    } else {
      items.push({ kind: 'char', ch });
      i++;
    }
  }
  return items;
}

function splitOn(chars: string[], separator: string): string[][] {
  const parts: string[][] = [[]];
  for (const ch of chars) {
    if (ch === separator) parts.push([]);
    else parts[parts.length - 1].push(ch);
  }
  return parts;
}

/** Every flat item list the alternatives describe. */
function expand(items: Item[]): Item[][] {
  let flats: Item[][] = [[]];
  for (const item of items) {
    if (item.kind !== 'alt') {
      for (const flat of flats) flat.push(item);
      continue;
    }
    const next: Item[][] = [];
    for (const flat of flats) for (const option of item.options) next.push([...flat, ...option]);
    if (next.length > MAX_GLOB_ALTERNATIVES) throw new GlobError(`more than ${MAX_GLOB_ALTERNATIVES} {…} alternatives`);
    flats = next;
  }
  return flats;
}

/** A segment that is exactly `**` is a globstar; `**` beside other characters is a `*`. */
function toSegments(flat: Item[]): Segment[] {
  const segments: Segment[] = [];
  let current: Item[] = [];
  const close = () => {
    if (current.length === 1 && current[0].kind === 'doubleStar') segments.push({ kind: 'globstar' });
    else segments.push({ kind: 'tokens', tokens: current.map((it) => (it.kind === 'doubleStar' ? { kind: 'star' } : (it as Token))) });
    current = [];
  };
  for (const item of flat) {
    if (item.kind === 'slash') close();
    else current.push(item);
  }
  close();
  return segments;
}

function tokenMatches(token: Token, ch: string): boolean {
  switch (token.kind) {
    case 'char':
      return token.ch === ch;
    case 'one':
      return true;
    case 'class': {
      const member = token.singles.includes(ch) || token.ranges.some(([lo, hi]) => lo <= ch && ch <= hi);
      return member !== token.negate;
    }
    default:
      return false;
  }
}

/** Wildcard matching with backtracking to the last star only: at most tokens × chars steps. */
function matchSegment(tokens: Token[], chars: string[]): boolean {
  let t = 0;
  let c = 0;
  let starT = -1;
  let starC = 0;
  while (c < chars.length) {
    if (t < tokens.length && tokens[t].kind === 'star') {
      starT = t++;
      starC = c;
    } else if (t < tokens.length && tokenMatches(tokens[t], chars[c])) {
      t++;
      c++;
    } else if (starT >= 0) {
      t = starT + 1;
      c = ++starC;
    } else return false;
  }
  while (t < tokens.length && tokens[t].kind === 'star') t++;
  return t === tokens.length;
}

/** Pattern segments against path segments; `**` spans zero or more (one or more when last). */
function matchSegments(pattern: Segment[], path: string[][]): boolean {
  const memo = new Map<number, boolean>();
  const match = (p: number, s: number): boolean => {
    const key = p * (path.length + 1) + s;
    const known = memo.get(key);
    if (known !== undefined) return known;
    let result: boolean;
    if (p === pattern.length) result = s === path.length;
    else {
      const seg = pattern[p];
      if (seg.kind === 'globstar') {
        result = p === pattern.length - 1 ? s < path.length : match(p + 1, s) || (s < path.length && match(p, s + 1));
      } else result = s < path.length && matchSegment(seg.tokens, path[s]) && match(p + 1, s + 1);
    }
    memo.set(key, result);
    return result;
  };
  return match(0, 0);
}

export interface GlobMatcher {
  readonly pattern: string;
  /** `relativePath` uses '/' separators and has no leading './'. */
  matches(relativePath: string): boolean;
}

/** Why `pattern` cannot be used, or undefined when it can. */
export function globProblem(pattern: string): string | undefined {
  if (pattern.length > MAX_GLOB_LENGTH) return `longer than ${MAX_GLOB_LENGTH} characters`;
  try {
    expand(readItems(Array.from(pattern), true));
    return undefined;
  } catch (err) {
    if (err instanceof GlobError) return err.message;
    throw err;
  }
}

/** Whether the whole of `path` matches `pattern` (no basename rule); throws GlobError for an unusable pattern. */
export function globMatches(pattern: string, path: string): boolean {
  return compilePattern(pattern)(path);
}

function compilePattern(pattern: string): (path: string) => boolean {
  if (pattern.length > MAX_GLOB_LENGTH) throw new GlobError(`longer than ${MAX_GLOB_LENGTH} characters`);
  const alternatives = expand(readItems(Array.from(pattern), true)).map(toSegments);
  return (path) => {
    const segments = path.split('/').map((s) => Array.from(s));
    return alternatives.some((pattern) => matchSegments(pattern, segments));
  };
}

/**
 * As in Ruff, a pattern is relative to the project root; a pattern without a '/'
 * (such as `__init__.py` or `test_*.py`) also matches a file's name in any folder.
 * Throws GlobError for a pattern that is too long or has too many alternatives
 * (the configuration reader reports those before anything is matched).
 */
export function compileGlob(pattern: string): GlobMatcher {
  const normalized = pattern.replace(/^(?:\.\/)+/, '');
  const full = compilePattern(normalized);
  const matchesBasename = !normalized.includes('/');
  return {
    pattern,
    matches(relativePath: string): boolean {
      if (full(relativePath)) return true;
      if (!matchesBasename) return false;
      const slash = relativePath.lastIndexOf('/');
      return full(relativePath.slice(slash + 1));
    },
  };
}
