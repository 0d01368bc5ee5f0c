// DD005 hard-coded-accelerator: `.cuda()`, `torch.device("cuda")`, `device="cuda"`,
// `.to("cuda")` in a file that never asks whether CUDA is there and takes no device from
// configuration: it stops on every machine without an NVIDIA GPU. Files that are CUDA code
// by design (triton, set_device in a DDP launcher, NCCL) stay silent.
import type { Node } from '../../python/pyNode';
import { callArguments, children, field, stringLiteralValue } from '../../python/syntax';
import type { RuleFrame as Frame } from '../ruleApi';
import type { Rule, RuleHost } from '../ruleApi';
import type { Fix, TextEdit } from '../types';
import { shortText } from './shared/describe';
import { inGpuOnlyTest } from './shared/gpuOnlyTest';

const CUDA_STRING = /^cuda(:\d+)?$/;

/** What in the call hard-codes CUDA: the `.cuda` method, or a "cuda" literal given as a device. */
type Hardcode = { kind: 'method'; attr: Node } | { kind: 'literal'; literal: Node; deviceCall: boolean };

export const hardCodedAccelerator: Rule = (host) => ({
  call: (frame, call, qualified) => {
    const found = hardcodeIn(call, qualified);
    if (!found) return;
    const choice = host.deviceChoice();
    if (choice.runTimeChoice || choice.cudaOnly || inGpuOnlyTest(call) || underDeviceCondition(call)) return;
    if (feedsCollective(host, frame, call)) return;
    report(host, frame, call, found);
  },
});

/** torch.distributed's collectives: with NCCL, the backend of GPU training, every tensor they get must be on CUDA. */
const COLLECTIVE = /^torch\.distributed\.(broadcast|all_reduce|all_gather|all_gather_into_tensor|reduce|reduce_scatter|reduce_scatter_tensor|gather|scatter|all_to_all|all_to_all_single|send|recv|isend|irecv)$/;

/**
 * A function that also calls a collective (`torch.distributed.broadcast(order)` after
 * `order = torch.randperm(n).cuda()`) shares tensors between GPU processes: CUDA is
 * what the NCCL backend requires there, not a portability slip.
 */
function feedsCollective(host: RuleHost, frame: Frame, call: Node): boolean {
  if (!frame.fn) return false;
  const imports = host.program.importsAt(frame.unit);
  const stack: Node[] = [frame.fn.body];
  while (stack.length) {
    const n = stack.pop()!;
    const callee = n.type === 'call' ? field(n, 'function') : null;
    if (callee && n.id !== call.id && COLLECTIVE.test(imports.qualify(callee) ?? '')) return true;
    stack.push(...children(n));
  }
  return false;
}

/** A condition that asks about the GPU or the device option: `if self.gpus > 0:`, `if args.cuda:`, `x if use_cuda else y`. */
const DEVICE_CONDITION = /\b\w*(cuda|gpus?|device|accelerator)\w*\b/i;

/** In the branch taken when such a condition holds: the code chooses CUDA at run time there. */
function underDeviceCondition(node: Node): boolean {
  for (let child = node, n = node.parent; n; child = n, n = n.parent) {
    if (n.type === 'function_definition' || n.type === 'class_definition') return false;
    const condition = n.type === 'if_statement' || n.type === 'elif_clause' || n.type === 'conditional_expression'
      ? (n.type === 'conditional_expression' ? children(n)[1] : field(n, 'condition')) : null;
    if (condition && condition.id !== child.id && DEVICE_CONDITION.test(condition.text)) return true;
  }
  return false;
}

function isCudaLiteral(node: Node | undefined): node is Node {
  const s = node ? stringLiteralValue(node) : undefined;
  return s !== undefined && CUDA_STRING.test(s);
}

function hardcodeIn(call: Node, qualified: string | undefined): Hardcode | undefined {
  const callee = field(call, 'function');
  if (!callee) return undefined;
  const args = callArguments(call);
  const keyword = args.keywords.get('device');
  if (isCudaLiteral(keyword)) return { kind: 'literal', literal: keyword, deviceCall: false };
  if (qualified === 'torch.device') return isCudaLiteral(args.positional[0]) ? { kind: 'literal', literal: args.positional[0], deviceCall: true } : undefined;
  const attr = callee.type === 'attribute' ? field(callee, 'attribute') : null;
  if (!attr || qualified?.startsWith('torch')) return undefined;
  if (attr.text === 'cuda') return { kind: 'method', attr };
  if (attr.text === 'to' && isCudaLiteral(args.positional[0])) return { kind: 'literal', literal: args.positional[0], deviceCall: false };
  return undefined;
}

function report(host: RuleHost, frame: Frame, call: Node, found: Hardcode): void {
  const what = found.kind === 'method' ? `\`${shortText(call)}\`` : `\`${found.literal.text}\``;
  host.report({
    unit: frame.unit,
    code: 'DD005',
    node: found.kind === 'method' ? call : found.literal,
    startNode: found.kind === 'method' ? found.attr : undefined,
    message: `${what} hard-codes CUDA, and this file never checks whether it is there (no torch.cuda.is_available(), ` +
      'no device option): on a machine without an NVIDIA GPU it stops with "Torch not compiled with CUDA enabled". ' +
      'Choose the device at run time.',
    related: [],
    fixes: fixesFor(host, frame, call, found),
  });
}

