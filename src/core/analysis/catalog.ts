// Every rule's stable code, name, default severity and documentation link. The list is
// the one place a code is declared: `RuleCode` is derived from it, so a new rule's entry
// here is all the type system needs. (types.ts re-exports these types for front ends;
// this file imports nothing, so that re-export is no cycle.)

export type Severity = 'error' | 'warning' | 'information' | 'hint';

interface Entry {
  code: `DD${number}`;
  name: string;
  severity: Severity;
  summary: string;
  /** Implemented rules run; the rest are reserved codes from ANALYZER.md. */
  implemented: boolean;
  /**
   * A more specific case of this rule, with a better message and fix: when both report on
   * the same operand, only this one is kept, and only while this one is enabled.
   */
  refines?: `DD${number}`;
  /**
   * The rule whose analysis hands this one its events (ruleApi.ts RuleEvents): it runs
   * whenever this one does, and its own findings are kept only while it is enabled too.
   */
  hearsFrom?: `DD${number}`;
  /**
   * The mistake needs a tensor or module on an accelerator: in a device world without one
   * (world.ts) nothing is there but what a hard-coded move put there, and that move fails
   * first. Such findings count only in worlds with an accelerator.
   */
  needsAccelerator?: boolean;
  /**
   * Hears the files that import the analysed one (interpreter.ts reportsIn), to report in
   * the analysed file what they show of it. Other rules hear the analysed file only: one that
   * counts or reports once per file would count the importers' code as this file's.
   */
  hearsImporters?: boolean;
  /**
   * An opt-in group: its rules are off by default and run when a selector names them
   * (the group's name, their code, a prefix, or ALL). Performance advice is opt-in, as
   * in Ruff and TorchFix: it flags ordinary, correct code (the `loss.item()` every
   * tutorial logs), and a default set that does is one users learn to ignore.
   */
  group?: RuleGroup;
}

export type RuleGroup = 'performance';

/** Each opt-in group and what it holds, for `device-doctor rule` and the docs. */
export const RULE_GROUPS: Readonly<Record<RuleGroup, string>> = {
  performance: 'speed advice about code that works: off by default; enable with extend-select = ["performance"] (or --extend-select performance)',
};

/** Whether a selector is a group's name (any case: `performance`, `PERFORMANCE`). */
export function isRuleGroup(value: string): boolean {
  return Object.prototype.hasOwnProperty.call(RULE_GROUPS, value.trim().toLowerCase());
}

export const DOCS_BASE_URL = 'https://github.com/device-doctor/device-doctor/blob/main/docs/rules/';

