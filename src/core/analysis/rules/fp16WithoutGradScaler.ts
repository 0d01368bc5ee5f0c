// DD008 fp16-without-gradscaler: autocast in float16 in a file that trains (calls
// `loss.backward()`) and never creates a GradScaler. float16's range is narrow: small
// gradients underflow to zero and the model silently stops learning. bfloat16 has
// float32's range and needs no scaler; the other cure is scaling the loss.
import type { Node } from '../../python/pyNode';
import { callArguments, children, dottedKey, field, stringLiteralValue, unparen } from '../../python/syntax';
import { ACCEL } from '../values';
import { NO_GRAD_CONTEXTS } from '../torchApi';
import type { RuleFrame as Frame } from '../ruleApi';
import { insertAt } from '../fixes';
import type { ProgramView, Rule, RuleHost } from '../ruleApi';
import type { Fix, TextEdit } from '../types';
import { shortText } from './shared/describe';
import { ruleMessage } from './shared/message';
import { gradScalerFix } from './shared/gradScaler';

export const fp16WithoutGradScaler: Rule = (host) => ({
  contextEntered: (frame, expr, qualified) => checkAutocast(host, frame, expr, qualified),
});

/** autocast contexts whose dtype defaults to float16 on CUDA (`torch.cuda.amp.autocast` always does). */
const AUTOCASTS = new Set(['torch.autocast', 'torch.amp.autocast', 'torch.amp.autocast_mode.autocast', 'torch.cuda.amp.autocast']);
const FLOAT16 = new Set(['torch.float16', 'torch.half']);

function checkAutocast(c: RuleHost, frame: Frame, expr: Node, qualified: string | undefined): void {
  if (!qualified || !AUTOCASTS.has(qualified) || expr.type !== 'call') return;
  const imports = c.program.importsAt(frame.unit);
  // Inference under no_grad (validation): nothing computed there is backpropagated, so there is nothing to scale.
  if (frame.noGrad > 0 || besideNoGrad(expr, (n) => imports.qualify(n))) return;
  const args = callArguments(expr);
  if (args.hasSplat || args.keywords.get('enabled')?.text === 'False') return;
  const dtype = args.keywords.get('dtype');
  let chosen: Node | undefined;
  if (dtype) {
    if (!FLOAT16.has(imports.qualify(dtype) ?? '')) return;
  } else if (qualified !== 'torch.cuda.amp.autocast') {
    // torch.autocast("cuda") is float16; "cpu" is bfloat16, and a device chosen at run time is either.
    const device = args.keywords.get('device_type') ?? args.positional[0];
    if (!device) return;
    if (stringLiteralValue(device) !== 'cuda') {
      if (!chosenAccelerator(frame, device)) return;
      chosen = device;
    }
  }
  if (!c.programFact('DD008 trains without a scaler', trainsWithoutScaler)) return;
  const torchName = torchAlias(c, frame, expr);
  const fixes: Fix[] = [];
  const bf16 = bfloat16Edit(expr, dtype, torchName, frame.unit);
  if (bf16) fixes.push({ title: 'Autocast in bfloat16 (no GradScaler needed)', edits: [bf16], preferred: true });
  const scaler = torchName ? gradScalerFix(c.program, frame, expr, torchName) : undefined;
  if (scaler) fixes.push({ title: 'Scale the loss with a GradScaler', edits: scaler, preferred: !bf16 });
  c.report({
    unit: frame.unit,
    code: 'DD008',
    node: expr,
    message: ruleMessage(() => ({
      problem: 'float16 autocast without a GradScaler',
      action: 'scale the loss with one, or use bfloat16',
      why: `${chosen ? `On a machine with a GPU, \`${shortText(chosen, 30)}\` names the GPU, where autocast defaults to float16, so ` : ''}` +
        `\`${shortText(expr, 60)}\` computes in float16 and this file calls .backward() without a GradScaler: ` +
        'gradients below float16\'s range (about 6e-8) become zero and large ones inf, so training silently stalls or diverges. ' +
        'Autocast in torch.bfloat16 (float32\'s range) or scale the loss with torch.amp.GradScaler.',
    })),
    related: [],
    fixes,
  });
}

