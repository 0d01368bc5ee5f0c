// Insert Device Selection's text: the get_device() helper parses, in every place it can go.
import * as assert from 'assert';
import { initPythonParser } from '../../src/core/analysis';
import { syntaxErrorCount } from '../../src/core/python/fixCheck';
import { deviceHelperText, findDeviceChoice, importsTorch } from '../../src/core/python/deviceHelper';
import { deviceChoicePrompt, GO_TO, INSERT_ANYWAY, REPLACE } from '../../src/vscode/devices/deviceChoicePrompt';

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

  it('keeps PEP 8\'s two blank lines before the def, counting the blank lines already above the cursor (issue 28 item 5)', () => {
    for (const above of [['import torch'], ['import torch', ''], ['import torch', '', '']]) {
      const file = `${above.join('\n')}\n`;
      const result = file + deviceHelperText({ ...PLAIN, hasTorchImport: true, linesAbove: above });
      assert.match(result, /^import torch\n\n\ndef get_device/, JSON.stringify(result));
    }
    const midLine = deviceHelperText({ ...PLAIN, hasTorchImport: true, textBeforeOnLine: 'x = 1  ', textAfterOnLine: '' });
    assert.ok(midLine.startsWith('\n\n\ndef get_device'), JSON.stringify(midLine));
  });

  it('finds the device = … the file already has, and whether the helper can replace it', () => {
    const file = 'import torch\n\nself.device = 1\nif device == "cpu":\n    pass\ndevice = torch.device("cuda" if torch.cuda.is_available() else "cpu")\nx = 1\n';
    assert.deepStrictEqual(findDeviceChoice(file), { line: 5, text: 'device = torch.device("cuda" if torch.cuda.is_available() else "cpu")', replaceable: true });
    assert.strictEqual(findDeviceChoice('def f():\n    device = "cuda"\n')!.replaceable, false, 'inside a block');
    assert.strictEqual(findDeviceChoice('device = torch.device(\n    "cuda")\n')!.replaceable, false, 'across lines');
    assert.strictEqual(findDeviceChoice('import torch\nmodel = 1\n'), undefined);
  });

  it('says where the existing choice is and offers to replace it, or to go there', () => {
    const replaceable = deviceChoicePrompt({ line: 5, text: 'device = "cuda"', replaceable: true });
    assert.match(replaceable.message, /already chooses its device on line 6: device = "cuda"\. Replace it with get_device\(\)\?/);
    assert.deepStrictEqual(replaceable.actions, [REPLACE, GO_TO]);
    assert.deepStrictEqual(deviceChoicePrompt({ line: 1, text: 'device = "cuda"', replaceable: false }).actions, [GO_TO, INSERT_ANYWAY]);
  });

  it('replacing the choice leaves one device = … that parses', () => {
    const file = 'import torch\nimport os\ndevice = "cuda"\nmodel = torch.nn.Linear(2, 2).to(device)\n';
    const choice = findDeviceChoice(file)!;
    const lines = file.split('\n');
    const helper = deviceHelperText({ ...PLAIN, hasTorchImport: true, linesAbove: lines.slice(0, choice.line) });
    const result = [...lines.slice(0, choice.line), ''].join('\n') + helper + lines.slice(choice.line + 1).join('\n');
    assert.strictEqual(syntaxErrorCount(result), 0, result);
    assert.strictEqual(result.match(/^device = /gm)!.length, 1, result);
    assert.match(result, /import os\n\n\ndef get_device[\s\S]*\n\n\ndevice = get_device\(\)\nmodel = /);
  });
});
