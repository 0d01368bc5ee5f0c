import * as assert from 'assert';
import * as path from 'path';
import type { Finding, RuleCode, Severity } from '../../src/core/analysis/types';
import { RULES } from '../../src/core/analysis/catalog';
import { formatJson, toRuffJson } from '../../src/cli/formats/json';
import type { LintReport, LintedFile } from '../../src/cli/formats/report';
import { Locator } from '../../src/cli/formats/report';
import { formatSarif, SARIF_SCHEMA, toSarif } from '../../src/cli/formats/sarif';
import { formatText, summaryLine } from '../../src/cli/formats/text';

const cwd = path.resolve('/work/project');

function finding(code: RuleCode, line: number, character: number, endCharacter: number, extra: Partial<Finding> = {}): Finding {
  const severity: Severity = code === 'DD003' || code === 'DD010' ? 'error' : 'warning';
  return {
    code,
    message: `${code} message`,
    range: { start: { line, character }, end: { line, character: endCharacter } },
    severity,
    related: [],
    fixes: [],
    ...extra,
  };
}

const numpySource = 't_gpu = torch.tensor([1.0, 2.0]).to("cuda")\nt_gpu.numpy()\n';

/** DD003 on `t_gpu.numpy()` (line 2) with the fix that inserts `.cpu()`. */
function dd003(): Finding {
  return finding('DD003', 1, 0, 13, {
    message: "t_gpu may be on an accelerator; .numpy() needs a CPU tensor",
    related: [{ message: 't_gpu moved to "cuda" here', range: { start: { line: 0, character: 8 }, end: { line: 0, character: 43 } } }],
    fixes: [
      { title: 'Insert .cpu() before .numpy()', preferred: true,
        edits: [{ range: { start: { line: 1, character: 5 }, end: { line: 1, character: 5 } }, newText: '.cpu()' }] },
      { title: 'Ignore DD003 on this line', preferred: false,
        edits: [{ range: { start: { line: 1, character: 13 }, end: { line: 1, character: 13 } }, newText: '  # noqa: DD003' }] },
    ],
  });
}

function pythonFile(name: string, source: string, findings: Finding[]): LintedFile {
  return { path: path.join(cwd, name), displayPath: name, sources: [source], findings: findings.map((f) => ({ finding: f })), fixed: 0 };
}

function report(files: LintedFile[], fixMode = false): LintReport {
  return { files, problems: [], fixMode };
}

describe('cli: locations as Ruff reports them', () => {
  it('turns 0-based UTF-16 positions into 1-based code point columns', () => {
    const locator = new Locator(['x = 1\ny = "😀é" + t.numpy()\n']);
    assert.deepStrictEqual(locator.locate({ line: 0, character: 0 }), { row: 1, column: 1 });
    // "😀" is two UTF-16 units but one code point: `t` is at UTF-16 16, code point 15.
    assert.deepStrictEqual(locator.locate({ line: 1, character: 16 }), { row: 2, column: 16 });
  });

  it('handles CRLF line breaks and positions past the text', () => {
    const locator = new Locator(['a\r\nbb\r\n']);
    assert.deepStrictEqual(locator.locate({ line: 1, character: 2 }), { row: 2, column: 3 });
    assert.deepStrictEqual(locator.locate({ line: 9, character: 0 }).row, 10);
  });
});

