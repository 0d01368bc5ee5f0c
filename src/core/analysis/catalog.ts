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
}

export const DOCS_BASE_URL = 'https://github.com/device-doctor/device-doctor/blob/main/docs/rules/';

const CATALOG = [
  { code: 'DD001', name: 'device-mismatch', severity: 'warning', implemented: true,
    summary: 'A CPU value meets a module or tensor on an accelerator.' },
  { code: 'DD002', name: 'batch-not-moved', severity: 'warning', implemented: true,
    summary: 'Batches from a data loader reach a model on an accelerator without being moved.' },
  { code: 'DD003', name: 'numpy-on-accelerator', severity: 'error', implemented: true,
    summary: '.numpy() on a tensor that may live on an accelerator.' },
  { code: 'DD004', name: 'discarded-to-result', severity: 'warning', implemented: true,
    summary: 'tensor.to(...) returns a new tensor; the statement throws it away.' },
  { code: 'DD005', name: 'hard-coded-accelerator', severity: 'warning', implemented: true,
    summary: 'CUDA hard-coded in a file that never checks availability.' },
  { code: 'DD006', name: 'unsynchronized-timing', severity: 'warning', implemented: true,
    summary: 'A clock read after accelerator work without synchronizing.' },
  { code: 'DD007', name: 'sync-every-step', severity: 'information', implemented: true,
    summary: 'A host synchronization in every training step.' },
  { code: 'DD008', name: 'fp16-without-gradscaler', severity: 'warning', implemented: true,
    summary: 'float16 autocast with backward() and no GradScaler.' },
  { code: 'DD009', name: 'accumulated-graph', severity: 'warning', implemented: true,
    summary: 'Accumulating a loss that requires grad keeps every graph alive.' },
  { code: 'DD010', name: 'numpy-requires-grad', severity: 'error', implemented: true,
    summary: '.numpy() on a tensor that requires grad.' },
  { code: 'DD011', name: 'unguarded-cuda-call', severity: 'warning', implemented: true,
    summary: 'A torch.cuda call outside an availability guard.' },
  { code: 'DD012', name: 'non-blocking-without-pinned', severity: 'information', implemented: true,
    summary: 'non_blocking=True on batches from a loader without pin_memory.' },
  { code: 'DD013', name: 'load-without-map-location', severity: 'warning', implemented: true,
    summary: 'torch.load without map_location in a file that picks its device at run time.' },
  { code: 'DD014', name: 'data-parallel', severity: 'information', implemented: true,
    summary: 'nn.DataParallel is slower than DistributedDataParallel.' },
  { code: 'DD015', name: 'tensor-created-in-forward', severity: 'warning', implemented: true,
    summary: 'A tensor created without device= inside a module method meets its inputs or parameters.' },
  { code: 'DD016', name: 'tensor-attribute-not-buffer', severity: 'warning', implemented: true,
    summary: 'A plain tensor attribute set in __init__, which module.to(device) does not move, meets inputs or parameters.' },
  { code: 'DD017', name: 'loss-weight-on-cpu', severity: 'warning', implemented: true,
    summary: 'A loss built with class weights on the CPU is called with accelerator tensors.' },
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

export function isRuleCode(value: string): value is RuleCode {
  return byCode.has(value as RuleCode);
}
