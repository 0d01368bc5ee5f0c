// Every example of ANALYZER.md's "Examples the analyzer must get right", with the exact
// code, start line, named variable and text after the preferred fix.
import { strict as assert } from 'assert';
import { initPythonParser } from '../../src/core/analysis';
import type { Finding } from '../../src/core/analysis';
import { coreFindings, formatFindings, lineOf } from './helpers/analysis';
import { SPEC_EXAMPLES } from './helpers/examples';
import { applyFix } from './helpers/fixes';
import { mentions } from './helpers/markers';

function preferredFixResult(source: string, finding: Finding): string {
  const preferred = finding.fixes.filter((f) => f.preferred);
  assert.equal(preferred.length, 1, `${finding.code} must have exactly one preferred fix: ${finding.fixes.map((f) => f.title).join(' | ')}`);
  return applyFix(source, preferred[0]);
}

describe('ANALYZER.md examples', () => {
  before(async () => {
    await initPythonParser();
  });

  for (const example of SPEC_EXAMPLES) {
    it(example.title, () => {
      const findings = coreFindings(example.source);
      const got = findings.map((f) => `${f.code}@${f.range.start.line + 1}`);
      const want = example.expected.map((e) => `${e.code}@${lineOf(example.source, e.at) + 1}`);
      assert.deepEqual(got.sort(), want.sort(), `findings differ; the analyzer reported:\n${formatFindings(findings)}`);
      for (const expected of example.expected) {
        const finding = findings.find((f) => f.code === expected.code)!;
        assert.ok(mentions(finding.message, expected.names), `${expected.code} message should name \`${expected.names}\`: "${finding.message}"`);
        assert.equal(preferredFixResult(example.source, finding), expected.fixed, `${expected.code}: preferred fix "${finding.fixes.find((f) => f.preferred)?.title}"`);
      }
    });
  }
});
