// DD013 load-without-map-location: `torch.load(f)` puts every tensor back on the device it
// was saved from. In a file that picks its device at run time (it checks availability, takes
// a --device option or a device parameter), the checkpoint a GPU run saved stops the same
// script on a machine without one. `map_location=` says where the tensors go. A program that
// writes its checkpoints itself reads them back where it wrote them, and stays silent.
import type { Node } from '../../python/pyNode';
import { callArguments, children, field } from '../../python/syntax';
import { insertAt } from '../fixes';
import type { RuleFrame as Frame } from '../ruleApi';
import type { Rule, RuleHost } from '../ruleApi';
import type { Fix } from '../types';
import { shortText } from './shared/describe';
import { canReference } from './shared/deviceText';
import { inGpuOnlyTest } from './shared/gpuOnlyTest';

const LOADS = new Set(['torch.load', 'torch.serialization.load']);

/** The device names a fix may write, most specific first; only ones bound to a device value qualify. */
const DEVICE_NAMES = ['device', 'DEVICE', 'dev', 'self.device', 'args.device', 'opt.device', 'cfg.device', 'config.device'];

export const loadWithoutMapLocation: Rule = (host) => ({
  call: (frame, call, qualified) => {
    if (qualified && LOADS.has(qualified)) checkLoad(host, frame, call);
  },
});

function checkLoad(host: RuleHost, frame: Frame, call: Node): void {
  const args = callArguments(call);
  // map_location is the second parameter; **kwargs may pass it.
  if (args.keywords.has('map_location') || args.positional.length >= 2 || args.hasSplat) return;
  const choice = host.deviceChoice();
  const why = choice.runTimeChoice;
  if (!why || choice.savesCheckpoints || inGpuOnlyTest(call)) return;
  const device = deviceVariable(frame);
  const target = device ?? '"cpu"';
  const fix = mapLocationFix(call, target, frame.unit);
  host.report({
    unit: frame.unit,
    code: 'DD013',
    node: call,
    startNode: field(call, 'function') ?? call,
    message: `\`${shortText(call)}\` has no map_location: it restores each tensor on the device it was saved from, and this ` +
      `code ${why}, so a checkpoint saved on a GPU fails where none is ("Attempting to deserialize object on a CUDA device ` +
      `but torch.cuda.is_available() is False"). Pass map_location=${target}.`,
    related: [],
    fixes: fix ? [fix] : [],
  });
}

/** The scope's device variable (`device = torch.device(...)`), when one is bound and can be written here. */
function deviceVariable(frame: Frame): string | undefined {
  for (const name of DEVICE_NAMES) {
    const v = frame.env.get(name) ?? frame.outer?.get(name);
    if (v?.kind === 'device' && canReference(frame, name)) return name;
  }
  return undefined;
}

/** `torch.load(path)` → `torch.load(path, map_location=device)`. */
function mapLocationFix(call: Node, target: string, unit: number): Fix | undefined {
  const list = field(call, 'arguments');
  if (!list || list.type !== 'argument_list') return undefined;
  const items = children(list);
  const last = items[items.length - 1];
  if (!last) return undefined;
  const at = { line: last.endPosition.row, character: last.endPosition.column };
  return { title: `Add map_location=${target}`, edits: [insertAt(at, `, map_location=${target}`, unit)], preferred: true };
}