describe('cli: text format', () => {
  it('prints path:row:col: CODE [*] message and a summary', () => {
    const out = formatText(report([pythonFile('train.py', numpySource, [dd003()])]), { color: false, quiet: false });
    assert.strictEqual(out,
      'train.py:2:1: DD003 [*] t_gpu may be on an accelerator; .numpy() needs a CPU tensor\n' +
      'Found 1 error (1 fixable with --fix).\n');
  });

  it('omits [*] without a preferred fix and sorts findings by position', () => {
    const file = pythonFile('a.py', 'x\ny\nz\n', [finding('DD004', 2, 0, 1), finding('DD001', 0, 0, 1)]);
    assert.strictEqual(formatText(report([file]), { color: false, quiet: false }),
      'a.py:1:1: DD001 DD001 message\na.py:3:1: DD004 DD004 message\nFound 2 warnings.\n');
  });

  it('names what it found by severity: most rules warn, and warnings are not errors', () => {
    const file = pythonFile('a.py', 'x\ny\nz\n', [dd003(), finding('DD004', 2, 0, 1), finding('DD007', 1, 0, 1), finding('DD011', 0, 0, 1, { severity: 'information' })]);
    assert.strictEqual(summaryLine(report([file])), 'Found 4 findings (1 error, 2 warnings, 1 note; 1 fixable with --fix).');
    assert.strictEqual(summaryLine(report([pythonFile('a.py', 'x\n', [finding('DD007', 0, 0, 1)])])), 'Found 1 warning.');
  });

  it('prints the cell of a notebook finding', () => {
    const notebook: LintedFile = {
      path: path.join(cwd, 'nb.ipynb'), displayPath: 'nb.ipynb', sources: ['import torch\n', numpySource],
      cellNumbers: [2, 4], findings: [{ finding: dd003(), cellIndex: 1 }], fixed: 0,
    };
    const out = formatText(report([notebook]), { color: false, quiet: true });
    assert.strictEqual(out, 'nb.ipynb:cell 4:2:1: DD003 [*] t_gpu may be on an accelerator; .numpy() needs a CPU tensor\n');
  });

  it('says All checks passed! when clean, and nothing at all with --quiet', () => {
    assert.strictEqual(formatText(report([pythonFile('a.py', 'x = 1\n', [])]), { color: false, quiet: false }), 'All checks passed!\n');
    assert.strictEqual(formatText(report([]), { color: false, quiet: true }), '');
  });

  it('summarizes --fix runs by what was fixed and what remains', () => {
    const fixedFile = { ...pythonFile('a.py', 'x\n', [finding('DD001', 0, 0, 1)]), fixed: 3 };
    assert.strictEqual(summaryLine(report([fixedFile], true)), 'Found 4 findings (3 fixed, 1 remaining).');
    assert.strictEqual(summaryLine(report([{ ...pythonFile('a.py', 'x\n', []), fixed: 1 }], true)), 'Found 1 finding (1 fixed, 0 remaining).');
    assert.strictEqual(summaryLine(report([pythonFile('a.py', 'x\n', [dd003()])], true)), 'Found 1 error.');
  });

  it('colours only when asked', () => {
    const file = pythonFile('train.py', numpySource, [dd003()]);
    const coloured = formatText(report([file]), { color: true, quiet: false });
    assert.match(coloured, /\x1b\[1mtrain\.py\x1b\[0m:2:1: \x1b\[1;31mDD003\x1b\[0m/);
    assert.ok(!formatText(report([file]), { color: false, quiet: false }).includes('\x1b'));
  });
});

describe('cli: JSON format (Ruff shape)', () => {
  it('prints exactly the Ruff fields, in Ruff order, with 1-based locations', () => {
    const [entry] = toRuffJson(report([pythonFile('train.py', numpySource, [dd003()])]));
    assert.deepStrictEqual(entry, {
      cell: null,
      code: 'DD003',
      end_location: { row: 2, column: 14 },
      filename: path.join(cwd, 'train.py'),
      fix: {
        applicability: 'safe',
        edits: [{ content: '.cpu()', end_location: { row: 2, column: 6 }, location: { row: 2, column: 6 } }],
        message: 'Insert .cpu() before .numpy()',
      },
      location: { row: 2, column: 1 },
      message: 't_gpu may be on an accelerator; .numpy() needs a CPU tensor',
      noqa_row: 2,
      url: 'https://github.com/device-doctor/device-doctor/blob/main/docs/rules/DD003.md',
    });
    assert.deepStrictEqual(Object.keys(entry), ['cell', 'code', 'end_location', 'filename', 'fix', 'location', 'message', 'noqa_row', 'url']);
    assert.deepStrictEqual(Object.keys(entry.location), ['column', 'row']);
    assert.deepStrictEqual(Object.keys(entry.fix?.edits[0] ?? {}), ['content', 'end_location', 'location']);
    assert.deepStrictEqual(Object.keys(entry.fix?.edits[0].location ?? {}), ['column', 'row']);
  });

  it('gives fix: null when there is no preferred fix', () => {
    const [entry] = toRuffJson(report([pythonFile('a.py', 'x\n', [finding('DD001', 0, 0, 1)])]));
    assert.strictEqual(entry.fix, null);
  });

  it('gives notebook findings their 1-based cell and cell-local rows, edits included', () => {
    const crossCell = dd003();
    crossCell.fixes[0].edits.push({ range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, newText: '# moved\n', cellIndex: 0 });
    const notebook: LintedFile = {
      path: path.join(cwd, 'nb.ipynb'), displayPath: 'nb.ipynb', sources: ['import torch\n', numpySource],
      cellNumbers: [1, 3], findings: [{ finding: crossCell, cellIndex: 1 }], fixed: 0,
    };
    const [entry] = toRuffJson(report([notebook]));
    assert.strictEqual(entry.cell, 3);
    assert.deepStrictEqual(entry.location, { row: 2, column: 1 });
    assert.deepStrictEqual(entry.fix?.edits.map((e) => e.cell), [3, 1]);
  });

  it('prints [] when nothing is found, and valid JSON always', () => {
    assert.strictEqual(formatJson(report([])), '[]\n');
    const parsed = JSON.parse(formatJson(report([pythonFile('a.py', numpySource, [dd003(), finding('DD004', 0, 0, 5)])])));
    assert.deepStrictEqual(parsed.map((e: { code: string }) => e.code), ['DD004', 'DD003']);
  });
});

describe('cli: SARIF format', () => {
  type Json = any;

  function sarifOf(files: LintedFile[]): Json {
    return toSarif({ files, problems: [{ path: path.join(cwd, 'bad.ipynb'), displayPath: 'bad.ipynb', reason: 'not valid notebook JSON' }], fixMode: false },
      { cwd, version: '9.9.9' });
  }

  it('is a SARIF 2.1.0 log with the tool, its rules and a result per finding', () => {
    const log = sarifOf([pythonFile('src/train.py', numpySource, [dd003()])]);
    assert.strictEqual(log.$schema, SARIF_SCHEMA);
    assert.strictEqual(log.version, '2.1.0');
    assert.strictEqual(log.runs.length, 1);
    const run = log.runs[0];
    assert.strictEqual(run.columnKind, 'unicodeCodePoints');
    assert.strictEqual(run.tool.driver.name, 'device-doctor');
    assert.strictEqual(run.tool.driver.version, '9.9.9');
    assert.match(run.tool.driver.informationUri, /^https:\/\//);
    const ruleIds = run.tool.driver.rules.map((r: Json) => r.id);
    // The implemented rules of the catalogue, in its order (the fixture's finding is one of them).
    assert.deepStrictEqual(ruleIds, RULES.filter((r) => r.implemented).map((r) => r.code));
    for (const rule of run.tool.driver.rules) {
      assert.ok(rule.name && rule.shortDescription.text && rule.helpUri.endsWith(`${rule.id}.md`));
      assert.ok(['error', 'warning', 'note'].includes(rule.defaultConfiguration.level));
    }
    assert.strictEqual(run.originalUriBaseIds['%SRCROOT%'].uri.endsWith('/'), true);
  });

  it('locates results relative to the working folder, with fixes and related locations', () => {
    const result = sarifOf([pythonFile('src/train.py', numpySource, [dd003()])]).runs[0].results[0];
    assert.strictEqual(result.ruleId, 'DD003');
    assert.strictEqual(result.ruleIndex, 2);
    assert.strictEqual(result.level, 'error');
    assert.strictEqual(result.message.text, 't_gpu may be on an accelerator; .numpy() needs a CPU tensor');
    const location = result.locations[0].physicalLocation;
    assert.deepStrictEqual(location.artifactLocation, { uri: 'src/train.py', uriBaseId: '%SRCROOT%' });
    assert.deepStrictEqual(location.region, { startLine: 2, startColumn: 1, endLine: 2, endColumn: 14 });
    assert.strictEqual(result.relatedLocations[0].message.text, 't_gpu moved to "cuda" here');
    assert.deepStrictEqual(result.fixes[0].artifactChanges[0].replacements[0], {
      deletedRegion: { startLine: 2, startColumn: 6, endLine: 2, endColumn: 6 },
      insertedContent: { text: '.cpu()' },
    });
  });

  it('maps severities to SARIF levels and records unreadable files as notifications', () => {
    const log = sarifOf([pythonFile('a.py', 'x\n', [finding('DD004', 0, 0, 1, { severity: 'information' })])]);
    assert.strictEqual(log.runs[0].results[0].level, 'note');
    const notification = log.runs[0].invocations[0].toolExecutionNotifications[0];
    assert.strictEqual(notification.level, 'error');
    assert.match(notification.message.text, /bad\.ipynb: not valid notebook JSON/);
  });

  it('puts notebook cells in properties and leaves out fixes (cell lines are not file lines)', () => {
    const notebook: LintedFile = {
      path: path.join(cwd, 'nb.ipynb'), displayPath: 'nb.ipynb', sources: ['', numpySource],
      cellNumbers: [1, 2], findings: [{ finding: dd003(), cellIndex: 1 }], fixed: 0,
    };
    const result = sarifOf([notebook]).runs[0].results[0];
    assert.deepStrictEqual(result.properties, { cell: 2 });
    assert.strictEqual(result.fixes, undefined);
  });

  it('percent-encodes relative URIs and uses file URIs outside the working folder', () => {
    const spaced = { ...pythonFile('my scripts/a#1.py', 'x\n', [finding('DD001', 0, 0, 1)]) };
    const outside: LintedFile = { ...pythonFile('x.py', 'x\n', [finding('DD001', 0, 0, 1)]), path: path.resolve('/elsewhere/x.py') };
    const results = sarifOf([spaced, outside]).runs[0].results;
    assert.deepStrictEqual(results[0].locations[0].physicalLocation.artifactLocation, { uri: 'my%20scripts/a%231.py', uriBaseId: '%SRCROOT%' });
    assert.strictEqual(results[1].locations[0].physicalLocation.artifactLocation.uri, 'file:///elsewhere/x.py');
  });

  it('prints parseable JSON with an empty results list when clean', () => {
    const log = JSON.parse(formatSarif({ files: [], problems: [], fixMode: false }, { cwd, version: '1' }));
    assert.deepStrictEqual(log.runs[0].results, []);
  });
});

describe('cli: summary with files that could not be checked', () => {
  const problem = { path: path.join(cwd, 'bad.ipynb'), displayPath: 'bad.ipynb', reason: 'not valid notebook JSON' };

  it('never says All checks passed! when a file was not checked', () => {
    const summary = summaryLine({ files: [pythonFile('a.py', 'x\n', [])], problems: [problem], fixMode: false });
    assert.strictEqual(summary, 'No findings in the files checked, but 1 file could not be checked (see the errors above).');
  });

  it('adds the count of unchecked files to the findings summary', () => {
    const summary = summaryLine({ files: [pythonFile('a.py', 'x\n', [finding('DD001', 0, 0, 1)])], problems: [problem, problem], fixMode: false });
    assert.strictEqual(summary, 'Found 1 warning. 2 files could not be checked (see the errors above).');
  });
});
