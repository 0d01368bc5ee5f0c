// `DistributedDataParallel(model, device_ids=[rank])` of a model still on the CPU: DDP
// refuses it when it is built ("device_ids ... only work with single-device/multiple-device
// GPU modules or CPU modules, but got device_ids [0] ... and module parameters
// {device(type='cpu')}"). A model that is moved before the wrap, or wrapped without
// device_ids (CPU training over gloo), is fine.
import type { Node } from '../../../python/pyNode';
import { callArguments, dottedKey, unparen } from '../../../python/syntax';
import type { RuleFrame as Frame } from '../../ruleApi';
import { isExactlyCpu, Value } from '../../values';

const DDP = /^torch\.nn\.parallel\.(distributed\.)?DistributedDataParallel$/;

export interface CpuModelWrapped {
  model: Node;
  value: Value;
  /** The first device id's text (`rank`, `self.local_rank`): where the model must be. */
  deviceId: Node;
}

export function cpuModelGivenDeviceIds(frame: Frame, call: Node, qualified: string | undefined): CpuModelWrapped | undefined {
  if (!qualified || !DDP.test(qualified)) return undefined;
  const args = callArguments(call);
  const model = args.positional[0] ?? args.keywords.get('module');
  const ids = args.keywords.get('device_ids') ?? args.positional[1];
  const first = ids && (unparen(ids).type === 'list' || unparen(ids).type === 'tuple') ? unparen(ids).namedChildren[0] : undefined;
  if (!model || !first) return undefined;
  const key = dottedKey(unparen(model));
  const value = key ? frame.env.get(key) ?? frame.outer?.get(key) : undefined;
  if (!value || value.kind !== 'module' || value.placeless || value.param || !isExactlyCpu(value.place)) return undefined;
  return { model, value, deviceId: first };
}
