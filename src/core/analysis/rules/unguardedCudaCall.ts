// DD011 unguarded-cuda-call: code that picks its device at run time (it checks availability,
// takes a --device option or a device parameter) promises to run without a GPU; a bare
// `torch.cuda.synchronize()` or `get_device_name()` there stops it on the CPU or on MPS.
// Only calls that need CUDA count: seeding, `empty_cache()` and `device_count()` are safe;
// memory readers (`max_memory_allocated()`) answer 0. Code that is GPU-only by design stays
// silent: a CUDA-event timing harness (a benchmark cell), a program whose device is a CUDA
// literal (`device = torch.device("cuda")`, a GPU benchmark's config), a loop over
// `range(torch.cuda.device_count())`.
import type { Node } from '../../python/pyNode';
import { isCudaLiteral } from '../../python/cudaHardcode';
import { callArguments, children, field } from '../../python/syntax';
import type { RuleFrame as Frame } from '../ruleApi';
import type { ProgramView as Program, Rule, RuleHost } from '../ruleApi';
import type { Fix } from '../types';
import { cudaGuardFix } from './shared/cudaGuardFix';
import { shortText } from './shared/describe';
import { inGpuOnlyTest } from './shared/gpuOnlyTest';
import { ACCEL } from '../values';

/** Memory readers that answer 0 without CUDA: no crash, but the printed figure means nothing. */
const READS_ZERO = new Set(['memory_allocated', 'max_memory_allocated', 'memory_reserved', 'max_memory_reserved']);

/** torch.cuda functions that raise where no CUDA device is ("Torch not compiled with CUDA enabled", "no NVIDIA driver"). */
const RAISING = new Set([
  'synchronize', 'memory_summary', 'memory_snapshot', 'reset_peak_memory_stats', 'reset_max_memory_allocated',
  'reset_accumulated_memory_stats', 'get_device_name', 'get_device_properties', 'get_device_capability', 'current_device',
  'mem_get_info', 'current_stream', 'default_stream', 'Stream', 'Event', 'ipc_collect', 'get_rng_state', 'initial_seed',
  'set_per_process_memory_fraction', 'init', 'utilization',
]);

/**
 * A condition that tests for CUDA or for the device (`torch.cuda.is_available()`,
 * `device.type == "cuda"`, `args.cuda`, `use_gpu`, `device != torch.device("cpu")`), or for
 * model offloading (diffusers'
 * `final_offload_hook`, Accelerate's `cpu_offload`), which is only set up with an
 * accelerator to offload from.
 */
