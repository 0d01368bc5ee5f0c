// The text the quick fixes of the rules added for issue 26 write, on their fixtures: the
// generic checks in fixes.test.ts prove each fix parses, removes its finding and adds none;
// these say it is the fix the rule promises.
import { strict as assert } from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import { initPythonParser } from '../../src/core/analysis';
import type { RuleCode } from '../../src/core/analysis';
import { coreFindings } from './helpers/analysis';
import { applyFix } from './helpers/fixes';
import { RULE_FIXTURES_DIR } from './helpers/fixtures';

function fixture(name: string): string {
  return fs.readFileSync(path.join(RULE_FIXTURES_DIR, name), 'utf8');
}

/** The preferred fix of each `code` finding in `source`, applied alone. */
function fixedTexts(source: string, code: RuleCode): string[] {
  const findings = coreFindings(source).filter((f) => f.code === code);
  assert.ok(findings.length > 0, `no ${code} finding`);
  return findings.flatMap((f) => f.fixes.filter((x) => x.preferred).map((x) => applyFix(source, x)));
}

describe('fixes of the module-structure and device-derivation rules write what they promise', () => {
  before(async () => {
    await initPythonParser();
  });

  it('DD018 wraps a list comprehension in nn.ModuleList and a str-keyed dict in nn.ModuleDict', () => {
    const [list] = fixedTexts(fixture('DD018/fire/mlp_tower_comprehension.py'), 'DD018');
    assert.ok(list.includes('self.hidden = nn.ModuleList([nn.Linear(dim, dim) for _ in range(depth)])'), list);
    const [dict] = fixedTexts(fixture('DD018/fire/multitask_heads_dict.py'), 'DD018');
    assert.ok(dict.includes('self.heads = nn.ModuleDict({"age": nn.Linear(dim, 1), "gender": nn.Linear(dim, 2)})'), dict);
  });

  it('DD018 turns an empty list filled by append into nn.ModuleList(), and spells torch.nn as the file imports it', () => {
    const [appended] = fixedTexts(fixture('DD018/fire/append_in_loop.py'), 'DD018');
    assert.ok(appended.includes('self.blocks = nn.ModuleList()  # expect: DD018(self.blocks)'), appended);
    const [spelled] = fixedTexts(fixture('DD018/fire/torch_nn_spelled_out.py'), 'DD018');
    assert.ok(spelled.includes('self.steps = torch.nn.ModuleList([torch.nn.GRUCell(dim, dim) for _ in range(depth)])'), spelled);
  });

  it('DD018 offers no fix for a dict keyed by numbers, which nn.ModuleDict would reject', () => {
    const source = [
      'import torch.nn as nn', '', '', 'class ByLevel(nn.Module):', '    def __init__(self):', '        super().__init__()',
      '        self.levels = {1: nn.Linear(4, 4), 2: nn.Linear(4, 4)}', '',
    ].join('\n');
    const findings = coreFindings(source).filter((f) => f.code === 'DD018');
    assert.equal(findings.length, 1);
    assert.deepEqual(findings[0].fixes, []);
  });
});

describe('DD020 fixes use the tensor\'s own device', () => {
  before(async () => {
    await initPythonParser();
  });

  it('replaces the conditional with x.device, and a torch.device(...) holding only it as a whole', () => {
    const [plain] = fixedTexts(fixture('DD020/fire/noise_like_input.py'), 'DD020');
    assert.ok(plain.includes('    device = x.device  # expect: DD020(x)\n'), plain);
    const [wrapped] = fixedTexts(fixture('DD020/fire/torch_device_wrapper.py'), 'DD020');
    assert.ok(wrapped.includes('    dev = labels.device  # expect: DD020(labels)\n'), wrapped);
  });

  it('keeps the subject expression as written, and fixes the negated form too', () => {
    const [param] = fixedTexts(fixture('DD020/fire/parameter_is_cuda.py'), 'DD020');
    assert.ok(param.includes('where = next(self.parameters()).device  # expect: DD020'), param);
    const [negated] = fixedTexts(fixture('DD020/fire/negated_question.py'), 'DD020');
    assert.ok(negated.includes('    device = x.device  # expect: DD020(x)\n'), negated);
  });
});

