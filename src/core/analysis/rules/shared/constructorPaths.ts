// `torch.save(self.net, open(self.ckpt_path, "wb"))` in a trainer built as `Trainer(net, ckpt_file)`:
// the path the method writes is the one the construction passed. DD013 compares a load's path
// with the paths the program saves; these are the arguments behind such attributes.
import type { Node } from '../../../python/pyNode';
import { callArguments, field, unparen } from '../../../python/syntax';
import { callsNamed } from './callSites';
import type { ProgramView } from '../../ruleApi';

/** `Class.attr` when `path` is `self.attr` read in a method of a class (the instance's own attribute). */
export function instanceAttributePath(path: Node): string | undefined {
  const n = unparen(path);
  const object = n.type === 'attribute' ? field(n, 'object') : null;
  const attr = n.type === 'attribute' ? field(n, 'attribute')?.text : undefined;
  if (!object || object.type !== 'identifier' || !attr) return undefined;
  let fn: Node | null = n.parent;
  while (fn && fn.type !== 'function_definition') fn = fn.parent;
  const cls = fn?.parent?.parent?.type === 'class_definition' ? fn.parent.parent : undefined;
  const selfName = fn ? field(fn, 'parameters')?.namedChildren[0]?.text : undefined;
  const name = cls ? field(cls, 'name')?.text : undefined;
  return name && selfName === object.text ? `${name}.${attr}` : undefined;
}

/**
 * The arguments the program's constructions of `Class` pass to the `__init__` parameter that
 * `self.attr = <parameter>` keeps, for each `Class.attr` of `saved`, in the analysed file.
 */
export function argumentsKeptAs(program: ProgramView, saved: ReadonlySet<string>): Array<{ argument: Node; call: Node }> {
  const wanted = new Map<string, { position: number; name: string }>();
  for (const key of saved) {
    const [className, attr] = key.split('.') as [string, string];
    const cls = program.modules[0]?.classes.get(className);
    if (!cls) continue;
    // The `__init__` that keeps it may be a base class's (`class CNNRunner(Runner)`).
    for (const name of program.classLineage(cls.key)) {
      const init = program.classes.get(name)?.methods.get('__init__');
      if (!init?.selfName) continue;
      const kept = new RegExp(`\\b${init.selfName}\\.${attr}\\s*=\\s*([A-Za-z_]\\w*)\\s*$`, 'm').exec(init.node.text)?.[1];
      const position = init.params.findIndex((p) => p.name === kept && !p.variadic);
      if (!kept || position <= 0) continue;
      // Built as the saving class or as a subclass of it.
      for (const other of program.classes.values()) {
        if (other.module === 0 && program.classLineage(other.key).includes(cls.key)) wanted.set(other.name, { position: position - 1, name: kept });
      }
      break;
    }
  }
  const out: Array<{ argument: Node; call: Node }> = [];
  for (const [className, calls] of callsNamed(program, new Set(wanted.keys()), program.modules[0]?.units ?? [])) {
    const param = wanted.get(className)!;
    for (const call of calls) {
      const args = callArguments(call);
      const argument = args.keywords.get(param.name) ?? (args.hasSplat ? undefined : args.positional[param.position]);
      if (argument) out.push({ argument, call });
    }
  }
  return out;
}
