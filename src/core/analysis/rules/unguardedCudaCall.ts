// DD011 unguarded-cuda-call: code that picks its device at run time (it checks availability,
// takes a --device option or a device parameter) promises to run without a GPU; a bare
// `torch.cuda.synchronize()` or `get_device_name()` there stops it on the CPU or on MPS.
// Only calls that need CUDA count: seeding, `empty_cache()` and `device_count()` are safe.
import type { Node } from '../../python/pyNode';
import { children, field } from '../../python/syntax';
import type { RuleFrame as Frame } from '../ruleApi';
import type { Rule, RuleHost } from '../ruleApi';
import type { Fix } from '../types';
import { cudaGuardFix } from './shared/cudaGuardFix';
import { shortText } from './shared/describe';
import { inGpuOnlyTest } from './shared/gpuOnlyTest';

/** torch.cuda functions that raise where no CUDA device is ("Torch not compiled with CUDA enabled", "no NVIDIA driver"). */
const RAISING = new Set([
  'synchronize', 'memory_summary', 'memory_snapshot', 'reset_peak_memory_stats', 'reset_max_memory_allocated',
  'reset_accumulated_memory_stats', 'get_device_name', 'get_device_properties', 'get_device_capability', 'current_device',
  'mem_get_info', 'current_stream', 'default_stream', 'Stream', 'Event', 'ipc_collect', 'get_rng_state', 'initial_seed',
  'set_per_process_memory_fraction', 'init', 'utilization',
]);

/** Memory readers that answer 0 without CUDA: no crash, but the printed figure means nothing. */
const READS_ZERO = new Set(['memory_allocated', 'max_memory_allocated', 'memory_reserved', 'max_memory_reserved']);

/**
 * A condition that tests for CUDA or for the device (`torch.cuda.is_available()`,
 * `device.type == "cuda"`, `args.cuda`, `use_gpu`), or for model offloading (diffusers'
 * `final_offload_hook`, Accelerate's `cpu_offload`), which is only set up with an
 * accelerator to offload from.
 */
const GUARD = /cuda|gpu|is_available|device_count|accelerator|\.type\b|mps|offload/i;

export const unguardedCudaCall: Rule = (host) => ({
  call: (frame, call, qualified) => {
    const name = qualified?.startsWith('torch.cuda.') ? qualified.slice('torch.cuda.'.length) : undefined;
    if (name && (RAISING.has(name) || READS_ZERO.has(name))) checkCudaCall(host, frame, call, name);
  },
});

function checkCudaCall(host: RuleHost, frame: Frame, call: Node, name: string): void {
  const choice = host.deviceChoice();
  if (!choice.runTimeChoice || choice.cudaOnly || frame.acceleratorOnly || isGuarded(call) || inGpuOnlyTest(call)) return;
  const effect = RAISING.has(name)
    ? 'raises where no CUDA device is ("Torch not compiled with CUDA enabled", or "Found no NVIDIA driver")'
    : 'reports 0 bytes where no CUDA device is, so what it prints means nothing';
  const fix = guardFix(host, frame, call);
  host.report({
    unit: frame.unit,
    code: 'DD011',
    node: call,
    message: `\`${shortText(call)}\` ${effect}, and this code ${choice.runTimeChoice}: it is meant to run there too. ` +
      'Call it only when CUDA is in use (`if torch.cuda.is_available():`).',
    related: [],
    fixes: fix ? [fix] : [],
  });
}

/** Inside a branch, conditional or `and` that tests for CUDA, a `try` that catches, or after an early exit on one. */
function isGuarded(call: Node): boolean {
  for (let n: Node = call; n.parent; n = n.parent) {
    const p = n.parent;
    if (p.type === 'if_statement' || p.type === 'elif_clause' || p.type === 'while_statement' || p.type === 'conditional_expression') {
      const test = p.type === 'conditional_expression' ? children(p)[1] : field(p, 'condition');
      if (test && test.id !== n.id && GUARD.test(test.text)) return true;
    }
    if (p.type === 'else_clause' && p.parent && GUARD.test(field(p.parent, 'condition')?.text ?? '')) return true;
    if (p.type === 'boolean_operator' && field(p, 'right')?.id === n.id && GUARD.test(field(p, 'left')?.text ?? '')) return true;
    if (p.type === 'try_statement' && field(p, 'body')?.id === n.id && children(p).some((c) => c.type === 'except_clause')) return true;
    if ((p.type === 'block' || p.type === 'module') && exitsEarlyBefore(p, n)) return true;
    // A helper named for the GPU (`log_gpu_memory`) is the caller's to guard.
    if (p.type === 'function_definition' && /cuda|gpu/i.test(field(p, 'name')?.text ?? '')) return true;
  }
  return false;
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
