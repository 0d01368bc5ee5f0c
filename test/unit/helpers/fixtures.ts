// Loads the rule corpus: test/fixtures/rules/<CODE>/fire/*.py and .../silent/*.py.
import * as fs from 'fs';
import * as path from 'path';
import type { RuleCode } from '../../../src/core/analysis';
import { CORE_RULES } from './analysis';
import { Marker, parseMarkers } from './markers';

export const FIXTURES_DIR = path.resolve(__dirname, '..', '..', 'fixtures');
export const RULE_FIXTURES_DIR = path.join(FIXTURES_DIR, 'rules');
export const NOTEBOOK_FIXTURES_DIR = path.join(FIXTURES_DIR, 'notebooks');

export type Verdict = 'fire' | 'silent';

export interface RuleFixture {
  rule: RuleCode;
  verdict: Verdict;
  /** Relative to the repository root, for failure messages. */
  relPath: string;
  source: string;
  lines: string[];
  markers: Marker[];
}

const REPO_ROOT = path.resolve(FIXTURES_DIR, '..', '..');

function readFixture(rule: RuleCode, verdict: Verdict, file: string): RuleFixture {
  const source = fs.readFileSync(file, 'utf8');
  return {
    rule,
    verdict,
    relPath: path.relative(REPO_ROOT, file),
    source,
    lines: source.split(/\r\n|\r|\n/),
    markers: parseMarkers(source),
  };
}

export function listPythonFiles(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir).filter((f) => f.endsWith('.py')).sort().map((f) => path.join(dir, f));
}

export function loadRuleFixtures(rule: RuleCode, verdict: Verdict): RuleFixture[] {
  return listPythonFiles(path.join(RULE_FIXTURES_DIR, rule, verdict)).map((f) => readFixture(rule, verdict, f));
}

export function loadAllRuleFixtures(): RuleFixture[] {
  return CORE_RULES.flatMap((rule) => [...loadRuleFixtures(rule, 'fire'), ...loadRuleFixtures(rule, 'silent')]);
}
