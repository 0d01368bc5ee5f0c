// Issue 17's rule registry: only enabled rules run (and the rules they hear from), a generic finding gives way to an
// enabled refining rule on the same operand (and only then), the rule tables of the
// documents are the catalogue's, and rules and engine stay on their side of ruleApi.ts.
import { strict as assert } from 'assert';
import { readdirSync, readFileSync } from 'fs';
import { join, relative } from 'path';
import { analyzeSource, initPythonParser } from '../../src/core/analysis';
import { RULES, type RuleCode } from '../../src/core/analysis/catalog';
import { parsePython } from '../../src/core/python/parser';
import { NodeRegistry } from '../../src/core/python/pyNode';
import { Program } from '../../src/core/analysis/program';
import { RuleDispatcher } from '../../src/core/analysis/ruleDispatcher';
import { RULE_REGISTRY, type RegisteredRule } from '../../src/core/analysis/rules';
import { withRuleTable } from '../../src/core/analysis/ruleTable';
import { RULE_TABLE_DOCUMENTS } from '../../scripts/rule-tables';

const ROOT = join(__dirname, '..', '..');
const DD017_FIXTURE = join(ROOT, 'test/fixtures/rules/DD017/fire/weighted_criterion_built_on_cpu.py');
const DD002_FIXTURE = join(ROOT, 'test/fixtures/rules/DD002/fire/basic_train_loop.py');

function codes(source: string, options: { select?: string[]; ignore?: string[] }): string[] {
  return analyzeSource(source, options).map((f) => f.code);
}

describe('rule registry', () => {
  before(async () => {
    await initPythonParser();
  });

  it('has one factory per catalogue code, in catalogue order', () => {
    assert.deepEqual(RULE_REGISTRY.map((r) => r.code), RULES.map((r) => r.code));
    for (const r of RULE_REGISTRY) assert.equal(typeof r.factory, 'function', r.code);
  });

  it('a DD017 mismatch is reported as DD017 by default, and as DD001 under --select DD001 or --ignore DD017', () => {
    const source = readFileSync(DD017_FIXTURE, 'utf8');
    const all = codes(source, {});
    assert.ok(all.includes('DD017'), `DD017 expected, got ${all}`);
    assert.ok(!all.includes('DD001'), `DD001 must give way to DD017, got ${all}`);
    assert.ok(codes(source, { select: ['DD001'] }).includes('DD001'), 'select DD001 reports the mismatch');
    const ignored = codes(source, { ignore: ['DD017'] });
    assert.ok(ignored.includes('DD001') && !ignored.includes('DD017'), `ignore DD017 reports DD001 instead, got ${ignored}`);
  });

  it('never calls a disabled rule\'s factory, nor any factory in a muted round', () => {
    const called: string[] = [];
    const spy = (code: RuleCode): RegisteredRule => ({ ...RULES.find((r) => r.code === code)!, factory: () => { called.push(code); return {}; } });
    const registry = [spy('DD001'), spy('DD003'), spy('DD017')];
    const source = 'import torch\nx = torch.zeros(2)\n';
    const tree = parsePython(source);
    try {
      const root = new NodeRegistry().root(tree, source);
      const program = new Program([{ index: 0, module: 0, root, source, lines: source.split('\n'), eol: '\n' }], false);
      new RuleDispatcher(program, false, new Set<RuleCode>(['DD001', 'DD003', 'DD017']), undefined, registry);
      assert.deepEqual(called, [], 'muted round');
      new RuleDispatcher(program, true, new Set<RuleCode>(['DD003']), undefined, registry);
      assert.deepEqual(called, ['DD003']);
    } finally {
      tree.delete();
    }
  });

  it('a rule another enabled rule hears from runs with it and reports nothing of its own: --select DD002 needs DD001\'s analysis', () => {
    const source = readFileSync(DD002_FIXTURE, 'utf8');
    assert.deepEqual(codes(source, { select: ['DD002'] }), ['DD002']);
    assert.deepEqual(codes(source, { ignore: ['DD001'] }).filter((c) => c === 'DD001' || c === 'DD002'), ['DD002']);
    const called: string[] = [];
    const spy = (code: RuleCode): RegisteredRule => ({ ...RULES.find((r) => r.code === code)!, factory: () => { called.push(code); return {}; } });
    const tree = parsePython(source);
    try {
      const root = new NodeRegistry().root(tree, source);
      const program = new Program([{ index: 0, module: 0, root, source, lines: source.split('\n'), eol: '\n' }], false);
      new RuleDispatcher(program, true, new Set<RuleCode>(['DD002']), undefined, [spy('DD001'), spy('DD002'), spy('DD003')]);
      assert.deepEqual(called, ['DD001', 'DD002']);
    } finally {
      tree.delete();
    }
  });

  it('the rule tables of README.md and docs/rules/README.md are the catalogue\'s (npm run rule-tables rewrites them)', () => {
    for (const doc of RULE_TABLE_DOCUMENTS) {
      const text = readFileSync(join(ROOT, doc.path), 'utf8');
      const generated = withRuleTable(text, doc.docsPrefix);
      assert.ok(generated !== undefined, `${doc.path} has the rule-table markers`);
      assert.equal(text, generated, `${doc.path}'s rule table differs from the catalogue: run npm run rule-tables`);
    }
  });
});

/** Relative imports of a TypeScript file, resolved to paths under src/. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const out: string[] = [];
  for (const m of text.matchAll(/(?:import|export)\s[^;]*?from\s+'(\.[^']+)'/g)) out.push(relative(join(ROOT, 'src'), join(file, '..', m[1])));
  return out;
}

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? tsFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));
}

describe('analysis boundaries: rules see a read-only context', () => {
  const ANALYSIS = join(ROOT, 'src/core/analysis');
  /** What a rule may import from the analysis: the rule API, value types and queries, the declarative torch model, fix and finding types. */
  const RULE_MAY_IMPORT = new Set(['ruleApi', 'values', 'torchApi', 'fixes', 'types', 'catalog'].map((m) => `core/analysis/${m}`));

  it('no file under rules/ imports engine internals (frame, program, meetings, the interpreter, …)', () => {
    const offending: string[] = [];
    for (const file of tsFiles(join(ANALYSIS, 'rules'))) {
      for (const target of importsOf(file)) {
        if (target.startsWith('core/python/') || target.startsWith('core/analysis/rules/')) continue;
        if (!RULE_MAY_IMPORT.has(target)) offending.push(`${relative(ROOT, file)} → ${target}`);
      }
    }
    assert.deepEqual(offending, []);
  });

  it('the engine imports nothing from rules/ (only the dispatcher, which runs them, does)', () => {
    const offending: string[] = [];
    for (const file of tsFiles(ANALYSIS).filter((f) => !f.includes(`${join('analysis', 'rules')}`))) {
      if (file.endsWith('ruleDispatcher.ts')) continue;
      for (const target of importsOf(file)) if (target.startsWith('core/analysis/rules')) offending.push(`${relative(ROOT, file)} → ${target}`);
    }
    assert.deepEqual(offending, []);
  });
});
