// Insert Device Selection's text: the get_device() helper parses, in every place it can go.
import * as assert from 'assert';
import { initPythonParser } from '../../src/core/analysis';
import { syntaxErrorCount } from '../../src/core/python/fixCheck';
import { deviceHelperText, importsTorch } from '../../src/core/python/deviceHelper';

const PLAIN = { eol: '\n' as const, hasTorchImport: false, textBeforeOnLine: '', textAfterOnLine: '' };

describe('core: the get_device() helper text', () => {
  before(() => initPythonParser());

  it('parses on its own, and tries CUDA, then MPS with an allocation, then the CPU', () => {
    const text = deviceHelperText(PLAIN);
    assert.strictEqual(syntaxErrorCount(text), 0, text);
    assert.ok(text.startsWith('import torch\n\n\ndef get_device() -> torch.device:\n'));
    const order = ['torch.cuda.is_available()', 'mps.is_available()', 'torch.ones(1, device="mps")', 'return torch.device("cpu")'].map((s) => text.indexOf(s));
    assert.ok(order.every((i, k) => i > 0 && (k === 0 || i > order[k - 1])), `in order: ${order.join(', ')}`);
    assert.ok(text.endsWith('device = get_device()\n'));
  });

  it('parses when inserted at the cursor in the middle of a file, splitting the line there', () => {
    const file = 'import torch\nmodel = Net()  # set up\nx = 1\n';
    const cursor = file.indexOf('model');
    const inserted = deviceHelperText({ ...PLAIN, hasTorchImport: importsTorch(file), textBeforeOnLine: '', textAfterOnLine: 'model = Net()  # set up' });
    const result = file.slice(0, cursor) + inserted + file.slice(cursor);
    assert.strictEqual(syntaxErrorCount(result), 0, result);
    assert.ok(!inserted.includes('import torch'), 'torch was already imported');
    const midLine = file.indexOf('# set up');
    const split = file.slice(0, midLine) + deviceHelperText({ ...PLAIN, hasTorchImport: true, textBeforeOnLine: 'model = Net()  ', textAfterOnLine: '# set up' }) + file.slice(midLine);
    assert.strictEqual(syntaxErrorCount(split), 0, split);
  });

  it('keeps the document\'s CRLF line endings', () => {
    const text = deviceHelperText({ ...PLAIN, eol: '\r\n' });
    assert.ok(!/[^\r]\n/.test(text), 'every line feed follows a carriage return');
    assert.strictEqual(syntaxErrorCount(text), 0);
  });

  it('knows when torch is already imported', () => {
    for (const yes of ['import torch\n', 'import os, torch\n', 'import torch  # gpu\n', 'x = 1\nimport numpy as np, torch\n']) assert.ok(importsTorch(yes), yes);
    for (const no of ['from torch import nn\n', 'import torchvision\n', 'import torch as th\n', '# import torch\n']) assert.ok(!importsTorch(no), no);
  });
});
