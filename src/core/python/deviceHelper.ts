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
  /**
   * The lines above the insertion line (nearest last), to keep PEP 8's two blank lines
   * before the def; absent: none are looked at (the start of a file needs none).
   */
  linesAbove?: readonly string[];
}

/** PEP 8: two blank lines around a top-level function definition. */
const BLANK_LINES_AROUND_DEF = 2;

/** Blank lines directly above the insertion line, or enough where it starts the file. */
function blankLinesAbove(lines: readonly string[] | undefined): number {
  if (!lines) return BLANK_LINES_AROUND_DEF;
  let n = 0;
  for (let i = lines.length - 1; i >= 0 && lines[i].trim() === ''; i--) n++;
  return n === lines.length ? BLANK_LINES_AROUND_DEF : n;
}

/** The helper, with `import torch` when needed, two blank lines above its def (PEP 8) and one after `device = get_device()`. */
export function deviceHelperText(options: DeviceHelperOptions): string {
  const lines = [...(options.hasTorchImport ? [] : ['import torch', '', '']), ...HELPER_LINES];
  const eol = options.eol;
  const startsLine = options.textBeforeOnLine.trim() === '';
  const blanks = startsLine ? blankLinesAbove(options.linesAbove) : 0;
  const before = (startsLine ? '' : eol) + eol.repeat(Math.max(0, BLANK_LINES_AROUND_DEF - blanks));
  const after = options.textAfterOnLine.trim() === '' ? eol : `${eol}${eol}`;
  return `${before}${lines.join(eol)}${after}`;
}

/** A `device = …` the file already has: where, its text, and whether the helper can take its place. */
export interface DeviceChoice {
  /** 0-based line. */
  line: number;
  text: string;
  /** A top-level assignment on one line: Insert Device Selection can replace it with the helper. */
  replaceable: boolean;
}

const DEVICE_ASSIGNMENT = /^([ \t]*)device[ \t]*(?::[^=]+)?=(?!=)/;

/** The first `device = …` assignment in the file (not `self.device`, not `device == …`). */
export function findDeviceChoice(source: string): DeviceChoice | undefined {
  const lines = source.split(/\r\n|\r|\n/);
  for (let i = 0; i < lines.length; i++) {
    const match = DEVICE_ASSIGNMENT.exec(lines[i]);
    if (!match) continue;
    const text = lines[i].trim();
    const code = text.replace(/#.*$/, '');
    const balanced = (code.match(/[([{]/g) ?? []).length === (code.match(/[)\]}]/g) ?? []).length && !code.trimEnd().endsWith('\\');
    return { line: i, text, replaceable: match[1] === '' && balanced };
  }
  return undefined;
}
