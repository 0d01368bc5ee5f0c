// Whether a class uses one of its attributes as a submodule: calls it (`self.encoder(x)`,
// `self.blocks[i](x)`), calls a method on it (`self.backbone.forward_features(x)`) or
// iterates it (`for blk in self.blocks`). An attribute whose value the analysis does not know
// (`self.encoder = build_encoder(cfg)`) follows the module's `.to()` only then: `self.ch =
// config.model.ch` is a number the class passes around, not a tensor on the module's device.
import type { ClassInfo } from './program';

const KNOWN = new WeakMap<object, Map<string, boolean>>();

export function usesAsSubmodule(cls: ClassInfo, attr: string): boolean {
  let byAttr = KNOWN.get(cls.node);
  if (!byAttr) KNOWN.set(cls.node, (byAttr = new Map()));
  let used = byAttr.get(attr);
  if (used === undefined) {
    const name = attr.replace(/[^\w]/g, '');
    used = name === attr && new RegExp(
      `\\b\\w+\\.${name}\\s*(\\(|\\[[^\\]\\n]*\\]\\s*\\(|\\.\\w+\\s*\\()|\\bin\\s+\\w+\\.${name}\\b`,
    ).test(cls.node.text);
    byAttr.set(attr, used);
  }
  return used;
}
