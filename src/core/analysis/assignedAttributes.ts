// The attributes a class's own methods assign (`self.actor = Actor().to(device)`), by text.
// Read from outside before any round has summarised them (`agent.actor(x)` in the first
// round), such an attribute is not yet known: it is no unknown object to guess about by its
// name, since the next round says what it is.
import type { Program } from './program';
import { selfAssignments } from './wrapperModules';

/** Per class key, `cls.attr` for each attribute `self.attr = …` of one of its methods. A program fact. */
export function classAssignedAttributes(program: Program): Set<string> {
  const out = new Set<string>();
  for (const cls of program.classes.values()) {
    for (const method of cls.methods.values()) {
      for (const [target] of selfAssignments(method)) {
        const targets = target.type === 'attribute' ? [target] : target.namedChildren;
        for (const t of targets) {
          const name = t.text.startsWith(`${method.selfName}.`) ? t.text.slice(method.selfName!.length + 1) : '';
          if (/^\w+$/.test(name)) out.add(`${cls.key}.${name}`);
        }
      }
    }
  }
  return out;
}