/**
 * The name torch is bound to in this unit (`torch`, or `t` for `import torch as t`), and
 * the edit that imports it when only a submodule is (`import torch.nn as nn`).
 */
function torchBinding(host: RuleHost, unit: number): { name: string; edits: TextEdit[] } | undefined {
  const imports = host.program.importsAt(unit);
  const names = [...imports.names()];
  for (const name of names) if (imports.qualifyName(name) === 'torch') return { name, edits: [] };
  if (names.includes('torch')) return undefined; // `torch` is something else here
  for (const u of host.program.modules[0].units) {
    if (u.index > unit) break;
    const first = children(u.root).find(importsTorch);
    if (!first) continue;
    if (first.startPosition.column !== 0) return undefined;
    const at = { line: first.startPosition.row, character: 0 };
    return { name: 'torch', edits: [{ range: { start: at, end: at }, newText: `import torch${u.eol}`, cellIndex: u.index }] };
  }
  return undefined;
}

function replace(node: Node, text: string, unit: number, from: Node = node): TextEdit {
  return {
    range: { start: { line: from.startPosition.row, character: from.startPosition.column }, end: { line: node.endPosition.row, character: node.endPosition.column } },
    newText: text,
    cellIndex: unit,
  };
}

/**
 * `.cuda()`, `.cuda(non_blocking=True)`, `.cuda(0)` as `.to(<device>, …)`: the device
 * literal `.to` takes and the arguments kept; none when the GPU comes from a variable.
 */
function methodAsTo(call: Node): { literal: string; rest: string[] } | undefined {
  const args = callArguments(call);
  if (args.hasSplat || args.positional.length > 1 || [...args.keywords.keys()].some((k) => k !== 'non_blocking' && k !== 'memory_format')) return undefined;
  const index = args.positional[0];
  if (index && !/^\d+$/.test(index.text)) return undefined;
  const rest = [...args.keywords].map(([k, v]) => `${k}=${v.text}`);
  return { literal: index ? `"cuda:${index.text}"` : '"cuda"', rest };
}

function fixesFor(host: RuleHost, frame: Frame, call: Node, found: Hardcode): Fix[] {
  const torch = torchBinding(host, frame.unit);
  if (!torch) return [];
  const chosen = (literal: string) => `${literal} if ${torch.name}.cuda.is_available() else "cpu"`;
  const fixes: Fix[] = [];
  const asTo = found.kind === 'method' ? methodAsTo(call) : undefined;
  const toCall = (device: string) => `to(${[device, ...(asTo?.rest ?? [])].join(', ')})`;
  if (found.kind === 'method' && asTo) {
    fixes.push({ title: `Use .to(${chosen(asTo.literal)})`, edits: [...torch.edits, replace(call, toCall(chosen(asTo.literal)), frame.unit, found.attr)], preferred: true });
  } else if (found.kind === 'literal') {
    fixes.push({ title: `Choose the device at run time: ${shortText(found.literal)} if torch.cuda.is_available() else "cpu"`, edits: [...torch.edits, replace(found.literal, chosen(found.literal.text), frame.unit)], preferred: true });
  }
  const helper = helperEdits(host, frame, torch.name);
  if (helper) {
    const use = found.kind === 'method' ? (asTo ? replace(call, toCall('get_device()'), frame.unit, found.attr) : undefined)
      : replace(found.deviceCall ? call : found.literal, 'get_device()', frame.unit);
    if (use) fixes.push({ title: 'Insert a get_device() helper (CUDA, then MPS, then the CPU) and use it', edits: [...torch.edits, ...helper, use], preferred: fixes.length === 0 });
  }
  return fixes;
}

/** The helper, inserted after the imports of the unit that imports torch (none when one is defined already). */
function helperEdits(host: RuleHost, frame: Frame, torch: string): TextEdit[] | undefined {
  if (host.program.topFunctions.has('get_device')) return [];
  const unit = host.program.modules[0].units.find((u) => children(u.root).some(importsTorch));
  if (!unit || unit.index > frame.unit) return undefined;
  const statements = children(unit.root);
  let last: Node | undefined;
  for (const s of statements) {
    if (s.type === 'import_statement' || s.type === 'import_from_statement') last = s;
    else if (last && s.type !== 'comment') break;
  }
  if (!last || last.startPosition.row !== last.endPosition.row) return undefined;
  const eol = unit.eol;
  const body = [
    '', '', 'def get_device():',
    '    """CUDA if present, then Apple\'s MPS (if it can allocate), else the CPU."""',
    `    if ${torch}.cuda.is_available():`, `        return ${torch}.device("cuda")`,
    `    if ${torch}.backends.mps.is_available():`, '        try:', `            ${torch}.zeros(1, device="mps")`,
    `            return ${torch}.device("mps")`, '        except RuntimeError:', '            pass', `    return ${torch}.device("cpu")`,
  ].join(eol);
  const at = { line: last.endPosition.row, character: last.endPosition.column };
  return [{ range: { start: at, end: at }, newText: body, cellIndex: unit.index }];
}

function importsTorch(s: Node): boolean {
  return (s.type === 'import_statement' || s.type === 'import_from_statement') && /\btorch\b/.test(s.text);
}
