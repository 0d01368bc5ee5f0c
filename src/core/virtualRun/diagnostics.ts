// What the editor shows for a virtual-GPU run, as plain data: each finding at the first frame
// of its stack (the innermost user frame, or where a mismatch's CPU tensor came from), the whole
// runtime stack as related locations, labelled as found by running.
// src/vscode/virtualRun turns these into vscode.Diagnostic; nothing here needs the editor.
import type { Severity } from '../analysis/types';
import type { RunFinding, RunFrame, VirtualRunReport } from './report';

export const RUN_SOURCE = 'Device Doctor (virtual GPU run)';

export interface PlannedLocation {
  file: string;
  /** Notebooks: the index among code cells. */
  cell?: number;
  /** 0-based. */
  line: number;
  message: string;
}

export interface PlannedDiagnostic extends PlannedLocation {
  code: RunFinding['code'];
  severity: Severity;
  related: PlannedLocation[];
}

function severityOf(found: RunFinding): Severity {
  if (found.code === 'DD007') return 'information';
  return found.fatal ? 'error' : 'warning';
}

function at(frame: RunFrame, message: string): PlannedLocation {
  return { file: frame.file, ...(frame.cell === undefined ? {} : { cell: frame.cell }), line: frame.line - 1, message };
}

function times(count: number): string {
  return count > 1 ? ` (${count} times)` : '';
}

/** One diagnostic per finding that has a user frame; the script's own failure too, as an error. */
export function planDiagnostics(report: VirtualRunReport): PlannedDiagnostic[] {
  const planned: PlannedDiagnostic[] = [];
  for (const found of report.findings) {
    const [top] = found.stack;
    if (!top) continue;
    const related = found.stack.map((frame, depth) => at(frame, frame.note ? `${frame.note}, in ${frame.function}`
      : depth === 0 ? `raised here, in ${frame.function}` : `called from ${frame.function}`));
    planned.push({ ...at(top, `${found.message}${times(found.count)} [found by running on a virtual GPU]`), code: found.code, severity: severityOf(found), related });
  }
  return planned;
}

/** The run in one sentence, for the notification at its end. */
export function runSummary(report: VirtualRunReport): string {
  const mistakes = report.findings.filter((f) => f.code !== 'DD007').length;
  const notes = report.findings.length - mistakes;
  const found = mistakes === 0 ? 'no device mistakes' : `${mistakes} device mistake${mistakes === 1 ? '' : 's'}`;
  const noted = notes > 0 ? ` and ${notes} note${notes === 1 ? '' : 's'}` : '';
  const how = report.outcome === 'stopped' ? `, stopped after ${report.steps} step${report.steps === 1 ? '' : 's'}`
    : report.outcome === 'failed' ? `; the script failed: ${report.error?.type ?? 'Error'}: ${report.error?.message ?? ''}` : '';
  return `Virtual GPU run: ${found}${noted}${how}.`;
}
