// The rule corpus: every fixture under test/fixtures/rules/<CODE>/{fire,silent}/ is analysed
// and the findings of its own rule, and of every other rule its `# expect:` markers name,
// are compared with those markers. A fixture speaks for the rules it names, not for every
// rule: a DD001 case that moves its model with `.cuda()` also hard-codes CUDA (DD005), which
// is true and beside its point; a fixture that names DD010 next to DD003 checks both.
import { strict as assert } from 'assert';
import { initPythonParser, ruleInfo } from '../../src/core/analysis';
import type { Finding } from '../../src/core/analysis';
import { CORE_RULES, coreFindings, formatFindings, isCoreRule } from './helpers/analysis';
import { firstSyntaxError } from './helpers/fixes';
import { loadRuleFixtures, RuleFixture } from './helpers/fixtures';
import { compareWithMarkers } from './helpers/markers';

const MIN_CASES_PER_VERDICT = 10;

/** Shape checks every finding must pass, whatever its rule. */
function shapeProblems(f: Finding, lines: readonly string[]): string[] {
  const problems: string[] = [];
  const where = `${f.code} on line ${f.range.start.line + 1}`;
  const { start, end } = f.range;
  if (start.line > end.line || (start.line === end.line && start.character >= end.character)) {
    problems.push(`${where}: empty or inverted range`);
  }
  if (end.line >= lines.length || end.character > (lines[end.line]?.length ?? 0)) {
    problems.push(`${where}: range ends outside the file`);
  }
  if (f.severity !== ruleInfo(f.code).severity) {
    problems.push(`${where}: severity ${f.severity}, the catalog says ${ruleInfo(f.code).severity}`);
  }
  if ((f.code === 'DD001' || f.code === 'DD002') && f.related.length === 0) {
    problems.push(`${where}: no relatedInformation (where the other side was moved or created)`);
  }
  for (const r of f.related) {
    if (r.range.start.line >= lines.length || !r.message) problems.push(`${where}: related entry out of range or without message`);
  }
  return problems;
}

/** The rules a fixture's expectations cover: its own, and each one a marker names. */
function rulesChecked(fx: RuleFixture): Set<string> {
  return new Set<string>([fx.rule, ...fx.markers.map((m) => m.code)]);
}

function checkFixture(fx: RuleFixture): void {
  const checked = rulesChecked(fx);
  const all = coreFindings(fx.source);
  const findings = all.filter((f) => checked.has(f.code));
  const problems = [
    ...compareWithMarkers(findings, fx.markers, fx.lines),
    // Every finding, of any rule, must be well formed.
    ...all.flatMap((f) => shapeProblems(f, fx.lines)),
  ];
  assert.ok(problems.length === 0,
    `${fx.relPath}\n  ${problems.join('\n  ')}\n  analyzer reported:\n${formatFindings(all)}`);
}

describe('rule corpus (test/fixtures/rules)', () => {
  before(async () => {
    await initPythonParser();
  });

  for (const rule of CORE_RULES) {
    describe(`${rule} ${ruleInfo(rule).name}`, () => {
      const fire = loadRuleFixtures(rule, 'fire');
      const silent = loadRuleFixtures(rule, 'silent');

      it(`has at least ${MIN_CASES_PER_VERDICT} firing and ${MIN_CASES_PER_VERDICT} silent cases`, () => {
        assert.ok(fire.length >= MIN_CASES_PER_VERDICT, `${rule}: ${fire.length} firing fixtures`);
        assert.ok(silent.length >= MIN_CASES_PER_VERDICT, `${rule}: ${silent.length} silent fixtures`);
      });

      it('fixtures are well formed: a leading comment, valid Python, markers that fit the verdict', () => {
        for (const fx of [...fire, ...silent]) {
          assert.match(fx.lines[0], /^# \S.{30,}/, `${fx.relPath}: first line must say what it covers and why`);
          assert.equal(firstSyntaxError(fx.source), undefined, `${fx.relPath} does not parse cleanly`);
          for (const m of fx.markers) assert.ok(isCoreRule(m.code), `${fx.relPath}: marker for non-corpus rule ${m.code}`);
        }
        for (const fx of fire) {
          assert.ok(fx.markers.some((m) => m.code === rule), `${fx.relPath}: a firing fixture without a ${rule} marker`);
        }
        for (const fx of silent) {
          assert.deepEqual(fx.markers, [], `${fx.relPath}: a silent fixture must have no markers`);
        }
      });

      describe('fires', () => {
        for (const fx of fire) it(fx.relPath.replace(/^.*\//, ''), () => checkFixture(fx));
      });
      describe('stays silent', () => {
        for (const fx of silent) it(fx.relPath.replace(/^.*\//, ''), () => checkFixture(fx));
      });
    });
  }
});