/** `with torch.no_grad(), torch.autocast("cuda"):`: the same statement turns gradients off. */
function besideNoGrad(expr: Node, qualify: (n: Node) => string | undefined): boolean {
  let item: Node | null = expr.parent;
  while (item && item.type !== 'with_item') item = item.type === 'as_pattern' || item.type === 'parenthesized_expression' ? item.parent : null;
  const clause = item?.parent;
  if (!clause || clause.type !== 'with_clause') return false;
  return children(clause).some((other) => {
    const value = other === item ? undefined : unparen(field(other, 'value') ?? children(other)[0] ?? other);
    const callee = value?.type === 'call' ? field(value, 'function') : value;
    const q = callee ? qualify(callee) : undefined;
    return !!q && (NO_GRAD_CONTEXTS.has(q) || (q === 'torch.set_grad_enabled' && /\(\s*False\s*\)$/.test(value!.text)));
  });
}

/**
 * `device_type=str(device)` / `device.type` of a device this world puts on the accelerator
 * (`"cuda" if torch.cuda.is_available() else "cpu"`): float16 on the machines with a GPU.
 */
function chosenAccelerator(frame: Frame, node: Node): boolean {
  let n = unparen(node);
  if (n.type === 'call' && field(n, 'function')?.text === 'str') n = unparen(callArguments(n).positional[0] ?? n);
  else if (n.type === 'attribute' && field(n, 'attribute')?.text === 'type') n = unparen(field(n, 'object') ?? n);
  const key = dottedKey(n);
  const v = key ? frame.env.get(key) ?? frame.outer?.get(key) : undefined;
  return v?.kind === 'device' && v.place === ACCEL;
}

/** `loss.backward()` (a tensor's, with no positional argument), not `accelerator.backward(loss)` that scales by itself. */
const TENSOR_BACKWARD = /\.backward\(\s*(\)|retain_graph|create_graph|inputs\s*=|gradient\s*=)/;

/** How this file names the torch module (`torch`, `th`), so inserted code resolves; undefined when it does not bind it. */
function torchAlias(c: RuleHost, frame: Frame, expr: Node): string | undefined {
  const imports = c.program.importsAt(frame.unit);
  let n: Node | null = field(expr, 'function');
  while (n && n.type === 'attribute') n = field(n, 'object');
  if (n?.type === 'identifier' && imports.qualify(n) === 'torch') return n.text;
  return imports.qualifyName('torch') === 'torch' ? 'torch' : undefined;
}

/** `dtype=torch.float16` → `dtype=torch.bfloat16`; no dtype → `dtype=torch.bfloat16` added. */
function bfloat16Edit(call: Node, dtype: Node | undefined, torchName: string | undefined, unit: number): TextEdit | undefined {
  if (dtype) {
    if (dtype.type !== 'attribute') return undefined;
    const attr = field(dtype, 'attribute');
    if (!attr) return undefined;
    return { range: { start: pos(attr, false), end: pos(attr, true) }, newText: 'bfloat16', cellIndex: unit };
  }
  if (!torchName) return undefined;
  const list = field(call, 'arguments');
  const items = list ? children(list) : [];
  if (!list) return undefined;
  if (items.length === 0) return insertAt({ line: list.startPosition.row, character: list.startPosition.column + 1 }, `dtype=${torchName}.bfloat16`, unit);
  return insertAt(pos(items[items.length - 1], true), `, dtype=${torchName}.bfloat16`, unit);
}

function pos(node: Node, end: boolean) {
  const p = end ? node.endPosition : node.startPosition;
  return { line: p.row, character: p.column };
}

/**
 * The file calls `.backward()` and creates no GradScaler, in code only: a comment that
 * mentions a GradScaler creates none. Once per analysis, not per autocast block.
 */
function trainsWithoutScaler(program: ProgramView): boolean {
  const sources = program.units.filter((u) => u.module === 0).map((u) => u.source.replace(/#.*$/gm, ''));
  // `scaler.scale(loss).backward()`: a scaler the caller passes in (`def train_one_epoch(..., scaler=None)`).
  return sources.some((s) => TENSOR_BACKWARD.test(s)) && !sources.some((s) => /\bGradScaler\b|\bscale_loss\b|\.scale\s*\([^()]*\)\s*\.backward\s*\(/.test(s));
}
