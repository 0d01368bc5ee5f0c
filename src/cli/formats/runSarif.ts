// lint's SARIF for a virtual-GPU run, plus what only a run knows: each result's runtime stack
// (SARIF's `stacks`, innermost frame first), across files, where lint's related locations stay
// in one file. The results are toSarif's, in its order: files, then each file's reading order.
import type { RunFinding } from '../../core/virtualRun/report';
import type { LocatedFinding } from '../lint/fixes';
import { sortedFindings, type LintReport } from './report';
import { artifactLocation, toSarif, type SarifOptions } from './sarif';
import { terminalJson } from './terminalText';

type Json = Record<string, unknown>;

function sarifStack(found: RunFinding, cwd: string): Json {
  return {
    message: { text: 'where the virtual-GPU run found it' },
    frames: found.stack.map((frame) => ({
      location: {
        physicalLocation: { artifactLocation: artifactLocation(frame.file, cwd), region: { startLine: frame.line } },
        message: { text: frame.note ? `${frame.function}: ${frame.note}` : frame.function },
        ...(frame.cell === undefined ? {} : { properties: { cell: frame.cell } }),
      },
    })),
  };
}

/** `origins` maps each located finding of `report` to the run finding it came from. */
export function formatRunSarif(report: LintReport, origins: ReadonlyMap<LocatedFinding, RunFinding>, options: SarifOptions): string {
  const sarif = toSarif(report, options);
  const results = ((sarif.runs as Json[])[0].results as Json[]);
  const located = report.files.flatMap(sortedFindings);
  results.forEach((result, index) => {
    const found = origins.get(located[index]);
    if (found && found.stack.length > 0) result.stacks = [sarifStack(found, options.cwd)];
  });
  return `${terminalJson(JSON.stringify(sarif, null, 2))}\n`;
}
