// An attribute a module class keeps (`self.k = k`) that is only ever read as a number: an
// operand of arithmetic or of a comparison (`(self.k - 1) // 2`, `self.world_size > 1`). A
// module has neither, so the value is no submodule and moving the class changes nothing of it,
// whatever the construction passes (`NT_Xent(args.batch_size, ...)`).

/**
 * Every `.attr` read in `texts` is such an operand (with `unread`, also when there is none),
 * and the class (its text `classText`) reads none of its attributes by a computed name
 * (`getattr`, `__dict__`). A value kept and never read says nothing of what it is.
 */
export function keptOnlyAsNumber(classText: string, texts: readonly string[], attr: string, unread: boolean): boolean {
  if (/\bgetattr\s*\(|__dict__|\bvars\s*\(/.test(classText)) return false;
  let reads = 0;
  for (const text of texts) {
    const found = attributeReadsOf(text).get(attr);
    if (found === USED_AS_ITSELF) return false;
    reads += found ?? 0;
  }
  return unread || reads > 0;
}

/** An attribute read somewhere as what it is (`self.fc(x)`, `self.k.weight`), not as a number. */
const USED_AS_ITSELF = -1;

/**
 * Every `.attr` read of `text` at once, by attribute: how many are operands of arithmetic or
 * comparisons, or USED_AS_ITSELF. One pass per text: a class of a large file asks for each
 * attribute it keeps, and a scan of the whole text per attribute was a tenth of a keystroke.
 */
function attributeReadsOf(text: string): Map<string, number> {
  let found = READS_BY_TEXT.get(text);
  if (found) {
    READS_BY_TEXT.delete(text);
    READS_BY_TEXT.set(text, found);
    return found;
  }
  found = new Map();
  // `.attr` not assigned to (`.attr = v`; `.attr == v` and `.attr += v` are reads).
  for (const m of text.matchAll(/\.(\w+)\b(?!\s*(?<![=!<>+\-*/%&|^])=(?!=))/g)) {
    const attr = m[1]!;
    if (found.get(attr) === USED_AS_ITSELF) continue;
    const before = text.slice(Math.max(0, m.index! - 40), m.index!).replace(/[\w.]+$/, '');
    const after = text.slice(m.index! + m[0].length, m.index! + m[0].length + 3);
    // `self.fc(x)`, `self.k.weight`, `self.k[0]`: used as what it is, whatever stands around it.
    const asItself = /^\s*[(.[]/.test(after) || (!/([-+*/%<>]|[=!<>]=)\s*$/.test(before) && !/^\s*([-+*/%<>]|[=!]=)/.test(after));
    found.set(attr, asItself ? USED_AS_ITSELF : (found.get(attr) ?? 0) + 1);
  }
  READS_BY_TEXT.set(text, found);
  keptCharacters += text.length;
  // Each keystroke's file is a new text: keep the last few megabytes, not every version.
  for (const old of READS_BY_TEXT.keys()) {
    if (keptCharacters <= KEPT_CHARACTERS || old === text) break;
    READS_BY_TEXT.delete(old);
    keptCharacters -= old.length;
  }
  return found;
}

/** The texts read last (files, classes), most recently used last. */
const READS_BY_TEXT = new Map<string, Map<string, number>>();
const KEPT_CHARACTERS = 4_000_000;
let keptCharacters = 0;
