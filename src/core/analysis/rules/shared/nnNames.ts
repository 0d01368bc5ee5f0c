// How a unit spells torch.nn's classes and what an instance of one holds: read by the rules
// about where submodules are built and kept (DD018, DD019; moduleState.ts for the program's classes).
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

/** Layers without weights whose only state is the train/eval mode. */
const MODE_ONLY = /^(Dropout\d?d?|AlphaDropout|FeatureAlphaDropout)$/;

/** What an instance holds: weights or buffers, only a train/eval mode, or nothing. */
export type ModuleState = 'state' | 'mode' | 'none';

/** What an instance of the torch.nn class `className` (`Linear`) holds. */
export function torchModuleState(className: string): ModuleState {
  return STATELESS.test(className) ? 'none' : MODE_ONLY.test(className) ? 'mode' : 'state';
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
