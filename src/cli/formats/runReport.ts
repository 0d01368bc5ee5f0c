// A virtual-GPU run's findings in lint's report shape, so `run --format json|sarif`
// prints exactly what `lint` prints (one CI step, one SARIF upload for both). Each finding
// sits at the first frame of its stack (the user's innermost frame, or the line a mismatch's
// CPU tensor came from); the other frames in the same file become its related locations.
import type { Finding, RelatedLocation, Severity } from '../../core/analysis/types';
import { frameRange } from '../../core/virtualRun/location';
import type { RunFinding, RunFrame, VirtualRunReport } from '../../core/virtualRun/report';
import type { LocatedFinding } from '../lint/fixes';
import type { LintedFile, LintReport } from './report';

/** A file's sources as lint keeps them: one for a .py file, each code cell for a notebook, with the cells' positions. */
export interface RunSources {
  sources: string[];
  cellNumbers?: number[];
}

export type ReadSources = (file: string) => RunSources | undefined;

export function runSeverity(found: RunFinding): Severity {
  if (found.code === 'DD007') return 'information';
  return found.fatal ? 'error' : 'warning';
}

function sourceOf(frame: RunFrame, file: RunSources | undefined): string | undefined {
  return file?.sources[frame.cell ?? 0];
}

function toFinding(found: RunFinding, top: RunFrame, file: RunSources | undefined): LocatedFinding {
  const related: RelatedLocation[] = found.stack.slice(1).filter((frame) => frame.file === top.file).map((frame) => ({
    range: frameRange(frame, sourceOf(frame, file)),
    message: frame.note ? `${frame.note} (${frame.function})` : `called from here (${frame.function})`,
    ...(frame.cell === undefined ? {} : { cellIndex: frame.cell }),
  }));
  const times = found.count > 1 ? ` [${found.count} times]` : '';
  const finding: Finding = {
    code: found.code,
    message: `${found.message}${times}`,
    range: frameRange(top, sourceOf(top, file)),
    severity: runSeverity(found),
    related,
    fixes: [],
  };
  return top.cell === undefined ? { finding } : { finding, cellIndex: top.cell };
}

/**
 * The run's findings grouped by the file of their innermost frame; findings without a user frame
 * are left out. `origins`, when given, receives which run finding each located finding came from.
 */
export function runLintReport(report: VirtualRunReport, read: ReadSources, display: (file: string) => string, origins?: Map<LocatedFinding, RunFinding>): LintReport {
  const files = new Map<string, LintedFile>();
  for (const found of report.findings) {
    const top = found.stack[0];
    if (!top) continue;
    let linted = files.get(top.file);
    if (!linted) {
      const sources = read(top.file);
      linted = { path: top.file, displayPath: display(top.file), sources: sources?.sources ?? [], findings: [], fixed: 0 };
      if (sources?.cellNumbers) linted.cellNumbers = sources.cellNumbers;
      files.set(top.file, linted);
    }
    const located = toFinding(found, top, { sources: linted.sources, cellNumbers: linted.cellNumbers });
    origins?.set(located, found);
    linted.findings.push(located);
  }
  return { files: [...files.values()], problems: [], fixMode: false };
}
