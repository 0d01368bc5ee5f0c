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
  const read = new RegExp(`\\.${attr}\\b(?!\\s*(?<![=!<>+\\-*/%&|^])=(?!=))`, 'g');
  let reads = 0;
  for (const text of texts) {
    for (const m of text.matchAll(read)) {
      const before = text.slice(Math.max(0, m.index! - 40), m.index!).replace(/[\w.]+$/, '');
      const after = text.slice(m.index! + m[0].length, m.index! + m[0].length + 3);
      // `self.fc(x)`, `self.k.weight`, `self.k[0]`: used as what it is, whatever stands around it.
      if (/^\s*[(.[]/.test(after)) return false;
      if (!/([-+*/%<>]|[=!<>]=)\s*$/.test(before) && !/^\s*([-+*/%<>]|[=!]=)/.test(after)) return false;
      reads++;
    }
  }
  return unread || reads > 0;
}
