// docs/rules: one page per rule, in step with the catalog; for implemented rules the page's
// example really fires and its "Fixed" code is exactly what the preferred quick fix produces.
import { strict as assert } from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import { initPythonParser, ruleDocsUrl, RULES } from '../../src/core/analysis';
import { coreFindings, formatFindings, offersNoFix } from './helpers/analysis';
import { firstSyntaxError, fixAll } from './helpers/fixes';

const DOCS_DIR = path.resolve(__dirname, '..', '..', 'docs', 'rules');
const SECTIONS = ['## What it finds', '## Why it matters', '## Example', '## Fixed', '## When it stays silent', '## Suppressing'];

/** The real messages users see, which the pages must quote. */
const PYTORCH_ERRORS: Record<string, string> = {
  DD001: 'RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!',
  DD002: 'RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!',
  DD003: "TypeError: can't convert cuda:0 device type tensor to numpy. Use Tensor.cpu() to copy the tensor to host memory first.",
  DD010: "RuntimeError: Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.",
};

function page(code: string): string {
  return fs.readFileSync(path.join(DOCS_DIR, `${code}.md`), 'utf8');
}

/** The first ```python block after `heading`. */
function codeAfter(markdown: string, heading: string): string {
  const at = markdown.indexOf(`${heading}\n`);
  assert.ok(at >= 0, `no "${heading}" section`);
  const block = /```python\n([\s\S]*?)```/.exec(markdown.slice(at));
  assert.ok(block, `no python block after "${heading}"`);
  return block[1];
}

describe('rule documentation (docs/rules)', () => {
  before(async () => {
    await initPythonParser();
  });

  for (const rule of RULES) {
    describe(`${rule.code} ${rule.name}`, () => {
      it('has a page in step with the catalog, with every section and a noqa example', () => {
        assert.ok(ruleDocsUrl(rule.code).endsWith(`docs/rules/${rule.code}.md`));
        const md = page(rule.code);
        assert.equal(md.split('\n')[0], `# ${rule.code} ${rule.name}`);
        const status = rule.implemented ? 'implemented' : 'planned';
        assert.ok(md.includes(`Default severity: \`${rule.severity}\` · Status: ${status}`), 'severity/status line');
        assert.equal(md.includes('Status: planned'), !rule.implemented);
        for (const section of SECTIONS) assert.ok(md.includes(`${section}\n`), `missing ${section}`);
        assert.ok(md.includes(`# noqa: ${rule.code}`), 'shows the noqa comment');
        if (PYTORCH_ERRORS[rule.code]) assert.ok(md.includes(PYTORCH_ERRORS[rule.code]), 'quotes the PyTorch error');
      });

      it('has example and fixed code that parse', () => {
        const md = page(rule.code);
        assert.equal(firstSyntaxError(codeAfter(md, '## Example')), undefined);
        assert.equal(firstSyntaxError(codeAfter(md, '## Fixed')), undefined);
      });

      if (rule.implemented) {
        it('its example fires the rule, and the preferred fixes (or, for a rule without one, the hand-written change) give the "Fixed" code', () => {
          const md = page(rule.code);
          const example = codeAfter(md, '## Example');
          const findings = coreFindings(example);
          assert.ok(findings.some((f) => f.code === rule.code), `example does not fire ${rule.code}:\n${formatFindings(findings)}`);
          // A rule without a fix shows the change by hand: the "Fixed" code must be clean.
          if (offersNoFix(rule.code)) {
            assert.deepEqual(coreFindings(codeAfter(md, '## Fixed')).filter((f) => f.code === rule.code), []);
            return;
          }
          // The page shows its own rule: an example that moves its model with "cuda" also
          // hard-codes CUDA (DD005), which that rule's page shows. Other rules may not gain findings.
          const own = (text: string) => coreFindings(text).filter((f) => f.code === rule.code);
          const fixed = fixAll(example, own);
          assert.equal(fixed.text, codeAfter(md, '## Fixed'));
          assert.deepEqual(own(fixed.text), []);
          assert.ok(coreFindings(fixed.text).length <= findings.length - findings.filter((f) => f.code === rule.code).length,
            `the fix adds findings of other rules:\n${formatFindings(coreFindings(fixed.text))}`);
        });
      }
    });
  }

  it('has an index linking every implemented rule with its name and severity', () => {
    const index = fs.readFileSync(path.join(DOCS_DIR, 'README.md'), 'utf8');
    for (const rule of RULES.filter((r) => r.implemented)) {
      const row = index.split('\n').find((l) => l.startsWith(`| [${rule.code}](${rule.code}.md) |`));
      assert.ok(row, `no row for ${rule.code}`);
      const cells = row.split('|').map((c) => c.trim());
      assert.deepEqual(cells.slice(2, 4), [rule.name, rule.severity]);
    }
  });
});