const GUARD = /cuda|gpu|is_available|device_count|accelerator|\.type\b|mps|offload|['"]cpu['"]/i;

export const unguardedCudaCall: Rule = (host) => ({
  call: (frame, call, qualified) => {
    const name = qualified?.startsWith('torch.cuda.') ? qualified.slice('torch.cuda.'.length) : undefined;
    if (name && (RAISING.has(name) || READS_ZERO.has(name))) checkCudaCall(host, frame, call, READS_ZERO.has(name));
  },
});

function checkCudaCall(host: RuleHost, frame: Frame, call: Node, readsZero: boolean): void {
  const choice = host.deviceChoice();
  if (!choice.runTimeChoice || choice.cudaOnly || frame.acceleratorOnly || isGuarded(call) || inGpuOnlyTest(call)) return;
  // Whole-file facts through host.programFact: a run that reads them still replays after an edit.
  if (inEventTimingHarness(host, frame) || host.programFact('DD011 device bound to a CUDA literal', deviceIsCudaLiteral)) return;
  if (namedForCuda(frame) || (choice.deviceParameter && parameterIsAccelerator(frame, choice.deviceParameter.text))) return;
  const fix = guardFix(host, frame, call);
  host.report({
    unit: frame.unit,
    code: 'DD011',
    node: call,
    message: readsZero
      ? `\`${shortText(call, 40)}\` reads 0 without CUDA; call it only when CUDA is in use. ` +
        `This code ${choice.runTimeChoice}, so it is meant to run there too, where what it prints means nothing. ` +
        'Guard it with `if torch.cuda.is_available():`.'
      : `\`${shortText(call, 40)}\` raises without CUDA; call it only when CUDA is in use. ` +
        `This code ${choice.runTimeChoice}, so it is meant to run there too, where this stops it with ` +
        '"Torch not compiled with CUDA enabled" (or "Found no NVIDIA driver"). Guard it with `if torch.cuda.is_available():`.',
    related: [],
    fixes: fix ? [fix] : [],
  });
}

/**
 * The function or class around the call says it is CUDA's in its name (`CUDAPrefetcher`,
 * `gpu_collate`): GPU-only by design, whatever device parameter it also takes.
 */
function namedForCuda(frame: Frame): boolean {
  const names = [frame.fn?.name, frame.fn?.className?.split('#')[0]];
  return names.some((name) => !!name && /(^|_|[a-z])(cuda|gpu)/i.test(name));
}

/**
 * The device parameter holds an accelerator at every call the program makes (`Loader(batches,
 * torch.device("cuda", 0))`): the callers chose the GPU, so the code only runs where one is.
 */
function parameterIsAccelerator(frame: Frame, name: string): boolean {
  const v = frame.env.get(name);
  return v?.kind === 'device' && v.place === ACCEL;
}

/**
 * The function around the call (or, at top level, its cell or file) times work with CUDA
 * events (`torch.cuda.Event(enable_timing=True)`): a CUDA benchmark harness, GPU-only by
 * design, whose synchronize and events are its measurement.
 */
function inEventTimingHarness(host: RuleHost, frame: Frame): boolean {
  if (!frame.fn) return host.programFact('DD011 cells that time with CUDA events', timingUnits).has(frame.unit);
  return timesWithEvents(host.program, frame.unit, frame.fn.body);
}

/** The analysed units whose top-level code times work with CUDA events. */
function timingUnits(program: Program): Set<number> {
  return new Set(program.units.filter((u) => u.module === 0 && timesWithEvents(program, u.index, u.root)).map((u) => u.index));
}

function timesWithEvents(program: Program, unit: number, scope: Node): boolean {
  const imports = program.importsAt(unit);
  const stack: Node[] = [scope];
  while (stack.length) {
    const n = stack.pop()!;
    if (n.type === 'call' && imports.qualify(field(n, 'function') ?? n) === 'torch.cuda.Event' && /enable_timing\s*=\s*True/.test(n.text)) return true;
    for (const c of children(n)) if (c.type !== 'function_definition' && c.type !== 'class_definition') stack.push(c);
  }
  return false;
}

const DEVICE_NAME = /^(device|dev|DEVICE)$/;

/**
 * The program binds its device to CUDA outright at top level (`device = torch.device("cuda")`,
 * `device = "cuda"`): written for a GPU, whatever else it asks (nanoGPT's bench.py checks
 * availability only to pick a dtype). Hard-coding is DD005's concern, not this rule's.
 */
function deviceIsCudaLiteral(program: Program): boolean {
  for (const unit of program.modules[0].units) {
    const imports = program.importsAt(unit.index);
    for (const statement of children(unit.root)) {
      const assignment = statement.type === 'expression_statement' ? children(statement)[0] : undefined;
      if (assignment?.type !== 'assignment' || !DEVICE_NAME.test(field(assignment, 'left')?.text ?? '')) continue;
      const value = field(assignment, 'right');
      if (value?.type === 'call' && imports.qualify(field(value, 'function') ?? value) === 'torch.device' && isCudaLiteral(callArguments(value).positional[0])) return true;
      if (isCudaLiteral(value)) return true;
    }
  }
  return false;
}

/** Inside a branch, conditional or `and` that tests for CUDA, a `try` that catches, or after an early exit on one. */
function isGuarded(call: Node): boolean {
  for (let n: Node = call; n.parent; n = n.parent) {
    const p = n.parent;
    // `for i in range(torch.cuda.device_count()):` runs no iteration without a GPU.
    if (p.type === 'for_statement' && field(p, 'body')?.id === n.id && GUARD.test(field(p, 'right')?.text ?? '')) return true;
    // `[get_device_name(k) for k in range(torch.cuda.device_count())]`: the same loop, as a comprehension.
    if (COMPREHENSIONS.has(p.type) && field(p, 'body')?.id === n.id && comprehensionIsGuarded(p)) return true;
    if (p.type === 'if_statement' || p.type === 'elif_clause' || p.type === 'while_statement' || p.type === 'conditional_expression') {
      const test = p.type === 'conditional_expression' ? children(p)[1] : field(p, 'condition');
      if (test && test.id !== n.id && GUARD.test(test.text)) return true;
    }
    if (p.type === 'else_clause' && p.parent && GUARD.test(field(p.parent, 'condition')?.text ?? '')) return true;
    if (p.type === 'boolean_operator' && field(p, 'right')?.id === n.id && GUARD.test(field(p, 'left')?.text ?? '')) return true;
    if (p.type === 'try_statement' && field(p, 'body')?.id === n.id && children(p).some((c) => c.type === 'except_clause')) return true;
    if ((p.type === 'block' || p.type === 'module') && (exitsEarlyBefore(p, n) || needsCudaBefore(p, n))) return true;
    // A helper named for the GPU (`log_gpu_memory`) is the caller's to guard.
    if (p.type === 'function_definition' && /cuda|gpu/i.test(field(p, 'name')?.text ?? '')) return true;
  }
  return false;
}

const COMPREHENSIONS = new Set(['list_comprehension', 'set_comprehension', 'dictionary_comprehension', 'generator_expression']);

/** A comprehension whose loops or filters test for CUDA (`for k in range(torch.cuda.device_count())`, `if torch.cuda.is_available()`). */
function comprehensionIsGuarded(comprehension: Node): boolean {
  return children(comprehension).some((clause) =>
    (clause.type === 'for_in_clause' && GUARD.test(field(clause, 'right')?.text ?? '')) || (clause.type === 'if_clause' && GUARD.test(clause.text)));
}

/** `if not torch.cuda.is_available(): return` (or raise, exit) or `assert torch.cuda.is_available()` earlier in the block. */
function exitsEarlyBefore(block: Node, statement: Node): boolean {
  for (const s of children(block)) {
    if (s.id === statement.id) return false;
    if (s.type === 'assert_statement' && GUARD.test(s.text)) return true;
    if (s.type === 'if_statement' && GUARD.test(field(s, 'condition')?.text ?? '')) {
      const body = field(s, 'consequence');
      if (body && /^\s*(return|raise|continue|break|sys\.exit|exit|quit)\b/m.test(body.text)) return true;
    }
  }
  return false;
}

/**
 * An earlier statement of the block needs CUDA on every path (`warm = torch.ones(8).cuda()`,
 * `torch.cuda.FloatTensor(1)`): the code from there on is GPU-only (a timing cell), and
 * without CUDA it stops there first, so a guard here would change nothing.
 */
function needsCudaBefore(block: Node, statement: Node): boolean {
  for (const s of children(block)) {
    if (s.id === statement.id) return false;
    if (s.type === 'expression_statement' && UNCONDITIONAL_CUDA.test(s.text) && hasUnconditionalCudaCall(s)) return true;
  }
  return false;
}

const UNCONDITIONAL_CUDA = /\.cuda\(|cuda\.\w*Tensor\(/;
const CONDITIONAL = new Set(['conditional_expression', 'boolean_operator', 'lambda', ...COMPREHENSIONS]);

function hasUnconditionalCudaCall(statement: Node): boolean {
  const stack: Node[] = [statement];
  while (stack.length) {
    const n = stack.pop()!;
    if (CONDITIONAL.has(n.type)) continue;
    if (n.type === 'call') {
      const callee = field(n, 'function');
      const name = callee?.type === 'attribute' ? field(callee, 'attribute')?.text : undefined;
      if (name === 'cuda' || (name && /Tensor$/.test(name) && /\bcuda\.\w*Tensor$/.test(callee!.text))) return true;
    }
    stack.push(...children(n));
  }
  return false;
}

/** The name torch is bound to in this unit (`torch`, or `t` for `import torch as t`). */
function torchName(host: RuleHost, unit: number): string | undefined {
  const imports = host.program.importsAt(unit);
  for (const name of imports.names()) if (imports.qualifyName(name) === 'torch') return name;
  return undefined;
}

/** `if torch.cuda.is_available():` around the statement and every later one that reads what it binds (shared/cudaGuardFix). */
function guardFix(host: RuleHost, frame: Frame, call: Node): Fix | undefined {
  let statement: Node = call;
  while (statement.parent && statement.parent.type !== 'block' && statement.parent.type !== 'module') statement = statement.parent;
  const torch = torchName(host, frame.unit);
  if (!torch || statement.type !== 'expression_statement' || !statement.parent) return undefined;
  const unit = host.program.units[frame.unit];
  const otherSources = host.program.units.filter((u) => u.module === unit.module && u.index !== unit.index).map((u) => u.source);
  return cudaGuardFix(statement, torch, { lines: unit.lines, eol: unit.eol, index: frame.unit, otherSources });
}
