// The "Examples the analyzer must get right" of ANALYZER.md, each as a small complete file
// (the same prelude: imports, a Net module, an is_available() device) with the exact
// expected findings and the exact text after applying a finding's preferred fix.
import type { RuleCode } from '../../../src/core/analysis';

export interface ExpectedFinding {
  code: RuleCode;
  /** The first line containing this text is where the finding must start. */
  at: string;
  /** A variable the message must name. */
  names: string;
  /** The whole file after applying this finding's preferred fix alone. */
  fixed: string;
}

export interface SpecExample {
  title: string;
  source: string;
  expected: ExpectedFinding[];
}

export const PRELUDE = `import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(10, 2)

    def forward(self, x):
        return self.fc(x)


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
`;

function file(body: string): string {
  return PRELUDE + body;
}

/** `source` with exactly one occurrence of `from` replaced; throws if it is not unique. */
function edited(source: string, from: string, to: string): string {
  const first = source.indexOf(from);
  if (first < 0 || source.indexOf(from, first + 1) >= 0) throw new Error(`"${from}" must occur exactly once`);
  return source.slice(0, first) + to + source.slice(first + from.length);
}

const mismatch = file(`model = Net().to(device)
x = torch.randn(4, 10)
model(x)
`);

const loop = file(`model = Net().to(device)
loss_fn = nn.CrossEntropyLoss()
train_loader = DataLoader(TensorDataset(torch.randn(64, 10), torch.randint(0, 2, (64,))), batch_size=16)
for xb, yb in train_loader:
    loss = loss_fn(model(xb), yb)
`);

const numpyOnGpu = file(`t_gpu = torch.tensor([1.0, 2.0]).to("cuda")
t_gpu.numpy()
`);

const gradOnCpu = file(`model = Net()
X = torch.randn(4, 10)
pred = model(X)
pred.numpy()
`);

const gradOnGpu = file(`model = Net().to(device)
X = torch.randn(4, 10, device=device)
pred = model(X)
pred.numpy()
`);

const discardedTensorMove = file(`x = torch.randn(4, 10)
x.to(device)
`);

export const SPEC_EXAMPLES: readonly SpecExample[] = [
  {
    title: 'model(x) with x from torch.randn and the model on device: DD001, device= added to the factory',
    source: mismatch,
    expected: [{ code: 'DD001', at: 'model(x)', names: 'x',
      fixed: edited(mismatch, 'torch.randn(4, 10)', 'torch.randn(4, 10, device=device)') }],
  },
  {
    title: 'a train_loader loop feeding a model on device without moving the batches: DD002, one move line inserted',
    source: loop,
    expected: [{ code: 'DD002', at: 'for xb, yb in train_loader:', names: 'xb',
      fixed: edited(loop, 'in train_loader:\n', 'in train_loader:\n    xb, yb = xb.to(device), yb.to(device)\n') }],
  },
  {
    title: 't_gpu.numpy() on a tensor moved with .to("cuda"): DD003, .cpu() inserted',
    source: numpyOnGpu,
    expected: [{ code: 'DD003', at: 't_gpu.numpy()', names: 't_gpu',
      fixed: edited(numpyOnGpu, 't_gpu.numpy()', 't_gpu.cpu().numpy()') }],
  },
  {
    title: 'pred.numpy() on a CPU model output outside no_grad: DD010 alone, .detach() inserted',
    source: gradOnCpu,
    expected: [{ code: 'DD010', at: 'pred.numpy()', names: 'pred',
      fixed: edited(gradOnCpu, 'pred.numpy()', 'pred.detach().numpy()') }],
  },
  {
    title: 'pred.numpy() on an accelerator model output: DD003 and DD010, both fixed by .detach().cpu()',
    source: gradOnGpu,
    expected: [
      { code: 'DD003', at: 'pred.numpy()', names: 'pred', fixed: edited(gradOnGpu, 'pred.numpy()', 'pred.detach().cpu().numpy()') },
      { code: 'DD010', at: 'pred.numpy()', names: 'pred', fixed: edited(gradOnGpu, 'pred.numpy()', 'pred.detach().cpu().numpy()') },
    ],
  },
  {
    title: 'x.to(device) as a statement on a tensor: DD004, the result assigned back',
    source: discardedTensorMove,
    expected: [{ code: 'DD004', at: 'x.to(device)', names: 'x',
      fixed: edited(discardedTensorMove, '\nx.to(device)', '\nx = x.to(device)') }],
  },
  {
    title: 'model.to(device) as a statement: fine, modules move in place',
    source: file(`model = Net()
model.to(device)
`),
    expected: [],
  },
  {
    title: 'out = out.cpu() before out[0].detach().numpy(): fine',
    source: file(`model = Net().to(device)
input = torch.randn(4, 10, device=device)
out = model(input)
out = out.cpu()
out[0].detach().numpy()
`),
    expected: [],
  },
  {
    title: 'model(x.to(device)).cpu().numpy() under torch.no_grad(): fine',
    source: file(`model = Net().to(device)
x = torch.randn(4, 10)
with torch.no_grad():
    y = model(x.to(device)).cpu().numpy()
`),
    expected: [],
  },
];
