// Imports of the project's own modules: classes, functions and module-level values of
// model.py / config.py / a package reach the analysed file (issue 10, "Across files").
import { strict as assert } from 'assert';
import * as path from 'path';
import { createModuleResolver, initPythonParser } from '../../src/core/analysis';
import type { ProjectContext } from '../../src/core/analysis';
import { coreCellFindings, coreFindings, formatFindings } from './helpers/analysis';

const ROOT = path.resolve('/project');

/** A project in memory: relative path → text; reads of anything else find nothing. */
function project(files: Record<string, string>, analysed = 'train.py'): ProjectContext {
  const byPath = new Map(Object.entries(files).map(([rel, text]) => [path.join(ROOT, rel), text]));
  return { path: path.join(ROOT, analysed), modules: createModuleResolver([ROOT], (p) => byPath.get(p)) };
}

const CONFIG_CUDA = 'import torch\ndevice = torch.device("cuda")\n';
const CONFIG_CPU = 'import torch\ndevice = torch.device("cpu")\n';
const MODEL = [
  'import torch.nn as nn',
  '',
  'class Net(nn.Module):',
  '    def __init__(self):',
  '        super().__init__()',
  '        self.fc = nn.Linear(10, 2)',
  '',
  '    def forward(self, x):',
  '        return self.fc(x)',
  '',
].join('\n');
const TRAIN = [
  'import torch',
  'from model import Net',
  'from config import device',
  '',
  'predictor = Net()',
  'predictor.to(device)',
  'x = torch.randn(4, 10)',
  'y = predictor(x)',
  '',
].join('\n');

function codesAndLines(source: string, ctx: ProjectContext): Array<[string, number]> {
  return coreFindings(source, { project: ctx }).map((f) => [f.code, f.range.start.line + 1]);
}

/** Findings that claim a place for certain ("is on an accelerator"), not a guess from a called name ("may be"). */
function certain(source: string, ctx?: ProjectContext): Array<[string, number]> {
  return coreFindings(source, ctx ? { project: ctx } : {}).filter((f) => !/ may be /.test(f.message)).map((f) => [f.code, f.range.start.line + 1]);
}