describe('DD021 fixes follow forward\'s first tensor input', () => {
  before(async () => {
    await initPythonParser();
  });

  it('writes device=x.device in a factory and .to(tokens.device) in a move', () => {
    const fixed = fixedTexts(fixture('DD021/fire/lstm_hidden_state.py'), 'DD021');
    assert.ok(fixed[0].includes('h0 = torch.zeros(1, x.size(0), self.hidden, device=x.device)'), fixed[0]);
    // One finding for the forward: its fix rewrites c0's use of the attribute too.
    assert.ok(fixed[0].includes('c0 = torch.zeros(1, x.size(0), self.hidden, device=x.device)'), fixed[0]);
    const [moved] = fixedTexts(fixture('DD021/fire/to_self_device.py'), 'DD021');
    assert.ok(moved.includes('pos = torch.arange(tokens.shape[1]).to(tokens.device)'), moved);
  });

  it('takes a first input named otherwise when forward reads its shape (mu.shape → mu.device)', () => {
    const [vae] = fixedTexts(fixture('DD021/fire/vae_noise.py'), 'DD021');
    assert.ok(vae.includes('eps = torch.randn(mu.shape, device=mu.device)'), vae);
  });

  it('reports the forward once when it uses the attribute twice, and rewrites both uses', () => {
    const fixture_ = fixture('DD021/fire/construction_leaves_default.py');
    const findings = coreFindings(fixture_).filter((f) => f.code === 'DD021');
    assert.equal(findings.length, 1);
    assert.match(findings[0].message, /and 1 more time in this forward/);
    assert.match(findings[0].message, /`Positions\(dim\)` leaves it out/);
    const [fixed] = fixedTexts(fixture_, 'DD021');
    assert.ok(fixed.includes('steps = torch.arange(x.shape[1], device=x.device)'), fixed);
    assert.ok(fixed.includes('offsets = torch.zeros(x.shape[1], device=x.device)'), fixed);
  });

  it('offers no edit when forward\'s first input is not known to be a tensor', () => {
    const source = [
      'import torch', 'import torch.nn as nn', '', '', 'class Step(nn.Module):', '    def __init__(self, device="cpu"):',
      '        super().__init__()', '        self.device = device', '', '    def forward(self, batch):',
      '        return torch.zeros(3, device=self.device)', '',
    ].join('\n');
    const findings = coreFindings(source).filter((f) => f.code === 'DD021');
    assert.equal(findings.length, 1);
    assert.deepEqual(findings[0].fixes, []);
  });
});

describe('DD022 fixes move the model before the optimizer state is loaded', () => {
  before(async () => {
    await initPythonParser();
  });

  it('puts the move statement, as written, above the load in the same block', () => {
    const [script] = fixedTexts(fixture('DD022/fire/resume_script.py'), 'DD022');
    assert.ok(script.endsWith('model.load_state_dict(ckpt["model"])\nmodel.to(device)\noptimizer.load_state_dict(ckpt["optimizer"])  # expect: DD022(optimizer)\n'), script);
    const [fn] = fixedTexts(fixture('DD022/fire/resume_function.py'), 'DD022');
    assert.ok(fn.includes('    net = net.to(device)\n    opt.load_state_dict(state["opt"])  # expect: DD022(opt)\n    return net, opt\n'), fn);
  });

  it('moves the whole `if` that holds the move, and offers no edit when the move reads a name assigned after the load', () => {
    const [guarded] = fixedTexts(fixture('DD022/fire/cuda_method.py'), 'DD022');
    assert.ok(guarded.includes('model.load_state_dict(checkpoint["state_dict"])\nif torch.cuda.is_available():\n    model.cuda()\noptimizer.load_state_dict'), guarded);
    const source = [
      'import torch', 'import torch.nn as nn', '', 'model = nn.Linear(4, 4)', 'optimizer = torch.optim.Adam(model.parameters())',
      'optimizer.load_state_dict(torch.load("o.pt", map_location="cpu"))', 'device = torch.device("cuda" if torch.cuda.is_available() else "cpu")',
      'model.to(device)', '',
    ].join('\n');
    const findings = coreFindings(source).filter((f) => f.code === 'DD022');
    assert.equal(findings.length, 1);
    assert.deepEqual(findings[0].fixes, []);
  });
});

describe('DD023 fixes start DataParallel at the model\'s GPU', () => {
  before(async () => {
    await initPythonParser();
  });

  it('passes device_ids from the model\'s GPU on when none are given', () => {
    const [fixed] = fixedTexts(fixture('DD023/fire/model_on_second_gpu.py'), 'DD023');
    assert.ok(fixed.includes('model = nn.DataParallel(model, device_ids=list(range(1, torch.cuda.device_count())))'), fixed);
  });

  it('moves the model\'s GPU to the front of a literal list, keeping the others in order', () => {
    const [keyword] = fixedTexts(fixture('DD023/fire/ids_start_elsewhere.py'), 'DD023');
    assert.ok(keyword.includes('nn.DataParallel(model, device_ids=[1, 0])'), keyword);
    const [tuple] = fixedTexts(fixture('DD023/fire/from_parallel_module.py'), 'DD023');
    assert.ok(tuple.includes('DataParallel(model, device_ids=(1, 0))'), tuple);
  });
});

describe('DD024 fixes let the CUDA-only choice consider MPS', () => {
  before(async () => {
    await initPythonParser();
  });

  it('adds an MPS branch before the CPU one, as a string or a torch.device like the CPU branch', () => {
    const [strings] = fixedTexts(fixture('DD024/fire/two_functions.py'), 'DD024');
    assert.ok(strings.includes('return "cuda" if torch.cuda.is_available() else "mps" if torch.backends.mps.is_available() else "cpu"'), strings);
    const [devices] = fixedTexts(fixture('DD024/fire/helper_and_script.py'), 'DD024');
    assert.ok(devices.includes('device = torch.device("cuda") if torch.cuda.is_available() else torch.device("mps") if torch.backends.mps.is_available() else torch.device("cpu")'), devices);
  });

  it('spells torch as the file imports it', () => {
    const [alias] = fixedTexts(fixture('DD024/fire/alias_torch.py'), 'DD024');
    assert.ok(alias.includes('data_dev = "cuda" if th.cuda.is_available() else "mps" if th.backends.mps.is_available() else "cpu"'), alias);
  });
});
