// Facts in both directions (issue 24): a file's analysis runs the files that import it
// (muted), so a rule in model.py fires because train.py moves the model, and a helper's
// parameter is placed by its caller in another file. Related places in those files name
// the file, in the location and in the message.
import { strict as assert } from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { createModuleResolver, ImporterIndex, ImportScans, initPythonParser } from '../../src/core/analysis';
import type { ProjectContext } from '../../src/core/analysis';
import { ProjectFiles } from '../../src/server/projectFiles';
import { coreFindings, formatFindings } from './helpers/analysis';

const ROOT = path.resolve('/work/app');
const at = (rel: string) => path.join(ROOT, rel);

const MODEL = [
  'import torch',
  'import torch.nn as nn',
  '',
  'class Tagger(nn.Module):',
  '    def __init__(self):',
  '        super().__init__()',
  '        self.rnn = nn.GRU(16, 32, batch_first=True)',
  '',
  '    def forward(self, x):',
  '        h0 = torch.zeros(1, x.size(0), 32)',
  '        out, _ = self.rnn(x, h0)',
  '        return out',
  '',
].join('\n');

const TRAIN = [
  'import torch',
  'from model import Tagger',
  '',
  'device = torch.device("cuda" if torch.cuda.is_available() else "cpu")',
  'tagger = Tagger().to(device)',
  'print(tagger(torch.randn(2, 5, 16, device=device)).shape)',
  '',
].join('\n');

const HELPERS = [
  'import torch',
  '',
  'def evaluate(model, images):',
  '    with torch.no_grad():',
  '        scores = model(images)',
  '    return scores.argmax(dim=1).numpy()',
  '',
].join('\n');

const LOOP = [
  'import torch',
  'import torch.nn as nn',
  'from helpers import evaluate',
  '',
  'device = torch.device("cuda" if torch.cuda.is_available() else "cpu")',
  'net = nn.Linear(8, 3).to(device)',
  'print(evaluate(net, torch.randn(5, 8).to(device)))',
  '',
].join('\n');

function projectOf(files: Record<string, string>, analysed: string, importers: string[]): ProjectContext {
  const read = (p: string) => files[path.relative(ROOT, p)];
  return {
    path: at(analysed),
    modules: createModuleResolver([ROOT], read),
    importers: () => importers.map((rel) => ({ path: at(rel), source: files[rel]! })),
  };
}

