// DD005's fixes for one place that names CUDA: the literal becomes a choice at run time
// (`"cuda" if torch.cuda.is_available() else "cpu"`), `.cuda()` becomes `.to(<that>)`, a
// `--gpu` option on by default defaults to `torch.cuda.is_available()`; or a `get_device()`
// helper (CUDA, then MPS, then the CPU; torch.accelerator with PyTorch 2.6 or later) is
// inserted after the imports and used there.
import type { Node } from '../../../python/pyNode';
import type { CudaHardcode } from '../../../python/cudaHardcode';
import { callArguments, children, field } from '../../../python/syntax';
import type { RuleHost } from '../../ruleApi';
import type { TextEdit } from '../../types';
import { shortText } from './describe';
import { torchAtLeast } from './torchVersion';

/** A place that names CUDA, as the fixes need it. */
export type CudaPlace =
  | { kind: 'call'; unit: number; call: Node; hardcode: CudaHardcode }
  | { kind: 'parameter default'; unit: number; literal: Node }
  /** `device = "cuda"` at a module's top level, used later as a device (`.to(device)`). */
  | { kind: 'variable'; unit: number; literal: Node }
  | { kind: 'option default'; unit: number; value: Node };

/** The edits of one way to fix one place, without the import of torch they may need. */
export interface PlaceFix {
  title: string;
  edits: TextEdit[];
}

export interface PlaceFixes {
  /** The fix that keeps CUDA where there is one and falls back to the CPU. */
  runTime?: PlaceFix;
  /** The fix that uses the `get_device()` helper (its insertion is `HardcodeFixer.helper`). */
  helper?: PlaceFix;
}

/** Writes the fixes of a file's places, sharing the torch binding and the helper's insertion. */
export class HardcodeFixer {
  /** The name torch is bound to and the edit that imports it when only a submodule is; undefined when no fix can name it. */
  readonly torch: { name: string; edits: TextEdit[] } | undefined;
  /** The helper's insertion ([] when the program defines one already); undefined when it cannot be inserted. */
  readonly helper: TextEdit[] | undefined;

  constructor(host: RuleHost, unit: number) {
    this.torch = torchBinding(host, unit);
    this.helper = this.torch && helperEdits(host, unit, this.torch.name, torchAtLeast(host.torchVersion, 2, 6) === true);
  }

  fixesFor(place: CudaPlace): PlaceFixes {
    const torch = this.torch?.name;
    if (!torch) return {};
    const chosen = (literal: string) => `${literal} if ${torch}.cuda.is_available() else "cpu"`;
    if (place.kind === 'option default') {
      const text = `${torch}.cuda.is_available()`;
      return { runTime: { title: `Default to ${text}`, edits: [replace(place.value, text, place.unit)] } };
    }
    if (place.kind === 'parameter default' || place.kind === 'variable') {
      return { runTime: { title: `Default to ${chosen(place.literal.text)}`, edits: [replace(place.literal, chosen(place.literal.text), place.unit)] } };
    }
    const { call, hardcode, unit } = place;
    if (hardcode.kind === 'literal') {
      const helperUse = this.helper ? [replace(hardcode.deviceCall ? call : hardcode.literal, 'get_device()', unit)] : undefined;
      return {
        runTime: { title: `Choose the device at run time: ${shortText(hardcode.literal)} if torch.cuda.is_available() else "cpu"`, edits: [replace(hardcode.literal, chosen(hardcode.literal.text), unit)] },
        helper: helperUse && { title: 'Insert a get_device() helper (CUDA, then MPS, then the CPU) and use it', edits: helperUse },
      };
    }
    if (hardcode.kind === 'tensorType') {
      // The CPU type of the same name takes the same arguments (data, or sizes), then moves.
      const args = field(call, 'arguments');
      const typeName = field(call, 'function')?.text.split('.').pop();
      if (!args || !typeName) return {};
      const made = `${torch}.${typeName}${args.text}`;
      return {
        runTime: { title: `Use ${torch}.${typeName}(…).to(${chosen('"cuda"')})`, edits: [replace(call, `${made}.to(${chosen('"cuda"')})`, unit)] },
        helper: this.helper ? { title: 'Insert a get_device() helper (CUDA, then MPS, then the CPU) and use it', edits: [replace(call, `${made}.to(get_device())`, unit)] } : undefined,
      };
    }
    const asTo = methodAsTo(call);
    if (!asTo) return {};
    const toCall = (device: string) => `to(${[device, ...asTo.rest].join(', ')})`;
    return {
      runTime: { title: `Use .to(${chosen(asTo.literal)})`, edits: [replace(call, toCall(chosen(asTo.literal)), unit, hardcode.attr)] },
      helper: this.helper ? { title: 'Insert a get_device() helper (CUDA, then MPS, then the CPU) and use it', edits: [replace(call, toCall('get_device()'), unit, hardcode.attr)] } : undefined,
    };
  }
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

/**
 * The helper, inserted after the imports of the unit that imports torch (none when one is
 * defined already). With PyTorch 2.6 or later it asks torch.accelerator (CUDA, MPS, XPU, ...);
 * otherwise, or when the version is unknown, CUDA then MPS by hand.
 */
function helperEdits(host: RuleHost, unit: number, torch: string, accelerator: boolean): TextEdit[] | undefined {
  if (host.program.topFunctions.has('get_device')) return [];
  const importing = host.program.modules[0].units.find((u) => children(u.root).some(importsTorch));
  if (!importing || importing.index > unit) return undefined;
  let last: Node | undefined;
  for (const s of children(importing.root)) {
    if (s.type === 'import_statement' || s.type === 'import_from_statement') last = s;
    else if (last && s.type !== 'comment') break;
  }
  if (!last || last.startPosition.row !== last.endPosition.row) return undefined;
  const body = accelerator ? [
    '', '', 'def get_device():',
    '    """The accelerator PyTorch finds (CUDA, MPS, XPU, ...), else the CPU."""',
    `    if ${torch}.accelerator.is_available():`, `        return ${torch}.accelerator.current_accelerator()`,
    `    return ${torch}.device("cpu")`,
  ].join(importing.eol) : [
    '', '', 'def get_device():',
    '    """CUDA if present, then Apple\'s MPS (if it can allocate), else the CPU."""',
    `    if ${torch}.cuda.is_available():`, `        return ${torch}.device("cuda")`,
    `    if ${torch}.backends.mps.is_available():`, '        try:', `            ${torch}.zeros(1, device="mps")`,
    `            return ${torch}.device("mps")`, '        except RuntimeError:', '            pass', `    return ${torch}.device("cpu")`,
  ].join(importing.eol);
  const at = { line: last.endPosition.row, character: last.endPosition.column };
  return [{ range: { start: at, end: at }, newText: body, cellIndex: importing.index }];
}

function importsTorch(s: Node): boolean {
  return (s.type === 'import_statement' || s.type === 'import_from_statement') && /\btorch\b/.test(s.text);
}