describe('analysis across files: imports of project modules', () => {
  before(async () => {
    await initPythonParser();
  });

  it('finds DD001 in train.py only because model.py defines a Module and config.py a CUDA device', () => {
    const ctx = project({ 'train.py': TRAIN, 'model.py': MODEL, 'config.py': CONFIG_CUDA });
    const findings = coreFindings(TRAIN, { project: ctx });
    assert.deepEqual(findings.map((f) => [f.code, f.range.start.line + 1]), [['DD001', 8]], formatFindings(findings));
    assert.match(findings[0].message, /`predictor` is on an accelerator \(moved to device on line 6\)/);
    // Without the project, Net and device are unknown imports: at most a guess ("may be").
    assert.deepEqual(certain(TRAIN), []);
    // What the other files say decides it: a CPU device, or a Net that is not a Module.
    assert.deepEqual(codesAndLines(TRAIN, project({ 'model.py': MODEL, 'config.py': CONFIG_CPU })), []);
    assert.deepEqual(certain(TRAIN, project({ 'model.py': 'class Net:\n    pass\n', 'config.py': CONFIG_CUDA })), []);
    assert.deepEqual(certain(TRAIN, project({ 'model.py': MODEL })), []);
  });

  it('spells out `from models import *`: its classes, its values, and the torch names it imports', () => {
    const models = ['import torch', 'import torch.nn as nn', '', 'latent = 16', '', 'class Generator(nn.Module):', '    def __init__(self):',
      '        super().__init__()', '        self.fc = nn.Linear(latent, 8)', '', '    def forward(self, z):', '        return self.fc(z)', ''].join('\n');
    const train = ['from models import *', '', 'cuda = torch.cuda.is_available()', 'generator = Generator()',
      'z = torch.randn(4, latent)', 'if cuda:', '    z = z.cuda()', 'fake = generator(z)', 'head = nn.Linear(8, 1)', 'score = head(z)', ''].join('\n');
    const ctx = project({ 'train.py': train, 'models.py': models });
    const findings = coreFindings(train, { project: ctx });
    // Generator is the module of models.py, and `torch` and `nn` the star import's torch names.
    assert.deepEqual(findings.map((f) => [f.code, f.range.start.line + 1]), [['DD001', 4], ['DD001', 9]], formatFindings(findings));
    // An import of this file binds a name before the star import can.
    const own = train.replace('from models import *', 'from models import *\nfrom other import Generator');
    assert.deepEqual(coreFindings(own, { project: project({ 'train.py': own, 'models.py': models }) }).map((f) => f.range.start.line + 1), [10]);
  });

  it('follows a chain of star imports to the torch a package re-exports, and a helper that moves each of its *args', () => {
    // utils/__init__.py star-imports utils/torch_helpers.py, which imports torch: `from utils import *` binds torch.
    const helpers = 'import torch\n\ndef to_device(device, *args):\n    return [x.to(device) for x in args]\n';
    const files = { 'utils/__init__.py': 'from utils.torch_helpers import *\nfrom utils.misc import *\n', 'utils/torch_helpers.py': helpers, 'utils/misc.py': 'import os\n' };
    const train = ['from utils import *', '', 'device = torch.device("cuda" if torch.cuda.is_available() else "cpu")', 'net = torch.nn.Linear(4, 2)',
      'critic = torch.nn.Linear(4, 1)', 'to_device(device, net, critic)', 'x = torch.randn(3, 4).to(device)', 'print(net(x), critic(x))', 'other = torch.nn.Linear(4, 2)', 'print(other(x))', ''].join('\n');
    const findings = coreFindings(train, { project: project({ 'train.py': train, ...files }) });
    // The modules to_device moved are not reported; the one it was not given is.
    assert.deepEqual(findings.map((f) => [f.code, f.range.start.line + 1]), [['DD001', 9]], formatFindings(findings));
  });

  it('an option set to availability in the analysed file decides the same option read in an imported function', () => {
    // evaluate.py sets params.cuda = torch.cuda.is_available(); the generator in data.py moves its
    // batches under `if params.cuda:` of the object it is given: the same choice as the model's.
    const data = 'import torch\n\ndef batches(params, n):\n    for _ in range(n):\n        x = torch.randint(0, 10, (4, 7))\n        if params.cuda:\n            x = x.cuda()\n        yield x\n';
    const train = ['import torch', 'import torch.nn as nn', 'from data import batches', '', 'class Params:', '    pass', '', 'params = Params()',
      'params.cuda = torch.cuda.is_available()', 'net = nn.Embedding(10, 3).cuda() if params.cuda else nn.Embedding(10, 3)',
      'for xb in batches(params, 3):', '    print(net(xb).sum())', ''].join('\n');
    assert.deepEqual(codesAndLines(train, project({ 'train.py': train, 'data.py': data })), []);
    // A generator that never moves its batches still leaves them on the CPU.
    const unmoved = data.replace('        if params.cuda:\n            x = x.cuda()\n', '');
    assert.deepEqual(codesAndLines(train, project({ 'train.py': train, 'data.py': unmoved })).map(([code]) => code), ['DD001']);
  });

  it('a model looked up by name in a project file of modules (`nets.__dict__[name](...)`) is built on the CPU; not in a file of other classes', () => {
    const nets = ['import torch.nn as nn', '', 'class Small(nn.Module):', '    def __init__(self, width=8):', '        super().__init__()',
      '        self.fc = nn.Linear(4, width)', '', '    def forward(self, x):', '        return self.fc(x)', '', 'def small_x2(**kwargs):',
      '    return Small(**kwargs)', ''].join('\n');
    const train = ['import torch', 'import nets', '', 'def build(name):', '    return nets.__dict__[name](width=16)', '',
      'device = torch.device("cuda" if torch.cuda.is_available() else "cpu")', 'net = build("small_x2")',
      'print(net(torch.randn(2, 4, device=device)))', ''].join('\n');
    assert.deepEqual(codesAndLines(train, project({ 'train.py': train, 'nets.py': nets })), [['DD001', 9]]);
    assert.deepEqual(codesAndLines(train.replace('net = build("small_x2")', 'net = build("small_x2").to(device)'), project({ 'train.py': train, 'nets.py': nets })), []);
    // A file that also defines a plain class (a dataset, a config) may hand back anything by name.
    const mixed = `${nets}\nclass Settings:\n    width = 8\n`;
    assert.deepEqual(codesAndLines(train, project({ 'train.py': train, 'nets.py': mixed })), []);
  });

  it('follows `import config as cfg`, `import pkg.models as m` and relative imports inside a package', () => {
    const train = 'import torch\nimport config as cfg\nimport pkg.models as m\nnet = m.Net()\nnet.to(cfg.device)\nnet(torch.ones(2, 10))\n';
    const files = { 'config.py': CONFIG_CUDA, 'pkg/__init__.py': '', 'pkg/models.py': 'from .layers import Net\n', 'pkg/layers.py': MODEL };
    assert.deepEqual(codesAndLines(train, project(files)), [['DD001', 6]]);
    // From pkg/sub/train.py, `..config` is pkg/config.py (the CPU) and `...config` the root's (CUDA).
    const relative = (dots: string) => `import torch\nfrom ${dots}config import device\nfrom .layers import Net\nnet = Net()\nnet.to(device)\nnet(torch.ones(2, 10))\n`;
    const nested = { 'config.py': CONFIG_CUDA, 'pkg/__init__.py': '', 'pkg/config.py': CONFIG_CPU, 'pkg/sub/__init__.py': '', 'pkg/sub/layers.py': MODEL };
    assert.deepEqual(codesAndLines(relative('..'), project(nested, 'pkg/sub/train.py')), []);
    assert.deepEqual(codesAndLines(relative('...'), project(nested, 'pkg/sub/train.py')), [['DD001', 6]]);
  });

  it('reads what an imported function returns and what an imported base class is', () => {
    const utils = 'import torch\n\ndef get_device():\n    return torch.device("cuda")\n\ndef make_batch():\n    return torch.zeros(2, 10)\n';
    const train = 'from utils import get_device, make_batch\nimport torch\nfrom model import Net\nnet = Net().to(get_device())\nout = net(make_batch())\n';
    assert.deepEqual(codesAndLines(train, project({ 'utils.py': utils, 'model.py': MODEL })), [['DD001', 5]]);
    const sub = 'import torch\nfrom model import Net\nclass Bigger(Net):\n    pass\nnet = Bigger()\nnet.to("cuda")\nnet(torch.zeros(1, 10))\n';
    assert.deepEqual(codesAndLines(sub, project({ 'model.py': MODEL })), [['DD005', 6], ['DD001', 7]]);
  });

  it('never reports findings inside imported modules, survives import cycles and missing or failing reads', () => {
    const broken = 'import torch\nt = torch.ones(2).cuda()\nt.numpy()\nfrom train import x\n';
    const train = 'import torch\nfrom helpers import t\nx = 1\n';
    assert.deepEqual(codesAndLines(train, project({ 'helpers.py': broken, 'train.py': train })), []);
    // A package that re-exports from itself, and a submodule that imports back from it.
    const selfExport = { 'pkg/__init__.py': 'from pkg import helper\nfrom .a import thing\n', 'pkg/a.py': 'from . import thing\n' };
    assert.deepEqual(codesAndLines('import torch\nfrom pkg import helper, thing\nhelper(torch.ones(2))\nthing()\n', project(selfExport)), []);
    const failing: ProjectContext = { path: path.join(ROOT, 'train.py'), modules: { resolve: () => { throw new Error('EACCES'); } } };
    assert.deepEqual(coreFindings(TRAIN, { project: failing }), coreFindings(TRAIN));
  });

  it('resolves imports in notebook cells from the notebook’s folder', () => {
    const cells = ['import torch\nfrom model import Net\nfrom config import device\n', 'model = Net()\nmodel.to(device)\n', 'model(torch.randn(1, 10))\n'];
    const ctx = project({ 'model.py': MODEL, 'config.py': CONFIG_CUDA }, 'explore.ipynb');
    assert.deepEqual(coreCellFindings(cells, { project: ctx }).map((c) => [c.cellIndex, c.finding.code]), [[2, 'DD001']]);
  });
  it("inside the framework's own repository, Accelerator() still places what prepare() returns (the project's accelerate package is its implementation)", () => {
    const ACCELERATOR = [
      'class Accelerator:', '    def __init__(self, cpu=False):', '        self.cpu = cpu', '',
      '    def prepare(self, *args):', '        return tuple(self._prepare_one(a) for a in args)', '',
      '    def _prepare_one(self, obj):', '        return obj', '',
    ].join('\n');
    const SCRIPT = [
      'import torch', 'from torch.utils.data import DataLoader', 'from accelerate import Accelerator', '',
      'accelerator = Accelerator()', 'model = torch.nn.Linear(4, 2).to(accelerator.device)',
      'loader = DataLoader([torch.randn(4) for _ in range(8)], batch_size=2)', 'model, loader = accelerator.prepare(model, loader)',
      'for batch in loader:', '    print(model(batch).shape)', '', 'unprepared = DataLoader([torch.randn(4)], batch_size=1)',
      'for batch in unprepared:', '    print(model(batch).shape)', '',
    ].join('\n');
    const ctx = project({ 'scripts/run.py': SCRIPT, 'accelerate/__init__.py': 'from .accelerator import Accelerator\n', 'accelerate/accelerator.py': ACCELERATOR }, 'scripts/run.py');
    assert.deepEqual(codesAndLines(SCRIPT, ctx), [['DD002', 13]]);
  });

  it('DD013: a load of the string path that an imported module saves to is the run\'s own checkpoint; another path is reported', () => {
    const STOPPER = [
      'import torch', '',
      'class EarlyStop:', '    def __init__(self):', '        self.best = None', '',
      '    def step(self, score, model):', '        if self.best is None or score > self.best:', '            self.best = score',
      '            torch.save(model.state_dict(), "best_weights.pt")', '        return False', '',
    ].join('\n');
    const main = (loaded: string) => [
      'import torch', 'from stopper import EarlyStop', '',
      'device = torch.device("cuda" if torch.cuda.is_available() else "cpu")',
      'model = torch.nn.Linear(4, 1).to(device)', 'stopper = EarlyStop()',
      'for epoch in range(5):', '    if stopper.step(-epoch, model):', '        break',
      `model.load_state_dict(torch.load("${loaded}"))`, '',
    ].join('\n');
    const ctx = project({ 'stopper.py': STOPPER });
    assert.deepEqual(codesAndLines(main('best_weights.pt'), ctx), []);
    assert.deepEqual(codesAndLines(main('pretrained.pt'), ctx), [['DD013', 10]]);
  });

  it('DD013: a helper found through the folder a lesson puts on sys.path saves the checkpoint the lesson loads', () => {
    const HELPER = [
      'import torch', '',
      'def train_classifier(model, loader, best_model_save_path=None):', '    for x in loader:', '        model(x).sum().backward()',
      '    if best_model_save_path:', '        torch.save(model.state_dict(), best_model_save_path)', '',
    ].join('\n');
    const lesson = (head: string[]) => [
      ...head, 'import torch', 'from helper_train import train_classifier', '',
      'device = torch.device("cuda" if torch.cuda.is_available() else "cpu")',
      'model = torch.nn.Linear(4, 1).to(device)',
      "train_classifier(model, [], best_model_save_path='best-1.pt')",
      "model.load_state_dict(torch.load('best-1.pt'))", '',
    ].join('\n');
    const ctx = project({ 'course/helper_train.py': HELPER }, 'course/cnn/lesson.py');
    assert.deepEqual(codesAndLines(lesson(['import sys', 'sys.path.insert(0, "..")']), ctx), []);
    assert.deepEqual(codesAndLines(lesson([]), ctx), [['DD013', 7]]);
  });

  it('DD013: data a project module saves under a file name, whatever folder each side spells, is no checkpoint; a checkpoint of that name may be another run\'s', () => {
    const STOPPER = [
      'import torch', '',
      'class EarlyStop:', '    def save(self, model, path):', "        torch.save(model.state_dict(), path + '/' + 'checkpoint.pth')", '',
      'def write_stats(data_dir, states):', "    stats_path = data_dir + '/data_stats.pth'",
      '    torch.save({"mean": states.mean(0)}, stats_path)', '',
    ].join('\n');
    const main = (loaded: string) => [
      'import os', 'import torch', 'from stopper import EarlyStop, write_stats', '',
      'def run(folder, model):',
      '    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")',
      '    model.to(device)', '    EarlyStop().save(model, folder)',
      `    best_path = os.path.join(folder, "${loaded}")`,
      '    model.load_state_dict(torch.load(best_path))', '',
    ].join('\n');
    const ctx = project({ 'stopper.py': STOPPER });
    assert.deepEqual(codesAndLines(main('checkpoint.pth'), ctx), [['DD013', 10]]);
    assert.deepEqual(codesAndLines(main('data_stats.pth'), ctx), []);
    assert.deepEqual(codesAndLines(main('pretrained.pth'), ctx), [['DD013', 10]]);
  });

  it('DD013: a script whose only save is a project helper caching its corpus still loads a model another run may have saved on a GPU', () => {
    const DATA = (saved: string) => [
      'import os', 'import torch', '',
      'def load_corpus(root):', "    cache = os.path.join(root, 'corpus.pt')", '    if os.path.exists(cache):', '        return torch.load(cache)',
      '    corpus = {"tokens": list(range(10))}', `    torch.save(${saved}, cache)`, '    return corpus', '',
    ].join('\n');
    const EVALUATE = [
      'import argparse', 'import os', 'import torch', 'from data import load_corpus', '',
      'parser = argparse.ArgumentParser()', "parser.add_argument('--cuda', action='store_true')", "parser.add_argument('--out', default='out')",
      'args = parser.parse_args()', 'device = torch.device("cuda" if args.cuda else "cpu")', 'corpus = load_corpus(args.out)',
      "with open(os.path.join(args.out, 'model.pt'), 'rb') as f:", '    model = torch.load(f)', 'model = model.to(device)', '',
    ].join('\n');
    assert.deepEqual(codesAndLines(EVALUATE, project({ 'data.py': DATA('corpus') }, 'evaluate.py')), [['DD013', 13]]);
    // A helper that saves a model is a checkpoint this program writes, to paths not known here: silent, as before.
    assert.deepEqual(codesAndLines(EVALUATE, project({ 'data.py': DATA('model_state') }, 'evaluate.py')), []);
  });

  it('DD005: a self-test of a project op that refuses CPU tensors is GPU code by design; the same test of a plain op is reported', () => {
    const check = [
      'import torch',
      'from fused import fused_scale',
      '',
      'def check():',
      '    sample = torch.randn(2, 4).cuda()',
      '    print((fused_scale(sample, 2.0) - sample * 2.0).abs().max())',
      '',
      'check()',
      '',
    ].join('\n');
    const guarded = (guard: string) => [
      'import torch',
      '',
      'def fused_scale(t, factor):',
      ...guard.split('\n').map((line) => `    ${line}`),
      '    return t * factor',
      '',
    ].join('\n');
    for (const guard of ['if not t.is_cuda:\n    raise NotImplementedError("GPU kernel only")', 'assert t.is_cuda, "GPU kernel only"', 'if t.device.type != "cuda":\n    raise RuntimeError("GPU kernel only")']) {
      assert.deepEqual(codesAndLines(check, project({ 'fused.py': guarded(guard) }, 'check.py')), [], guard);
    }
    assert.deepEqual(codesAndLines(check, project({ 'fused.py': guarded('if t.is_cuda:\n    raise RuntimeError("CPU only")') }, 'check.py')), [['DD005', 5]]);
    assert.deepEqual(codesAndLines(check, project({ 'fused.py': guarded('pass') }, 'check.py')), [['DD005', 5]]);
  });
  it("a package's __init__.py of imports only is not linked or run; one more statement and it is", () => {
    const init = ['"""The package."""', 'from .model import Net', 'from . import config', 'try:', '    from .fused import kernel',
      'except ImportError:', '    kernel = None', '__all__ = ["Net", "config"]', '__version__ = "1.0"', ''].join('\n');
    const files = new Map([[path.join(ROOT, 'pkg', 'model.py'), MODEL], [path.join(ROOT, 'pkg', 'config.py'), CONFIG_CUDA]]);
    let reads = 0;
    const ctx: ProjectContext = {
      path: path.join(ROOT, 'pkg', '__init__.py'),
      modules: createModuleResolver([ROOT], (p) => {
        reads++;
        return p === path.join(ROOT, 'pkg', '__init__.py') ? init : files.get(p);
      }),
    };
    assert.deepEqual(codesAndLines(init, ctx), []);
    assert.equal(reads, 0, 'nothing it imports was looked for');
    // A statement that runs code (a model built and fed a CPU tensor) is analysed with its imports.
    const runs = `${init}import torch\nnet = Net().to(config.device)\nnet(torch.randn(2, 10))\n`;
    assert.deepEqual(codesAndLines(runs, ctx), [['DD001', 12]]);
    assert.ok(reads > 0);
  });
});