describe('analysis across files: facts from the files that import the analysed one', () => {
  before(async () => {
    await initPythonParser();
  });

  it('fires DD015 in model.py only because train.py, which imports it, moves the model to the GPU', () => {
    const files = { 'model.py': MODEL, 'train.py': TRAIN };
    assert.deepEqual(coreFindings(MODEL, { project: projectOf(files, 'model.py', []) }), []);
    const findings = coreFindings(MODEL, { project: projectOf(files, 'model.py', ['train.py']) });
    assert.deepEqual(findings.map((f) => [f.code, f.range.start.line + 1]), [['DD015', 10]], formatFindings(findings));
    const elsewhere = findings[0]!.related.filter((r) => r.path !== undefined);
    assert.deepEqual(elsewhere.map((r) => [r.path, r.range.start.line + 1]), [[at('train.py'), 5]]);
    assert.match(findings[0]!.message, /line 5 of train\.py/);
  });

  it('an importer that star-imports the analysed file and moves its model as a whole places it: no DD001 on the submodule the model did not place itself', () => {
    const encoder = [
      'import torch',
      'import torch.nn as nn',
      '',
      'class GruEncoder(nn.Module):',
      '    def __init__(self, n_in, device=torch.device("cpu")):',
      '        super().__init__()',
      '        self.head = nn.Linear(16, 4)',
      '        self.rnn = nn.GRU(n_in, 16).to(device)',
      '',
      '    def forward(self, x):',
      '        out, _ = self.rnn(x)',
      '        return self.head(out[-1])',
      '',
    ].join('\n');
    const build = (imports: string) => [imports, '', 'def make_encoder(n_in, device):', '    return GruEncoder(n_in, device=device).to(device)', ''].join('\n');
    const typeTest = ['from encoder import *', '', 'def describe(model):', '    return "gru" if isinstance(model, GruEncoder) else "other"', ''].join('\n');
    const lines = (files: Record<string, string>) => coreFindings(encoder, { project: projectOf(files, 'encoder.py', ['build.py', 'describe.py']) })
      .map((f) => [f.code, f.range.start.line + 1]);
    assert.deepEqual(lines({ 'encoder.py': encoder, 'build.py': build('from encoder import *'), 'describe.py': typeTest }), []);
    assert.deepEqual(lines({ 'encoder.py': encoder, 'build.py': build('from encoder import GruEncoder'), 'describe.py': typeTest }), []);
    // Only imported and named by a type test: nothing in sight builds it, so nothing says it stays unmoved.
    const named = typeTest.replace('import *', 'import GruEncoder');
    assert.deepEqual(coreFindings(encoder, { project: projectOf({ 'encoder.py': encoder, 'describe.py': named }, 'encoder.py', ['describe.py']) }), []);
  });

  it('DD001 in nets.py where its factory leaves one kind of model on the CPU and train.py, which imports it, feeds that model GPU inputs', () => {
    const nets = [
      'import torch.nn as nn',
      '',
      'def build(kind, device):',
      '    if kind == "small":',
      '        net = nn.Linear(8, 2)',
      '    else:',
      '        net = nn.Linear(8, 2).to(device)',
      '    return net',
      '',
    ].join('\n');
    const train = [
      'import sys',
      'import torch',
      'from nets import build',
      '',
      'device = torch.device("cuda" if torch.cuda.is_available() else "cpu")',
      'net = build(sys.argv[1], device)',
      'print(net(torch.randn(4, 8, device=device)))',
      '',
    ].join('\n');
    const files = { 'nets.py': nets, 'train.py': train };
    assert.deepEqual(coreFindings(nets, { project: projectOf(files, 'nets.py', []) }), []);
    const findings = coreFindings(nets, { project: projectOf(files, 'nets.py', ['train.py']) });
    assert.deepEqual(findings.map((f) => [f.code, f.range.start.line + 1]), [['DD001', 5]], formatFindings(findings));
    assert.match(findings[0]!.message, /stays on the CPU when `kind == "small"`/);
    assert.match(findings[0]!.message, /on line 7 of train\.py/);
    assert.deepEqual(findings[0]!.related.filter((r) => r.path !== undefined).map((r) => [r.path, r.range.start.line + 1]), [[at('train.py'), 7], [at('train.py'), 7]]);
    assert.deepEqual(findings[0]!.fixes, [], 'the device the other path uses is this function\'s parameter, but the fix is not proven here');
    // Moved on every path: nothing to report in either file.
    const moved = { 'nets.py': nets.replace('nn.Linear(8, 2)\n', 'nn.Linear(8, 2).to(device)\n'), 'train.py': train };
    assert.deepEqual(coreFindings(moved['nets.py'], { project: projectOf(moved, 'nets.py', ['train.py']) }), []);
    // A factory that moves nothing leaves the move to its callers: train.py reports that, not nets.py.
    const unmoved = nets.replace('.to(device)', '');
    assert.deepEqual(coreFindings(unmoved, { project: projectOf({ 'nets.py': unmoved, 'train.py': train }, 'nets.py', ['train.py']) }), []);
    const trainFindings = coreFindings(train, { project: projectOf(files, 'train.py', []) });
    assert.deepEqual(trainFindings.map((f) => [f.code, f.range.start.line + 1]), [['DD001', 7]], formatFindings(trainFindings));
  });

  it('places a helper\'s parameter from its caller in another file: DD003 in helpers.py, naming loop.py\'s line', () => {
    const files = { 'helpers.py': HELPERS, 'loop.py': LOOP };
    assert.deepEqual(coreFindings(HELPERS, { project: projectOf(files, 'helpers.py', []) }), []);
    const findings = coreFindings(HELPERS, { project: projectOf(files, 'helpers.py', ['loop.py']) });
    assert.deepEqual(findings.map((f) => [f.code, f.range.start.line + 1]), [['DD003', 6]], formatFindings(findings));
    assert.match(findings[0]!.message, /line 6 of loop\.py/);
  });

  it('a helper file runs where its importer chooses the device: DD013 in checkpoints.py because demo.py checks availability, and not when it hard-codes CUDA', () => {
    const helper = [
      'import torch',
      '',
      'def restore(path, net):',
      '    net.load_state_dict(torch.load(path))',
      '    return net',
      '',
    ].join('\n');
    const demo = [
      'import torch',
      'import torch.nn as nn',
      'from checkpoints import restore',
      '',
      'device = torch.device("cuda" if torch.cuda.is_available() else "cpu")',
      'net = restore("weights.pt", nn.Linear(4, 2)).to(device)',
      '',
    ].join('\n');
    const files = { 'checkpoints.py': helper, 'demo.py': demo };
    assert.deepEqual(coreFindings(helper, { project: projectOf(files, 'checkpoints.py', []) }), []);
    const findings = coreFindings(helper, { project: projectOf(files, 'checkpoints.py', ['demo.py']) });
    assert.deepEqual(findings.map((f) => [f.code, f.range.start.line + 1]), [['DD013', 4]], formatFindings(findings));
    assert.match(findings[0]!.message, /used by demo\.py, which checks whether an accelerator is available/);
    // An importer that only ever runs on a GPU gives the helper no machine without one.
    const gpuOnly = { 'checkpoints.py': helper, 'demo.py': demo.replace('torch.device("cuda" if torch.cuda.is_available() else "cpu")', 'torch.device("cuda")') };
    assert.deepEqual(coreFindings(helper, { project: projectOf(gpuOnly, 'checkpoints.py', ['demo.py']) }), []);
    // The helper file's own script block: demo.py imports `restore` and never runs it, so its choice is not that block's.
    const script = `${helper}\nif __name__ == "__main__":\n    net = torch.nn.Linear(4, 2)\n    net.load_state_dict(torch.load("weights.pt"))\n`;
    const withScript = { 'checkpoints.py': script, 'demo.py': demo };
    const own = coreFindings(script, { project: projectOf(withScript, 'checkpoints.py', ['demo.py']) }).filter((f) => f.code === 'DD013');
    assert.deepEqual(own.map((f) => f.range.start.line + 1), [4], formatFindings(own));
  });

  it('DD005: a constructor\'s `device=\'cuda\'` default that the importer\'s construction overrides never runs; one that leaves it out is reported', () => {
    const vae = [
      'import torch',
      'from torch import nn',
      '',
      'class CondVAE(nn.Module):',
      '    def __init__(self, z_dim, device=\'cuda\'):',
      '        super().__init__()',
      '        self.z_dim = z_dim',
      '        self.device = device',
      '',
      '    def sample(self, n):',
      '        return torch.randn(n, self.z_dim, device=self.device)',
      '',
    ].join('\n');
    const define = (args: string) => `from vae import CondVAE\n\ndef define(device):\n    return CondVAE(${args}).to(device)\n`;
    const overriding = { 'vae.py': vae, 'define.py': define('8, device=device') };
    assert.deepEqual(coreFindings(vae, { project: projectOf(overriding, 'vae.py', ['define.py']) }), []);
    const positional = { 'vae.py': vae, 'define.py': define('8, device') };
    assert.deepEqual(coreFindings(vae, { project: projectOf(positional, 'vae.py', ['define.py']) }), []);
    const leftOut = { 'vae.py': vae, 'define.py': define('8') };
    const findings = coreFindings(vae, { project: projectOf(leftOut, 'vae.py', ['define.py']) });
    assert.deepEqual(findings.map((f) => [f.code, f.range.start.line + 1]), [['DD005', 5]], formatFindings(findings));
  });

  it('one option, two holders: `self.on_gpu = flags.on_gpu` in trainer.py and `if flags.on_gpu:` in main.py, which moves the model, are one world flag', () => {
    const trainer = [
      'import torch',
      '',
      'def masked_mse(target, estimate, lengths):',
      '    keep = target.new_ones(target.shape)',
      '    for i in range(target.size(0)):',
      '        keep[i, lengths[i]:] = 0',
      '    return (((estimate * keep) - target) ** 2).mean()',
      '',
      'class Trainer:',
      '    def __init__(self, net, opt, flags):',
      '        self.net = net',
      '        self.opt = opt',
      '        self.on_gpu = flags.on_gpu',
      '',
      '    def epoch(self, loader):',
      '        for x, lengths, y in loader:',
      '            if self.on_gpu:',
      '                x, lengths, y = x.cuda(), lengths.cuda(), y.cuda()',
      '            loss = masked_mse(y, self.net(x), lengths)',
      '            loss.backward()',
      '',
    ].join('\n');
    const main = (moved: string) => [
      'import argparse',
      'import torch',
      'import torch.nn as nn',
      'from trainer import Trainer',
      '',
      'def main(flags):',
      '    net = nn.Linear(8, 8)',
      `    if ${moved}:`,
      '        net.cuda()',
      '    Trainer(net, torch.optim.SGD(net.parameters(), lr=0.1), flags).epoch([])',
      '',
      'parser = argparse.ArgumentParser()',
      'parser.add_argument("--on_gpu", type=int, default=1)',
      'parser.add_argument("--gpu_model", type=int, default=1)',
      'main(parser.parse_args())',
      '',
    ].join('\n');
    const same = { 'trainer.py': trainer, 'main.py': main('flags.on_gpu') };
    assert.deepEqual(coreFindings(trainer, { project: projectOf(same, 'trainer.py', ['main.py']) }), []);
    // Another option moves the model: with --on_gpu and without --gpu_model the net stays on the CPU.
    const other = { 'trainer.py': trainer, 'main.py': main('flags.gpu_model') };
    const findings = coreFindings(trainer, { project: projectOf(other, 'trainer.py', ['main.py']) });
    assert.deepEqual(findings.map((f) => f.code), ['DD001'], formatFindings(findings));
  });

  it('a module moved under `if args.cuda:` in its importer, with its input moved under the same test: forward sees one place, no finding in model.py', () => {
    const model = ['import torch.nn as nn', '', 'class Net(nn.Module):', '    def __init__(self):', '        super().__init__()', '        self.lin = nn.Linear(4, 2)', '', '    def forward(self, x):', '        return self.lin(x)', ''].join('\n');
    const run = [
      'import argparse',
      'import torch',
      'from model import Net',
      '',
      'parser = argparse.ArgumentParser()',
      'parser.add_argument("--no-cuda", action="store_true")',
      'args = parser.parse_args()',
      'args.cuda = not args.no_cuda and torch.cuda.is_available()',
      'net = Net()',
      'data = torch.randn(8, 4)',
      'if args.cuda:',
      '    net.cuda()',
      '    data = data.cuda()',
      'print(net(data).sum().item())',
      '',
    ].join('\n');
    const files = { 'model.py': model, 'run.py': run };
    const findings = coreFindings(model, { project: projectOf(files, 'model.py', ['run.py']) });
    assert.deepEqual(findings, [], formatFindings(findings));
  });

  it('never reports a finding inside the importer itself', () => {
    const broken = TRAIN.replace('torch.randn(2, 5, 16, device=device)', 'torch.randn(2, 5, 16)');
    const files = { 'model.py': 'import torch.nn as nn\nclass Tagger(nn.Linear):\n    pass\n', 'train.py': broken };
    const findings = coreFindings(files['model.py'], { project: projectOf(files, 'model.py', ['train.py']) });
    assert.deepEqual(findings, []);
  });

  it('a notebook that imports a helper module is one of its importers: DD003 in plots.py, naming the notebook\'s cell and line', () => {
    const plots = ['import torch', '', 'def hidden_states(model, points):', '    return model(points).detach().numpy()', ''].join('\n');
    const cells = [
      'import torch\nimport torch.nn as nn\nfrom plots import hidden_states\n',
      '%matplotlib inline\ndevice = "cuda" if torch.cuda.is_available() else "cpu"\nmodel = nn.Linear(2, 2).to(device)\n',
      'print(hidden_states(model, torch.randn(5, 2).to(device)))\n',
    ];
    const notebook = JSON.stringify({ cells: cells.map((c) => ({ cell_type: 'code', metadata: {}, outputs: [], source: c.split(/(?<=\n)/) })), metadata: {}, nbformat: 4, nbformat_minor: 5 });
    const files: Record<string, string> = { 'plots.py': plots, 'Lesson.ipynb': notebook, 'broken.ipynb': '{"cells": [', 'notes.ipynb': '{"cells": []}' };
    const read = (p: string) => files[path.relative(ROOT, p)];
    const index = new ImporterIndex(Object.keys(files).map(at), createModuleResolver([ROOT], read), read);
    const importers = index.importersOf(at('plots.py'));
    assert.deepEqual(importers.map((f) => [path.relative(ROOT, f.path), f.cells?.length]), [['Lesson.ipynb', 3]]);
    const project: ProjectContext = { path: at('plots.py'), modules: createModuleResolver([ROOT], read), importers: () => importers };
    const findings = coreFindings(plots, { project });
    assert.deepEqual(findings.map((f) => [f.code, f.range.start.line + 1]), [['DD003', 4]], formatFindings(findings));
    const inNotebook = findings[0]!.related.filter((r) => r.path === at('Lesson.ipynb'));
    assert.deepEqual(inNotebook.map((r) => [r.cellIndex, r.range.start.line + 1]), [[1, 3]]);
    assert.match(findings[0]!.message, /line 3 of cell 2 of Lesson\.ipynb/);
  });

  it('an importer\'s class that keeps an instance of the analysed file\'s class runs all its methods: DD001 in noise.py from agent.py\'s act()', () => {
    const noise = [
      'import torch',
      '',
      'class GaussianNoise:',
      '    def __init__(self, std):',
      '        self.std = std',
      '',
      '    def perturb(self, action):',
      '        return action + torch.randn(action.shape) * self.std',
      '',
    ].join('\n');
    const agent = [
      'import torch',
      'import torch.nn as nn',
      'from noise import GaussianNoise',
      '',
      'class Agent:',
      '    def __init__(self, device):',
      '        self.actor = nn.Linear(4, 2).to(device)',
      '        self.noise = GaussianNoise(0.1)',
      '        self.device = device',
      '',
      '    def act(self, state):',
      '        action = self.actor(state.to(self.device))',
      '        return self.noise.perturb(action)',
      '',
      'def unrelated_builder(width):',
      '    return nn.Linear(width, width)',
      '',
      'DEVICE = torch.device("cuda" if torch.cuda.is_available() else "cpu")',
      'AGENT = Agent(DEVICE)',
      '',
    ].join('\n');
    const files = { 'noise.py': noise, 'agent.py': agent };
    assert.deepEqual(coreFindings(noise, { project: projectOf(files, 'noise.py', []) }), []);
    const findings = coreFindings(noise, { project: projectOf(files, 'noise.py', ['agent.py']) });
    assert.deepEqual(findings.map((f) => [f.code, f.range.start.line + 1]), [['DD001', 8]], formatFindings(findings));
  });

  it('the index finds importers by their import lines, those that move to a device first where they take as many names', () => {
    const files: Record<string, string> = {
      'model.py': MODEL,
      'train.py': TRAIN,
      'plot.py': 'from model import Tagger\nprint(Tagger)\n',
      'pkg/__init__.py': '',
      'pkg/run.py': 'from .. import model\n',
      'other.py': 'import numpy\n',
      'app.py': 'import model as m, os\nm.Tagger().cuda()\n',
    };
    const read = (p: string) => files[path.relative(ROOT, p)];
    const index = new ImporterIndex(Object.keys(files).map(at), createModuleResolver([ROOT], read), read);
    assert.deepEqual(index.importersOf(at('model.py')).map((f) => path.relative(ROOT, f.path)), ['train.py', 'app.py', 'plot.py']);
    assert.deepEqual(index.importersOf(at('other.py')), []);
  });

  it('the index prefers the importers that take the most of the file\'s names, then those that move to a device, then file order', () => {
    const files: Record<string, string> = {
      'tools.py': 'def to_device(b, d):\n    return b.to(d)\n\ndef log(x):\n    print(x)\n\ndef synth(b):\n    return b.numpy()\n',
      'a_model.py': 'from tools import log\nlog(1)\n',
      'b_data.py': 'import torch\nfrom tools import to_device\nx = to_device(torch.zeros(2), "cuda")\nx.cuda()\n',
      'c_eval.py': 'import tools as t\nt.to_device(1, 2)\nt.synth(2)\n',
      'd_train.py': 'from tools import to_device, log, synth\n',
    };
    const read = (p: string) => files[path.relative(ROOT, p)];
    const index = new ImporterIndex(Object.keys(files).map(at), createModuleResolver([ROOT], read), read);
    assert.deepEqual(index.importersOf(at('tools.py')).map((f) => path.relative(ROOT, f.path)), ['d_train.py', 'c_eval.py', 'b_data.py']);
  });

  it('in the editor, an open document that imports the file is an importer, and is recorded as read', () => {
    const project = new ProjectFiles();
    project.setOpen(at('model.py'), MODEL);
    project.setOpen(at('train.py'), TRAIN);
    project.setOpen(at('notes.py'), 'print(1)\n');
    const session = project.begin({ path: at('model.py'), roots: [ROOT], maxModuleBytes: 1_000_000 });
    const findings = coreFindings(MODEL, { project: session.context });
    assert.deepEqual(findings.map((f) => f.code), ['DD015'], formatFindings(findings));
    const used = session.finish();
    assert.ok(used.found.includes(at('train.py')), `found: ${used.found.join(', ')}`);
    assert.ok(!used.found.includes(at('notes.py')), 'a document that does not import model.py counts as read');
  });

  it('in the editor, the importer index is reused while no other open document changes, and rebuilt when an importer\'s text or the open set does', () => {
    const project = new ProjectFiles();
    project.setOpen(at('model.py'), MODEL);
    project.setOpen(at('train.py'), TRAIN);
    project.setOpen(at('notes.py'), 'print(1)\n');
    const spec = { path: at('model.py'), roots: [ROOT], maxModuleBytes: 1_000_000 };
    const importersOfModel = () => {
      const session = project.begin(spec);
      const names = session.context.importers!().map((f) => path.relative(ROOT, f.path));
      return { names, found: session.finish().found };
    };
    assert.deepEqual(importersOfModel().names, ['train.py']);
    // Typing in model.py itself, and the same text of train.py sent again, keep the index.
    project.setOpen(at('model.py'), `${MODEL}# edited\n`);
    project.setOpen(at('train.py'), TRAIN);
    const again = importersOfModel();
    assert.deepEqual(again.names, ['train.py']);
    assert.ok(again.found.includes(at('train.py')), 'a reused index still records the importer as read by this analysis');
    assert.equal(project.importerIndexBuilds, 1);
    // train.py no longer imports model.py.
    project.setOpen(at('train.py'), 'import torch\n');
    assert.deepEqual(importersOfModel().names, []);
    assert.equal(project.importerIndexBuilds, 2);
    // A newly opened importer.
    project.applyOverlay({ set: [{ path: at('app.py'), text: 'import model\nmodel.Tagger().cuda()\n' }], drop: [] });
    assert.deepEqual(importersOfModel().names, ['app.py']);
    assert.equal(project.importerIndexBuilds, 3);
    // A module created or deleted on disk may change what an import resolves to.
    project.changedOnDisk([at('model.py')]);
    importersOfModel();
    assert.equal(project.importerIndexBuilds, 4);
  });

  it('in the editor, a file on disk in the workspace folder that imports the file is an importer too, and one created later is found after the watcher reports it', () => {
    const folder = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'dd-importers-')));
    try {
      fs.writeFileSync(path.join(folder, 'model.py'), MODEL);
      fs.mkdirSync(path.join(folder, 'scripts'));
      fs.writeFileSync(path.join(folder, 'scripts', 'notes.py'), 'print(1)\n');
      const project = new ProjectFiles();
      project.setOpen(path.join(folder, 'model.py'), MODEL);
      const spec = { path: path.join(folder, 'model.py'), roots: [folder], maxModuleBytes: 1_000_000 };
      const analyse = () => {
        const session = project.begin(spec);
        const findings = coreFindings(MODEL, { project: session.context });
        return { codes: findings.map((f) => f.code), importers: session.context.importers!().map((f) => path.relative(folder, f.path)) };
      };
      assert.deepEqual(analyse(), { codes: [], importers: [] }, 'nothing in the folder imports model.py yet');
      // train.py, never opened, moves the model to the GPU: DD015 in model.py once the watcher says it exists.
      fs.writeFileSync(path.join(folder, 'scripts', 'train.py'), TRAIN.replace('from model import', 'import sys\nsys.path.insert(0, "..")\nfrom model import'));
      project.changedOnDisk([path.join(folder, 'scripts', 'train.py')]);
      assert.deepEqual(analyse(), { codes: ['DD015'], importers: ['scripts/train.py'] });
      // A workspace folder that does not hold the file is not walked for it.
      const outside = { ...spec, roots: [path.join(folder, 'scripts')] };
      assert.deepEqual(project.begin(outside).context.importers!(), []);
    } finally {
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });

  it('indexes that share their scans read again only the files whose text changed', () => {
    const files: Record<string, string> = { 'tools.py': 'def f(): pass\n', 'a.py': 'import tools\ntools.f()\n', 'b.py': 'from tools import f\n' };
    const read = (p: string) => files[path.relative(ROOT, p)];
    const inner = createModuleResolver([ROOT], read);
    const asked: string[] = [];
    const counting = { resolve: (from: string, module: string, level: number, source?: string) => (asked.push(path.relative(ROOT, from)), inner.resolve(from, module, level, source)) };
    const scans = new ImportScans();
    const importersOfTools = () => new ImporterIndex(Object.keys(files).map(at), counting, read, read, scans, 'roots').importersOf(at('tools.py')).map((f) => path.relative(ROOT, f.path));
    assert.deepEqual(importersOfTools(), ['a.py', 'b.py']);
    assert.ok(asked.includes('a.py') && asked.includes('b.py'));
    asked.length = 0;
    assert.deepEqual(importersOfTools(), ['a.py', 'b.py']);
    assert.deepEqual(asked, [], 'nothing changed: no import is resolved again');
    files['b.py'] = 'import os\n';
    assert.deepEqual(importersOfTools(), ['a.py']);
    assert.deepEqual([...new Set(asked)], ['b.py'], 'only the edited file is read for its imports');
  });
  it('the analysed file runs before its importers: its `use_cuda = torch.cuda.is_available()` is decided when main.py calls its helper, so the CPU branch is not met by main.py\'s GPU layer', () => {
    const helpers = [
      'import torch',
      '',
      'use_cuda = torch.cuda.is_available()',
      '',
      'def to_tensor(array):',
      '    if use_cuda:',
      '        out = torch.from_numpy(array).cuda()',
      '    else:',
      '        out = torch.from_numpy(array)',
      '    return out',
      '',
    ].join('\n');
    const main = (helper: string) => [
      'import numpy as np',
      'import torch',
      'import helpers',
      '',
      'use_cuda = torch.cuda.is_available()',
      'layer = torch.nn.Linear(4, 4).cuda() if use_cuda else torch.nn.Linear(4, 4)',
      `x = helpers.${helper}(np.zeros((2, 4), dtype=np.float32))`,
      'print(layer(x))',
      '',
    ].join('\n');
    const decided = { 'helpers.py': helpers, 'main.py': main('to_tensor') };
    const silent = coreFindings(helpers, { project: projectOf(decided, 'helpers.py', ['main.py']) });
    assert.deepEqual(silent, [], formatFindings(silent));
    // A CPU path that does not follow availability (an environment switch) can meet main.py's GPU layer: main.py's analysis reports it.
    const switched = helpers.replace('import torch', 'import os\nimport torch').replace('torch.cuda.is_available()', 'os.environ.get("USE_CUDA") == "1"');
    const mainFile = main('to_tensor');
    const fired = coreFindings(mainFile, { project: projectOf({ 'helpers.py': switched, 'main.py': mainFile }, 'main.py', []) });
    assert.deepEqual(fired.map((f) => [f.code, f.range.start.line + 1]), [['DD001', 8]], formatFindings(fired));
    assert.match(fired[0]!.message, /the `else` on line 9 of helpers\.py/);
  });
});
