// PROBES.md's diagnosis table: why PyTorch cannot use the GPU. The rows live in
// diagnosisRules.ts; this joins them with the problems of failed tools.
import { DIAGNOSIS_RULES } from './diagnosisRules';
import type { DiagnosisFacts } from './diagnosisFacts';
import type { Problem } from './report';


export type { DiagnosisFacts, TfjsFacts } from './diagnosisFacts';

/** Tool problems first, then the table's rows in order; one problem per code. */
export function diagnose(facts: DiagnosisFacts): Problem[] {
  const found = [...facts.toolProblems];
  for (const rule of DIAGNOSIS_RULES) {
    const problem = rule(facts);
    if (problem) found.push(problem);
  }
  return uniqueByCode(found);
}

function uniqueByCode(problems: Problem[]): Problem[] {
  const byCode = new Map<string, Problem>();
  for (const problem of problems) if (!byCode.has(problem.code)) byCode.set(problem.code, problem);
  return [...byCode.values()];
}
