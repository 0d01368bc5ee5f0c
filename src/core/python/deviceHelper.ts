// The text Insert Device Selection puts into a Python file: a device-agnostic get_device() in
// the order the PyTorch tutorial uses (CUDA, then Apple's MPS, then the CPU), with an allocation
// test for MPS, which can report available on a machine where allocating then fails. Pure text:
// the editor decides where it goes.

const HELPER_LINES = [
  'def get_device() -> torch.device:',
  '    """CUDA if PyTorch can use it, then Apple\'s MPS if a tensor can be allocated there, else the CPU."""',
  '    if torch.cuda.is_available():',
  '        return torch.device("cuda")',
  '    mps = getattr(torch.backends, "mps", None)',
  '    if mps is not None and mps.is_available():',
  '        try:',
  '            torch.ones(1, device="mps")',
  '            return torch.device("mps")',
  '        except RuntimeError:',
  '            pass',
  '    return torch.device("cpu")',
  '',
  '',
  'device = get_device()',
];

/** `import torch` on a line of its own (with `as torch`, or among other modules) binds the name the helper uses. */
const IMPORTS_TORCH = /^[ \t]*import[ \t]+(?:[\w.]+(?:[ \t]+as[ \t]+\w+)?[ \t]*,[ \t]*)*torch(?:[ \t]+as[ \t]+torch)?[ \t]*(?:,|#|$)/m;

export function importsTorch(source: string): boolean {
  return IMPORTS_TORCH.test(source);
}

export interface DeviceHelperOptions {
  /** The document's line ending. */
  eol: '\n' | '\r\n';
  /** The document already binds `torch` (then no import is added). */
  hasTorchImport: boolean;
  /** Characters before the insertion point on its line: a helper that does not start a line gets a line break first. */
  textBeforeOnLine: string;
  /** Characters after it on the line: those move below the helper. */
  textAfterOnLine: string;
}

/** The helper, with `import torch` when needed, separated from what surrounds it by blank lines. */
export function deviceHelperText(options: DeviceHelperOptions): string {
  const lines = [...(options.hasTorchImport ? [] : ['import torch', '', '']), ...HELPER_LINES];
  const before = options.textBeforeOnLine.trim() === '' ? '' : `${options.eol}${options.eol}`;
  const after = options.textAfterOnLine.trim() === '' ? options.eol : `${options.eol}${options.eol}${options.eol}`;
  return `${before}${lines.join(options.eol)}${after}`;
}
