// `device-doctor run`'s text: each mistake with PyTorch's message and the user's stack,
// then one line on how the run went. Paths and messages come from the user's program:
// made safe for the terminal, as in every format (terminalText.ts).
import { isMistake, type RunFrame, type VirtualRunReport } from '../../core/virtualRun/report';
import { runSeverity } from './runReport';
import { terminalText } from './terminalText';

export type DisplayPath = (file: string) => string;
/** The 1-based notebook cell number of a code-cell index in `file`, when it is a notebook. */
export type CellNumber = (file: string, cell: number) => number;

function where(frame: RunFrame, display: DisplayPath, cellNumber: CellNumber): string {
  const cell = frame.cell === undefined ? '' : `:cell ${cellNumber(frame.file, frame.cell)}`;
  return `${display(frame.file)}${cell}:${frame.line}`;
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

function machine(report: VirtualRunReport): string {
  const v = report.virtual;
  if (!v) return 'a virtual GPU';
  return v.kind === 'mps' ? 'a virtual MPS device' : `${plural(v.devices, 'virtual CUDA device')}`;
}

function howItWent(report: VirtualRunReport): string {
  const steps = plural(report.steps, 'optimizer step');
  const seconds = report.seconds === null ? '' : ` in ${report.seconds.toFixed(1)} s`;
  if (report.outcome === 'stopped') return `stopped after ${steps} (--${report.stoppedBy ?? 'steps'})${seconds}`;
  if (report.outcome === 'failed') return `the script failed after ${steps}${seconds}`;
  return `ran to the end, ${steps}${seconds}`;
}

export function formatRunText(report: VirtualRunReport, display: DisplayPath, cellNumber: CellNumber): string {
  const lines: string[] = [];
  for (const found of report.findings) {
    const top = found.stack[0];
    const place = top ? `${where(top, display, cellNumber)}: ` : '';
    const times = found.count > 1 ? ` [${found.count} times]` : '';
    lines.push(`${place}${found.code} ${runSeverity(found)}: ${found.message}${times}`);
    for (const frame of found.stack) lines.push(`    at ${where(frame, display, cellNumber)} in ${frame.function}${frame.note ? ` (${frame.note})` : ''}`);
  }
  if (report.error) {
    lines.push(`The script stopped with ${report.error.type}: ${report.error.message}`);
    for (const frame of report.error.stack) lines.push(`    at ${where(frame, display, cellNumber)} in ${frame.function}`);
  }
  const mistakes = report.findings.filter(isMistake).length;
  const notes = report.findings.length - mistakes;
  const found = mistakes === 0 ? 'No device mistakes' : `Found ${plural(mistakes, 'device mistake')}`;
  const extra = notes > 0 ? ` and ${plural(notes, 'note')}` : '';
  lines.push(`${found}${extra} on ${machine(report)} (PyTorch ${report.torch ?? '?'} on the CPU); ${howItWent(report)}.`);
  return `${lines.map(terminalText).join('\n')}\n`;
}
