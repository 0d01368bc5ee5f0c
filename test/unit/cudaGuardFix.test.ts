// DD011's fix guards every later read of what the guarded statement binds, or is not offered
// (issue 28 item 1). The process test test/process/fixesRunOnCpuTorch.test.ts runs the results.
import { strict as assert } from 'assert';
import { initPythonParser } from '../../src/core/analysis';
import type { Finding } from '../../src/core/analysis';
import { coreCellFindings, coreFindings } from './helpers/analysis';
import { applyFix } from './helpers/fixes';

const HEAD = 'import torch\n\ndevice = "cuda" if torch.cuda.is_available() else "cpu"\n';

function dd011(source: string): Finding[] {
  return coreFindings(source).filter((f) => f.code === 'DD011');
}

function fixed(source: string): string {
  const [finding] = dd011(source);
  assert.ok(finding, `no DD011 in:\n${source}`);
  assert.equal(finding.fixes.length, 1, `expected one fix on:\n${source}`);
  return applyFix(source, finding.fixes[0]);
}

describe('DD011 fix: later reads of the guarded name stay working on a CPU', () => {
  before(async () => {
    await initPythonParser();
  });

  it('the print on the next line is guarded with the assignment (the issue\'s UnboundLocalError)', () => {
    const source = `${HEAD}peak = torch.cuda.max_memory_allocated() / 2**20\nprint(peak)\nprint("done")\n`;
    assert.equal(fixed(source),
      `${HEAD}if torch.cuda.is_available():\n    peak = torch.cuda.max_memory_allocated() / 2**20\n    print(peak)\nprint("done")\n`);
    assert.match(dd011(source)[0].fixes[0].title, /with the later statement that uses peak$/);
  });

  it('a read in a later loop is guarded inside the loop, so the loop still runs on a CPU', () => {
    const source = `${HEAD}used = torch.cuda.memory_allocated()\nfor step in range(3):\n    train(step)\n    log(step, used)\n`;
    assert.equal(fixed(source),
      `${HEAD}if torch.cuda.is_available():\n    used = torch.cuda.memory_allocated()\nfor step in range(3):\n    train(step)\n` +
      '    if torch.cuda.is_available():\n        log(step, used)\n');
  });

  it('a name read through another name it feeds is followed (name → banner → print)', () => {
    const source = `${HEAD}name = torch.cuda.get_device_name(0)\nbanner = "GPU: " + name\nwork()\nprint(banner)\n`;
    assert.equal(fixed(source),
      `${HEAD}if torch.cuda.is_available():\n    name = torch.cuda.get_device_name(0)\n    banner = "GPU: " + name\nwork()\n` +
      'if torch.cuda.is_available():\n    print(banner)\n');
  });

  it('a read already inside if torch.cuda.is_available(): is left as it is', () => {
    const source = `${HEAD}peak = torch.cuda.max_memory_allocated()\nif torch.cuda.is_available():\n    print(peak)\n`;
    assert.equal(fixed(source),
      `${HEAD}if torch.cuda.is_available():\n    peak = torch.cuda.max_memory_allocated()\nif torch.cuda.is_available():\n    print(peak)\n`);
  });

  for (const [why, source] of [
    ['the value is returned', `${HEAD}def peak():\n    value = torch.cuda.max_memory_allocated()\n    return value\n`],
    ['a function defined earlier reads it', `${HEAD}def report():\n    print(peak)\n\n\npeak = torch.cuda.max_memory_allocated()\nreport()\n`],
    ['the loop reads it before the assignment on its next turn', `${HEAD}last = 0\nfor i in range(3):\n    print(last)\n    last = torch.cuda.memory_allocated()\n`],
    ['another method reads the attribute', `${HEAD}class T:\n    def end(self):\n        self.peak = torch.cuda.max_memory_allocated()\n\n    def show(self):\n        print(self.peak)\n`],
  ] as const) {
    it(`no fix when ${why}`, () => {
      const [finding] = dd011(source);
      assert.ok(finding, `no DD011 in:\n${source}`);
      assert.deepEqual(finding.fixes, []);
    });
  }

  it('no fix when a later notebook cell reads the name', () => {
    const found = coreCellFindings([HEAD, 'peak = torch.cuda.max_memory_allocated()\n', 'print(peak)\n']).filter((c) => c.finding.code === 'DD011');
    assert.equal(found.length, 1);
    assert.deepEqual(found[0].finding.fixes, []);
  });

  it('two dependent calls: both fixes insert at the same place, so fix-all applies the second in its next pass', () => {
    const source = `${HEAD}index = torch.cuda.current_device()\nname = torch.cuda.get_device_name(index)\nprint(name)\n`;
    const [first, second] = dd011(source);
    const line = 4;
    const firstAt = first.fixes[0].edits.find((e) => e.range.start.line === line)!.range.start;
    const secondAt = second.fixes[0].edits.find((e) => e.range.start.line === line)!.range.start;
    assert.deepEqual(firstAt, secondAt);
  });
});
