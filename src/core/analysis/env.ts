// A flow-sensitive environment: variable keys ("x", "self.model", "args.device") to values.
import { joinValues, UNKNOWN, Value } from './values';

export class Env {
  private dotted: number;

  constructor(private readonly vars: Map<string, Value> = new Map()) {
    this.dotted = 0;
    for (const k of vars.keys()) if (k.includes('.')) this.dotted++;
  }

  get(key: string): Value | undefined {
    return this.vars.get(key);
  }

  set(key: string, v: Value): void {
    if (!this.vars.has(key) && key.includes('.')) this.dotted++;
    this.vars.set(key, v);
    // Rebinding `x` forgets what was known about `x.attr` (rare: skip the scan when no dotted keys).
    if (this.dotted === 0) return;
    const prefix = key + '.';
    for (const k of this.vars.keys()) {
      if (k.startsWith(prefix)) {
        this.vars.delete(k);
        this.dotted--;
      }
    }
  }

  has(key: string): boolean {
    return this.vars.has(key);
  }

  keys(): IterableIterator<string> {
    return this.vars.keys();
  }

  clone(): Env {
    return new Env(new Map(this.vars));
  }

  /** Both paths merge: a key bound on only one path is unknown afterwards. */
  static join(a: Env, b: Env): Env {
    const out = new Map<string, Value>();
    for (const [k, va] of a.vars) {
      const vb = b.vars.get(k);
      out.set(k, vb ? joinValues(va, vb) : UNKNOWN);
    }
    for (const k of b.vars.keys()) if (!a.vars.has(k)) out.set(k, UNKNOWN);
    return new Env(out);
  }

  static joinAll(envs: Env[]): Env {
    return envs.reduce((acc, e) => Env.join(acc, e));
  }
}
