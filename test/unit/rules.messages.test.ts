// Messages and related locations name where a value really came from, step by step
// (issue 11): a model's output comes from the model call, and the model from its move.
import { strict as assert } from 'assert';
import { initPythonParser } from '../../src/core/analysis';
import type { Finding } from '../../src/core/analysis';
import { coreFindings } from './helpers/analysis';

/** [1-based line, message] of each related location. */
function related(f: Finding): Array<[number, string]> {
  return f.related.map((r) => [r.range.start.line + 1, r.message]);
}

const HEAD = [
  'import torch',
  'import torch.nn as nn',
  'from torch.utils.data import DataLoader',
  '',
  'device = torch.device("cuda" if torch.cuda.is_available() else "cpu")',
  'model = nn.Linear(4, 2).to(device)',
];

describe('rule messages: where a value came from', () => {
  before(async () => {
    await initPythonParser();
  });

  it('DD003 on a model output names the model call and the move, each with its line', () => {
    const source = [...HEAD, 'x = torch.randn(3, 4).to(device)', 'logits = model(x)', 'probs = logits.softmax(dim=1)', 'print(probs.detach().numpy())', ''].join('\n');
    const [f] = coreFindings(source).filter((x) => x.code === 'DD003');
    assert.ok(f, 'DD003 expected');
    assert.match(f.message, /^With a GPU: `\.numpy\(\)` on `probs\.detach\(\)`, which is on the GPU; call `\.cpu\(\)` first\. /);
    assert.ok(f.message.includes('`probs.detach()` is on an accelerator (computed by `model(…)` on line 8; `model` moved to device on line 6)'), f.message);
    assert.deepEqual(related(f), [[8, '`probs.detach()` computed by `model(…)` here'], [6, '`model` moved to device here']]);
  });

  it('DD001 on a CPU tensor indexed by GPU indices quotes the indexing error, not the operands one', () => {
    const source = [...HEAD, 'labels = torch.randint(0, 4, (3,)).to(device)', 'table = torch.eye(4)', 'one_hot = table[labels]', 'summed = table + labels', ''].join('\n');
    const found = coreFindings(source).filter((x) => x.code === 'DD001');
    const indexed = found.find((f) => f.range.start.line + 1 === 9);
    const added = found.find((f) => f.range.start.line + 1 === 10);
    assert.ok(indexed && added, found.map((f) => `${f.range.start.line + 1}: ${f.message}`).join('\n'));
    assert.ok(indexed.message.endsWith('PyTorch raises "indices should be either on cpu or on the same device as the indexed tensor (cpu)".'), indexed.message);
    assert.ok(added.message.endsWith('PyTorch raises "Expected all tensors to be on the same device".'), added.message);
  });

  it('DD002 names the model output a batch meets, the model call and the move', () => {
    const source = [...HEAD, 'loss_fn = nn.CrossEntropyLoss()', 'for xb, yb in DataLoader([]):', '    xb = xb.to(device)', '    outputs = model(xb)', '    loss = loss_fn(outputs, yb)', ''].join('\n');
    const [f] = coreFindings(source).filter((x) => x.code === 'DD002');
    assert.ok(f, 'DD002 expected');
    assert.match(f.message, /^With a GPU: Batch `yb` is never moved; move it to `outputs`'s device\. Batches from `DataLoader\(\[\]\)` reach `outputs`, which is on an accelerator \(computed by `model\(…\)` on line 10; `model` moved to device on line 6\), but `yb` is never moved/);
    assert.deepEqual(related(f), [[10, '`outputs` computed by `model(…)` here'], [6, '`model` moved to device here'], [11, 'batch reaches `outputs` here']]);
  });

  it('DD001 at a call names the helper, the line inside it and where the model was created', () => {
    const source = [
      ...HEAD.slice(0, 5), 'net = nn.Linear(4, 2)', '', 'def run(m, xs):', '    return m(xs.to(device))', '', 'run(net, torch.randn(2, 4))', '',
    ].join('\n');
    const [f] = coreFindings(source).filter((x) => x.code === 'DD001');
    assert.ok(f, 'DD001 expected');
    assert.equal(f.range.start.line + 1, 11);
    assert.match(f.message, /^With a GPU: `net` is on the CPU, but `run\(\)` calls it with GPU inputs; move it there\. `net` was never moved, and `run\(\)` calls it with `xs\.to\(device\)` \(line 9\), which is on an accelerator \(moved to device on line 9\)/);
    assert.deepEqual(related(f), [[9, '`net` is called with `xs.to(device)` here, inside `run()`'], [9, '`xs.to(device)` moved to device here'], [6, '`net` created on the CPU here']]);
  });
  it('DD003 on a model-parallel output names the model call, the stage forward returns and that stage\'s move', () => {
    const source = [
      'import torch', 'import torch.nn as nn', '', '', 'class Split(nn.Module):', '    def __init__(self):', '        super().__init__()',
      '        self.a = nn.Linear(4, 4).to("cuda:0")', '        self.b = nn.Linear(4, 2).to("cuda:1")', '',
      '    def forward(self, x):', '        return self.b(self.a(x.to("cuda:0")).to("cuda:1"))', '', '',
      'net = Split()', 'with torch.no_grad():', '    y = net(torch.randn(3, 4))', 'print(y.numpy())', '',
    ].join('\n');
    const [f] = coreFindings(source).filter((x) => x.code === 'DD003');
    assert.ok(f, 'DD003 expected');
    assert.equal(f.range.start.line + 1, 18);
    assert.match(f.message, /^`\.numpy\(\)` on `y`, which is on the GPU; call `\.cpu\(\)` first\. `y` is on an accelerator \(computed by `net\(…\)` on line 17; `net`'s forward returns what was computed by `self\.b\(…\)` on line 12; `self\.b` moved to "cuda:1" on line 9\)/);
    assert.deepEqual(related(f), [
      [17, '`y` computed by `net(…)` here'], [12, '`net`\'s forward returns what was computed by `self.b(…)` here'], [9, '`self.b` moved to "cuda:1" here'],
    ]);
  });
  it('an int device (local_rank from int(), a parameter annotated int) is an accelerator, not "maybe" one', () => {
    const source = [
      'import os', 'import torch', 'import torch.nn as nn', '',
      'def evaluate(rank: int):', '    head = nn.Linear(8, 2).to(rank)', '    probe = torch.randn(4, 8)', '    return head(probe)', '',
      'local_rank = int(os.environ["LOCAL_RANK"])', 'net = nn.Linear(8, 2).to(local_rank)', 'features = torch.randn(4, 8)', 'scores = net(features)', '',
    ].join('\n');
    const messages = coreFindings(source).filter((x) => x.code === 'DD001').map((f) => f.message);
    assert.equal(messages.length, 2, messages.join('\n'));
    for (const m of messages) {
      assert.ok(m.includes('is on an accelerator (moved to'), m);
      assert.ok(!m.includes('may be'), m);
    }
  });

  it('a test of how PyTorch was built (torch.version.cuda) is no device flag of the program: no "With `torch.version.cuda` true"', () => {
    const source = ['import torch', '', 'x = torch.ones(3)', 'if torch.version.cuda:', '    x = x.cuda()', 'print(x.numpy())', ''].join('\n');
    const [f] = coreFindings(source).filter((x) => x.code === 'DD003');
    assert.ok(f, 'DD003 expected');
    assert.ok(!f.message.includes('torch.version'), f.message);
    assert.match(f.message, /^`\.numpy\(\)` on `x`, which may be on the GPU/);
  });

  it('a model that a move put on the CPU is not "never moved": the message names the move', () => {
    const source = [
      'import argparse', 'import torch', 'import torch.nn as nn', '',
      'parser = argparse.ArgumentParser()', 'parser.add_argument("--use-gpu", action="store_true")', 'opt = parser.parse_args()',
      'device = torch.device("cuda") if opt.use_gpu else torch.device("cpu")',
      'model = nn.Linear(4, 4)', 'model.to(device)', 'mask = torch.ones(2, 4)', 'print(model(mask.cuda()))', '',
    ].join('\n');
    const [f] = coreFindings(source).filter((x) => x.code === 'DD001');
    assert.ok(f, 'DD001 expected');
    assert.ok(!f.message.includes('never moved'), f.message);
    assert.ok(f.message.includes('`model` was moved to device on line 10, which is the CPU here'), f.message);
  });
});
