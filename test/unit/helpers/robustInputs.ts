// Hostile inputs for the analyzer: seeded garbage, Python-flavoured token soup, mutations
// of real fixtures, and pathologically deep nesting.
import { SeededRandom } from './prng';

const TOKENS = [
  'import torch', 'import torch as t', 'from torch import nn', 'import torch.nn.functional as F',
  'device', '=', '(', ')', '[', ']', '{', '}', ':', ',', '.', '+', '*', '@', '==', '->', '**',
  '.to(device)', '.cuda()', '.cpu()', '.numpy()', '.detach()', 'torch.randn(3, 4)', 'torch.tensor(2.0)',
  'model(', 'model = Net().to(device)', 'for x, y in loader:', 'for i, (x, y) in enumerate(train_loader):',
  'with torch.no_grad():', '@torch.no_grad()', 'def f(model, device):', 'class Net(nn.Module):',
  'self.', 'self.model', 'return', 'yield', 'lambda x:', 'async', 'await', 'if', 'else:', 'elif', 'try:',
  'except Exception:', 'finally:', 'global', 'nonlocal', '*args', '**kwargs', '"unterminated', "'''", 'f"{x', '#',
  '\\', '\n', '\n    ', '\n        ', '\t', '\r\n', ' ', ' ', 'x', 'y', 'loss', 'np.array(', '%matplotlib', '!pip',
];

export function randomCodePoints(rng: SeededRandom, maxLength: number): string {
  const length = rng.int(maxLength);
  let out = '';
  for (let i = 0; i < length; i++) {
    const kind = rng.int(4);
    // Lone surrogates, controls and NUL included on purpose: editors send them too.
    const code = kind === 0 ? rng.int(128) : kind === 1 ? rng.int(0x10000) : kind === 2 ? 0xd800 + rng.int(0x800) : rng.int(0x110000);
    out += code > 0xffff ? String.fromCodePoint(code) : String.fromCharCode(code);
  }
  return out;
}

export function tokenSoup(rng: SeededRandom, tokens: number): string {
  let out = '';
  for (let i = 0; i < tokens; i++) out += rng.pick(TOKENS) + (rng.int(3) === 0 ? ' ' : '');
  return out;
}

/** Deletes, duplicates or replaces a few random spans of `source`. */
export function mutate(rng: SeededRandom, source: string, edits: number): string {
  let text = source;
  for (let i = 0; i < edits; i++) {
    const at = rng.int(text.length + 1);
    const span = rng.int(20);
    const op = rng.int(3);
    if (op === 0) text = text.slice(0, at) + text.slice(at + span);
    else if (op === 1) text = text.slice(0, at) + text.slice(at, at + span) + text.slice(at);
    else text = text.slice(0, at) + rng.pick(TOKENS) + text.slice(at + span);
  }
  return text;
}

const PRELUDE = 'import torch\nt_gpu = torch.ones(3).cuda()\n';

export const DEEP_INPUTS: ReadonlyArray<{ name: string; source: () => string }> = [
  { name: '2,000 nested parentheses', source: () => `${PRELUDE}x = ${'('.repeat(2000)}t_gpu${')'.repeat(2000)}\nx.numpy()\n` },
  { name: '2,000 nested lists', source: () => `${PRELUDE}x = ${'['.repeat(2000)}1${']'.repeat(2000)}\n` },
  { name: '2,000 nested calls', source: () => `${PRELUDE}x = ${'torch.relu('.repeat(2000)}t_gpu${')'.repeat(2000)}\nx.numpy()\n` },
  { name: '500 nested ifs', source: () => PRELUDE + Array.from({ length: 500 }, (_, i) => `${'    '.repeat(i)}if t_gpu.sum() > ${i}:\n`).join('') + `${'    '.repeat(500)}t_gpu.numpy()\n` },
  { name: '200 nested function definitions', source: () => PRELUDE + Array.from({ length: 200 }, (_, i) => `${'    '.repeat(i)}def f${i}(model, device):\n`).join('') + `${'    '.repeat(200)}return model(torch.randn(2).to(device))\n` },
  { name: 'a 10,000-term binary expression', source: () => `${PRELUDE}x = ${Array(10000).fill('t_gpu').join(' + ')}\nx.numpy()\n` },
  { name: 'a 3,000-call method chain', source: () => `${PRELUDE}x = t_gpu${'.to(device)'.repeat(3000)}.numpy()\n` },
  { name: 'a 200,000-character line', source: () => `${PRELUDE}s = "${'é🔥'.repeat(66000)}"; t_gpu.numpy()\n` },
  { name: '5,000 elif branches', source: () => `${PRELUDE}if t_gpu.sum() > 0:\n    x = t_gpu\n` + Array.from({ length: 5000 }, (_, i) => `elif t_gpu.sum() > ${i}:\n    x = t_gpu.cpu()\n`).join('') + 'x.numpy()\n' },
];
