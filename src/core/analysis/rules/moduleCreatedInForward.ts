// DD019 module-created-in-forward: `nn.BatchNorm2d(c)(x)` (or `bn = nn.Linear(...)`, then
// `bn(x)`) inside a module's `forward` builds a new layer on every call: its weights are
// fresh random CPU tensors each time, never in `model.parameters()` (the optimizer never
// trains them), never moved by `model.to(device)` and never put in eval mode. Reported at
// the constructor; no automatic fix, since the layer's arguments often come from
// forward's own values (the message says where it belongs).
import type { Node } from '../../python/pyNode';
import { callArguments, children, field, unparen } from '../../python/syntax';
import type { FunctionInfo, Rule } from '../ruleApi';
import { shortText } from './shared/describe';
import { ruleMessage } from './shared/message';
import { bodyNodes, moduleMethodAt } from './shared/moduleCode';
import { builtModuleState } from './shared/moduleState';
import { nnModuleClass } from './shared/nnNames';

export const moduleCreatedInForward: Rule = (host) => ({
  call: (frame, call, qualified) => {
    const program = host.program;
    if (program.units[frame.unit]?.module !== 0) return;
    // A layer that holds nothing (nn.ReLU, or the program's own class with no weights and no
    // train/eval behaviour) is the same layer whether built once or per call.
    const held = builtModuleState(host, call, qualified);
    if (held === undefined || held === 'none') return;
    // A loss module without weights holds nothing; a weighted one is DD017's.
    if (/Loss$/.test(nnModuleClass(qualified) ?? '')) return;
    const at = moduleMethodAt(program, call);
    if (!at || at.fn.name !== 'forward') return;
    const use = usedInPlace(call, at.fn);
    if (!use) return;
    // `nn.Sequential(self.embed, *self.blocks, self.head)`: a container of layers `__init__`
    // registered holds no new weights; `.to()`, `parameters()` and `eval()` already reach them.
    if (at.fn.selfName && CONTAINERS.has(nnModuleClass(qualified) ?? '') && wrapsOnlyOwnLayers(call, at.fn.selfName)) return;
    const modeOnly = held === 'mode';
    // `nn.Dropout(p)(x)` with `p` forward's own argument: the caller sets the rate per call (0 to evaluate).
    if (modeOnly && rateFromParameter(call, at.fn)) return;
    const layer = shortText(call, 40);
    host.report({
      unit: frame.unit,
      code: 'DD019',
      subject: call,
      node: call,
      message: ruleMessage((q) => ({
        problem: `${q(`${(field(call, 'function') ?? call).text}(…)`)} makes a new layer each forward`,
        action: 'build it once in `__init__`',
        why: modeOnly
          ? `Each call of \`${at.cls.name}.forward\` makes a new layer, in training mode: \`model.eval()\` never reaches it, so it ` +
            `stays active during evaluation. Build it once in \`__init__\` (\`${at.fn.selfName}.<name> = ${layer}\`) and call that in forward.`
          : `Each call of \`${at.cls.name}.forward\` makes a new layer with fresh random weights on the CPU: ` +
            '`model.to(device)` never moves it (with GPU inputs: "Expected all tensors to be on the same device"), `model.parameters()` never ' +
            'includes it, so the optimizer never trains it, and `model.eval()` never reaches it. Build it once in `__init__` ' +
            `(\`${at.fn.selfName}.<name> = ${layer}\`) and call that in forward.`,
      })),
      related: use === call ? [] : host.related({ unit: frame.unit, node: use }, `the new layer is called here`),
      fixes: [],
    });
  },
});

const CONTAINERS = new Set(['Sequential', 'ModuleList']);

/** Every argument is `self.<layer>`, `*self.<layers>` or a list of those: layers the module already holds. */
function wrapsOnlyOwnLayers(ctor: Node, selfName: string): boolean {
  const argList = field(ctor, 'arguments');
  const items = argList?.type === 'argument_list' ? children(argList) : [];
  const own = (n: Node | null | undefined): boolean => {
    if (!n) return false;
    const e = unparen(n);
    if (e.type === 'list_splat') return own(children(e)[0]);
    if (e.type === 'list' || e.type === 'tuple') return children(e).every(own);
    if (e.type === 'subscript') return own(field(e, 'value'));
    if (e.type !== 'attribute') return false;
    let root: Node | null = e;
    while (root?.type === 'attribute') root = field(root, 'object');
    return root?.type === 'identifier' && root.text === selfName;
  };
  return items.length > 0 && items.every(own);
}

/** The rate (`p`, first positional) is one of forward's parameters. */
function rateFromParameter(ctor: Node, fn: FunctionInfo): boolean {
  const args = callArguments(ctor);
  const rate = args.keywords.get('p') ?? args.positional[0];
  const name = rate && unparen(rate);
  return !!name && name.type === 'identifier' && fn.params.some((p) => p.name === name.text);
}

/**
 * The call that runs the layer in this forward: `nn.X(...)(x)` itself, or `name(x)` after
 * `name = nn.X(...)`. A layer stored on self (lazy building) or handed elsewhere is not this rule's.
 */
function usedInPlace(ctor: Node, fn: FunctionInfo): Node | undefined {
  const parent = ctor.parent;
  if (parent?.type === 'call' && field(parent, 'function')?.id === ctor.id) return ctor;
  if (parent?.type !== 'assignment' || field(parent, 'right')?.id !== ctor.id) return undefined;
  const target = unparen(field(parent, 'left') ?? parent);
  if (target.type !== 'identifier') return undefined;
  for (const n of bodyNodes(fn.body)) {
    if (n.type !== 'call' || n.startIndex < parent.endIndex) continue;
    const callee = field(n, 'function');
    if (callee?.type === 'identifier' && callee.text === target.text) return n;
  }
  return undefined;
}
