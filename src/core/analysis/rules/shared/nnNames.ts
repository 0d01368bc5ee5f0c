// How a unit spells torch.nn's classes, and which calls build an nn.Module: read by the
// rules about where submodules are built and kept (DD018, DD019).
import type { Node } from '../../../python/pyNode';
import { field } from '../../../python/syntax';
import type { ProgramView as Program } from '../../ruleApi';

/** `torch.nn.Linear`, `torch.nn.modules.conv.Conv2d`: a class of torch.nn (capitalised), not a function or a package. */
const NN_CLASS = /^torch\.nn\.(?:modules\.\w+\.)?([A-Z]\w*)$/;

/** torch.nn names that are not modules. */
const NOT_MODULES = new Set(['Parameter', 'UninitializedParameter', 'UninitializedBuffer', 'Buffer', 'ParameterList', 'ParameterDict', 'Module']);

/** The torch.nn module class a qualified callee names (`Linear`), or undefined. */
export function nnModuleClass(qualified: string | undefined): string | undefined {
  const m = qualified ? NN_CLASS.exec(qualified) : null;
  return m && !NOT_MODULES.has(m[1]) ? m[1] : undefined;
}

/**
 * torch.nn modules without parameters or buffers whose behaviour does not change with
 * `.train()` / `.eval()`: building one anew, or keeping it unregistered, changes nothing.
 * (Dropout and the norms are not here: `.eval()` must reach them.)
 */
const STATELESS = /^(Identity|Flatten|Unflatten|ReLU6?|RReLU|LeakyReLU|ELU|CELU|SELU|GELU|SiLU|Mish|Hardswish|Hardsigmoid|Hardtanh|Hardshrink|Softshrink|Tanhshrink|Threshold|Sigmoid|LogSigmoid|Tanh|Softplus|Softsign|Softmax|Softmax2d|LogSoftmax|Softmin|GLU|(Adaptive)?(Max|Avg)Pool[123]d|LPPool[12]d|MaxUnpool[123]d|Upsample|UpsamplingNearest2d|UpsamplingBilinear2d|PixelShuffle|PixelUnshuffle|ChannelShuffle|(Zero|Constant|Reflection|Replication|Circular)Pad[123]d|CosineSimilarity|PairwiseDistance|Fold|Unfold)$/;

/** A torch.nn module that holds parameters, buffers or a train/eval mode (any module of the program counts). */
export function buildsStatefulModule(program: Program, call: Node, qualified: string | undefined): boolean {
  const name = nnModuleClass(qualified);
  return name ? !STATELESS.test(name) : buildsModule(program, call, qualified);
}

/** Whether `call` builds an nn.Module: a torch.nn class, or a class of this program that subclasses nn.Module. */
export function buildsModule(program: Program, call: Node, qualified: string | undefined): boolean {
  if (nnModuleClass(qualified)) return true;
  const callee = field(call, 'function');
  return callee?.type === 'identifier' && !!program.classes.get(callee.text)?.isModule;
}

/**
 * The text that names torch.nn in this unit, with a trailing dot (`nn.`, `torch.nn.`,
 * `t.nn.`), or undefined when neither is bound: a fix then offers nothing rather than
 * an import it would have to guess.
 */
export function nnPrefix(program: Program, unit: number): string | undefined {
  const imports = program.importsAt(unit);
  let torch: string | undefined;
  for (const name of imports.names()) {
    const q = imports.qualifyName(name);
    if (q === 'torch.nn') return `${name}.`;
    if (q === 'torch') torch = name;
  }
  return torch ? `${torch}.nn.` : undefined;
}