const CATALOG = [
  { code: 'DD001', needsAccelerator: true, hearsImporters: true, name: 'device-mismatch', severity: 'warning', implemented: true,
    summary: 'a CPU value meets a module or tensor on an accelerator' },
  { code: 'DD002', needsAccelerator: true, hearsFrom: 'DD001', name: 'batch-not-moved', severity: 'warning', implemented: true,
    summary: 'data loader batches reach a model on an accelerator without being moved' },
  { code: 'DD003', needsAccelerator: true, name: 'numpy-on-accelerator', severity: 'error', implemented: true,
    summary: '`.numpy()` / `np.array(t)` on a tensor that may be on an accelerator' },
  { code: 'DD004', name: 'discarded-to-result', severity: 'warning', implemented: true,
    summary: '`tensor.to(...)` as a statement: the moved copy is thrown away' },
  { code: 'DD005', name: 'hard-coded-accelerator', severity: 'warning', implemented: true,
    summary: 'CUDA hard-coded in a file that never checks availability (one finding per file)' },
  { code: 'DD006', needsAccelerator: true, name: 'unsynchronized-timing', severity: 'warning', implemented: true,
    summary: 'a clock read after accelerator work with no synchronize between' },
  { code: 'DD007', needsAccelerator: true, group: 'performance', name: 'sync-every-step', severity: 'information', implemented: true,
    summary: 'a host synchronization in every training step' },
  { code: 'DD008', name: 'fp16-without-gradscaler', severity: 'warning', implemented: true,
    summary: 'float16 autocast with `loss.backward()` and no `GradScaler` in the file' },
  { code: 'DD009', name: 'accumulated-graph', severity: 'warning', implemented: true,
    summary: '`total += loss` / `losses.append(loss)` across training steps: every step\'s graph is kept' },
  { code: 'DD010', name: 'numpy-requires-grad', severity: 'error', implemented: true,
    summary: '`.numpy()` on a tensor that requires grad' },
  { code: 'DD011', name: 'unguarded-cuda-call', severity: 'warning', implemented: true,
    summary: 'a `torch.cuda` call outside an availability guard' },
  { code: 'DD012', needsAccelerator: true, group: 'performance', name: 'non-blocking-without-pinned', severity: 'information', implemented: true,
    summary: '`.to(device, non_blocking=True)` on batches of a `DataLoader` without `pin_memory=True`' },
  { code: 'DD013', name: 'load-without-map-location', severity: 'warning', implemented: true,
    summary: '`torch.load` without `map_location` where the checkpoint may come from another machine or GPU; with PyTorch ≥ 2.6, a pickled model under `weights_only=True`' },
  { code: 'DD014', needsAccelerator: true, group: 'performance', name: 'data-parallel', severity: 'information', implemented: true,
    summary: '`nn.DataParallel` instead of `DistributedDataParallel`' },
  { code: 'DD015', needsAccelerator: true, refines: 'DD001', name: 'tensor-created-in-forward', severity: 'warning', implemented: true,
    summary: 'a tensor made without `device=` in a module\'s `forward` meets its inputs or parameters' },
  { code: 'DD016', needsAccelerator: true, refines: 'DD001', name: 'tensor-attribute-not-buffer', severity: 'warning', implemented: true,
    summary: 'a plain tensor attribute set in `__init__`, which `.to(device)` does not move, meets inputs or parameters' },
  { code: 'DD017', needsAccelerator: true, refines: 'DD001', name: 'loss-weight-on-cpu', severity: 'warning', implemented: true,
    summary: 'a loss built with class weights on the CPU is called with accelerator tensors' },
  { code: 'DD018', name: 'module-list-not-registered', severity: 'warning', implemented: true,
    summary: 'submodules kept in a plain list, tuple or dict, which `.to()`, `.parameters()` and `state_dict()` skip' },
  { code: 'DD019', refines: 'DD001', name: 'module-created-in-forward', severity: 'warning', implemented: true,
    summary: 'a layer built inside `forward`: new CPU weights every call, never moved, trained or put in eval mode' },
  { code: 'DD020', name: 'device-from-is-cuda', severity: 'warning', implemented: true,
    summary: '`"cuda" if x.is_cuda else "cpu"`: loses MPS and the GPU index; `x.device` keeps both' },
  { code: 'DD021', name: 'fixed-device-in-forward', severity: 'warning', implemented: true,
    summary: '`device=self.device` in `forward`, fixed at construction: wrong after a later `.to()` and in DataParallel replicas' },
  { code: 'DD022', needsAccelerator: true, name: 'optimizer-loaded-before-move', severity: 'warning', implemented: true,
    summary: '`optimizer.load_state_dict(...)` before `model.to(device)`: the restored state stays on the CPU' },
  { code: 'DD023', needsAccelerator: true, name: 'data-parallel-device-ids', severity: 'error', implemented: true,
    summary: '`nn.DataParallel` whose `device_ids` (or their default, cuda:0 first) do not start at the model\'s GPU' },
  { code: 'DD024', name: 'device-choices-disagree', severity: 'warning', implemented: true,
    summary: 'a CUDA-or-CPU device choice in a file whose other choice considers MPS: on a Mac they disagree' },
] as const satisfies readonly Entry[];

export type RuleCode = (typeof CATALOG)[number]['code'];

export interface RuleInfo extends Entry {
  code: RuleCode;
}

export const RULES: readonly RuleInfo[] = CATALOG;

const byCode = new Map(RULES.map((r) => [r.code, r]));

export function ruleInfo(code: RuleCode): RuleInfo {
  const info = byCode.get(code);
  if (!info) throw new Error(`unknown rule ${code}`);
  return info;
}

export function ruleDocsUrl(code: RuleCode): string {
  return `${DOCS_BASE_URL}${code}.md`;
}

/** Rules that run when nothing is selected: implemented, and in no opt-in group. */
export function isDefaultRule(info: RuleInfo): boolean {
  return info.implemented && !info.group;
}

/**
 * Whether a selector names the rule: `ALL`, an opt-in group's name (`performance`, any
 * case), or a prefix of its code (`DD`, `DD00`, `DD007`), as in Ruff.
 */
export function selectorMatches(selector: string, info: RuleInfo): boolean {
  const s = selector.trim();
  if (s.toUpperCase() === 'ALL') return true;
  if (isRuleGroup(s)) return info.group === s.toLowerCase();
  return s.length > 0 && info.code.startsWith(s.toUpperCase());
}

export function isRuleCode(value: string): value is RuleCode {
  return byCode.has(value as RuleCode);
}
