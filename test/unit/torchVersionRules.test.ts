// Checks and fixes that know the interpreter's PyTorch (AnalyzeOptions.torchVersion): from
// 2.6, torch.load of a pickled model or Namespace fails under weights_only=True (DD013), and
// DD005's get_device() helper asks torch.accelerator; unknown or older, neither.
import { strict as assert } from 'assert';
import { analyzeSource, initPythonParser, type Finding } from '../../src/core/analysis';
import { torchAtLeast } from '../../src/core/analysis/rules/shared/torchVersion';
import { applyFix } from './helpers/fixes';

const dd = (code: string, source: string, torchVersion?: string): Finding[] =>
  analyzeSource(source, { select: [code], torchVersion }).filter((f) => f.code === code);

const WHOLE_MODEL = 'import torch\nmodel = torch.load("model.pt")\nmodel.eval()\n';
const NAMESPACE = 'import torch\n\n\ndef resume(path):\n    ckpt = torch.load(path)\n    return ckpt["args"]\n';

describe('torch version: reading it', () => {
  it('compares major and minor, ignoring local and pre-release parts', () => {
    assert.equal(torchAtLeast('2.6.0+cu124', 2, 6), true);
    assert.equal(torchAtLeast('2.10.1', 2, 6), true);
    assert.equal(torchAtLeast('2.5.1', 2, 6), false);
    assert.equal(torchAtLeast('1.13.1', 2, 6), false);
    assert.equal(torchAtLeast(undefined, 2, 6), undefined);
    assert.equal(torchAtLeast('nightly', 2, 6), undefined);
  });
});

describe('DD013 with the interpreter\'s PyTorch: weights_only=True', () => {
  before(async () => {
    await initPythonParser();
  });

  it('says a load of a model used as one fails from 2.6, and what to do first', () => {
    const [f] = dd('DD013', WHOLE_MODEL, '2.6.0');
    assert.ok(f, 'DD013 expected');
    assert.match(f.message, /^`torch\.load\("model\.pt"\)` reads a pickled model; load a saved state_dict instead\. It is used as one \(`model\.eval\(\)`\)/);
    assert.match(f.message, /PyTorch 2\.6\.0 loads with weights_only=True/);
    assert.match(f.message, /only for a file you trust/);
    assert.deepEqual(f.fixes, [], 'weights_only=False is never the only, preferred fix');
  });

  it('names a Namespace read from the checkpoint (ckpt["args"])', () => {
    const [f] = dd('DD013', NAMESPACE, '2.7.1');
    assert.match(f.message, /reads a pickled object; add its class to the safe globals\. `ckpt\["args"\]` is one/);
    assert.match(f.message, /add_safe_globals\(\[argparse\.Namespace\]\)/);
  });

  it('stays silent with PyTorch before 2.6, with an unknown version, and when weights_only is given', () => {
    assert.deepEqual(dd('DD013', WHOLE_MODEL, '2.5.1'), []);
    assert.deepEqual(dd('DD013', WHOLE_MODEL), []);
    assert.deepEqual(dd('DD013', WHOLE_MODEL.replace('"model.pt")', '"model.pt", weights_only=False)'), '2.6.0'), []);
  });

  it('stays silent for a state dict (tensors and plain containers load under weights_only)', () => {
    assert.deepEqual(dd('DD013', 'import torch\nsd = torch.load("w.pt")\nprint(sd["epoch"])\n', '2.6.0'), []);
  });

  it('joins the map_location problem in one finding: map_location preferred, weights_only=False offered with the warning', () => {
    const source = WHOLE_MODEL.replace('import torch\n', 'import torch\ndevice = "cuda" if torch.cuda.is_available() else "cpu"\n');
    const [f] = dd('DD013', source, '2.6.0');
    assert.match(f.message, /has no map_location; pass map_location=.* Also: `torch\.load\("model\.pt"\)` reads a pickled model/);
    assert.deepEqual(f.fixes.map((x) => [x.title, x.preferred]), [
      ['Add map_location=device', true],
      ['Add weights_only=False (only for a file you trust: it runs the pickled code)', false],
    ]);
    assert.ok(applyFix(source, f.fixes[1]).includes('torch.load("model.pt", weights_only=False)'));
  });
});

describe('DD005 with the interpreter\'s PyTorch: the get_device() helper', () => {
  before(async () => {
    await initPythonParser();
  });

  const SOURCE = 'import torch\n\nx = torch.ones(2).cuda()\n';
  const helperOf = (version?: string) => {
    const [f] = dd('DD005', SOURCE, version);
    const fix = f.fixes.find((x) => /get_device/.test(x.title));
    assert.ok(fix, 'the helper fix');
    return applyFix(SOURCE, fix);
  };

  it('asks torch.accelerator from 2.6', () => {
    const fixed = helperOf('2.6.0');
    assert.match(fixed, /if torch\.accelerator\.is_available\(\):\n        return torch\.accelerator\.current_accelerator\(\)/);
    assert.ok(!fixed.includes('torch.backends.mps'), fixed);
  });

  it('checks CUDA then MPS by hand before 2.6 and when the version is unknown', () => {
    for (const version of ['2.5.1', undefined]) {
      const fixed = helperOf(version);
      assert.ok(!fixed.includes('torch.accelerator'), fixed);
      assert.ok(fixed.includes('torch.backends.mps.is_available()'), fixed);
    }
  });
});
