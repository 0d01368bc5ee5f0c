// The text the DD006, DD008, DD009 and DD012 fixes write, beyond "it parses and removes its finding"
// (fixes.test.ts checks that for every firing fixture): the code a user gets is the right one.
import { strict as assert } from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import { initPythonParser } from '../../src/core/analysis';
import type { Finding, RuleCode } from '../../src/core/analysis';
import { coreFindings } from './helpers/analysis';
import { everyFixProblems, fixAllProblems } from './helpers/fixChecks';
import { applyFix } from './helpers/fixes';
import { RULE_FIXTURES_DIR } from './helpers/fixtures';

function fixture(rule: RuleCode, name: string): string {
  return fs.readFileSync(path.join(RULE_FIXTURES_DIR, rule, 'fire', name), 'utf8');
}

function findingOf(source: string, code: RuleCode, line?: string): Finding {
  const lineIndex = line === undefined ? -1 : source.split('\n').findIndex((l) => l.includes(line));
  const f = coreFindings(source).find((x) => x.code === code && (lineIndex < 0 || x.range.start.line === lineIndex));
  assert.ok(f, `${code} expected`);
  return f;
}

describe('fix texts of the training rules (DD006, DD008, DD009, DD012)', () => {
  before(async () => {
    await initPythonParser();
  });

  /** The same fixture with its device chosen as the CPU: the loss is a host tensor there. */
  const onCpu = (source: string) => {
    const cpu = source.replace('device = torch.device("cuda" if torch.cuda.is_available() else "cpu")', 'device = torch.device("cpu")');
    assert.notEqual(cpu, source, 'the fixture chooses its device as expected');
    return cpu;
  };

  it('DD009 on `+=` accumulates loss.item() when the total stays a number on the CPU', () => {
    const source = onCpu(fixture('DD009', 'epoch_total_loss.py'));
    const fixed = applyFix(source, findingOf(source, 'DD009').fixes.find((f) => f.preferred)!);
    assert.ok(fixed.includes('        epoch_loss += loss.item()  # expect: DD009(epoch_loss)\n'), fixed);
  });

  it('DD009 on an accelerator accumulates loss.detach() and offers no .item(), which would wait every step (DD007)', () => {
    const source = fixture('DD009', 'epoch_total_loss.py');
    const { fixes } = findingOf(source, 'DD009');
    assert.deepEqual(fixes.map((f) => f.title), ['Accumulate without history: loss.detach()']);
    const fixed = applyFix(source, fixes[0]);
    assert.ok(fixed.includes('        epoch_loss += loss.detach()  # expect: DD009(epoch_loss)\n'), fixed);
    assert.deepEqual(coreFindings(fixed).filter((f) => f.code === 'DD007' || f.code === 'DD009'), []);
  });

  it('DD009 prefers .detach() when the total is used as a tensor later (total_loss.item())', () => {
    const source = fixture('DD009', 'tqdm_enumerate_loop.py');
    const fixed = applyFix(source, findingOf(source, 'DD009').fixes.find((f) => f.preferred)!);
    assert.ok(fixed.includes('total_loss += loss.detach()'), fixed);
  });

  it('DD009 on an arithmetic expression wraps it before .item(), in the fix, its title and the message', () => {
    const source = onCpu(fixture('DD009', 'scaled_loss_sum.py'));
    const preferred = findingOf(source, 'DD009').fixes.find((f) => f.preferred)!;
    assert.strictEqual(preferred.title, 'Accumulate the number: (loss * data.size(0)).item()', 'the title reads as the fix writes');
    const finding = findingOf(source, 'DD009');
    assert.ok(finding.message.includes('`(loss * data.size(0)).item()`'), `the message reads as the fix writes: ${finding.message}`);
    assert.ok(!finding.message.includes('data.size(0).item()'), finding.message);
    const fixed = applyFix(source, preferred);
    assert.ok(fixed.includes('loss_sum += (loss * data.size(0)).item()'), fixed);
  });

  it('DD009 on append detaches what is appended', () => {
    const source = fixture('DD009', 'history_append.py');
    const fixed = applyFix(source, findingOf(source, 'DD009').fixes.find((f) => f.preferred)!);
    assert.ok(fixed.includes('history.append(loss.detach())'), fixed);
  });

  it('DD012 adds pin_memory=True to the DataLoader call, or turns False into True', () => {
    const added = fixture('DD012', 'basic_loader.py');
    const fixedAdded = applyFix(added, findingOf(added, 'DD012').fixes[0]);
    assert.ok(fixedAdded.includes('DataLoader(train_set, batch_size=64, shuffle=True, num_workers=4, pin_memory=True)'), fixedAdded);
    const turned = fixture('DD012', 'pin_memory_false.py');
    const fixedTurned = applyFix(turned, findingOf(turned, 'DD012').fixes[0]);
    assert.ok(fixedTurned.includes('DataLoader(dataset, batch_size=16, pin_memory=True)'), fixedTurned);
  });

  it('DD008 switches float16 to bfloat16, or adds dtype=torch.bfloat16 where none was given', () => {
    const explicit = fixture('DD008', 'autocast_float16_loop.py');
    const fixedExplicit = applyFix(explicit, findingOf(explicit, 'DD008').fixes.find((f) => f.preferred)!);
    assert.ok(fixedExplicit.includes('with torch.autocast(device_type="cuda", dtype=torch.bfloat16):'), fixedExplicit);
    const implicit = fixture('DD008', 'cuda_amp_default.py');
    const fixedImplicit = applyFix(implicit, findingOf(implicit, 'DD008').fixes.find((f) => f.preferred)!);
    assert.ok(fixedImplicit.includes('with torch.cuda.amp.autocast(dtype=torch.bfloat16):'), fixedImplicit);
  });

  it('DD008 second action writes the GradScaler recipe: scaler before the loop, scale/step/update', () => {
    const source = fixture('DD008', 'cuda_amp_default.py');
    const scaler = findingOf(source, 'DD008').fixes.find((f) => f.title.startsWith('Scale the loss'));
    assert.ok(scaler, 'a GradScaler fix expected');
    const fixed = applyFix(source, scaler);
    assert.ok(fixed.includes('scaler = torch.amp.GradScaler()\nfor inputs, targets in loader:\n'), fixed);
    assert.ok(fixed.includes('    scaler.scale(loss).backward()\n    scaler.step(opt)\n    scaler.update()\n'), fixed);
  });

  it('DD006 synchronizes the backend the file uses, guarded when the device is chosen at run time', () => {
    const cuda = fixture('DD006', 'single_forward_time.py');
    const fixedCuda = applyFix(cuda, findingOf(cuda, 'DD006').fixes[0]);
    assert.ok(fixedCuda.includes('    logits = model(images)\n    torch.cuda.synchronize()\n    t1 = time.time()'), fixedCuda);
    const mps = fixture('DD006', 'conv_mps.py');
    const fixedMps = applyFix(mps, findingOf(mps, 'DD006').fixes[0]);
    assert.ok(fixedMps.includes('features = conv(batch)\ntorch.mps.synchronize()\nelapsed = time.time() - start'), fixedMps);
    const either = fixture('DD006', 'forward_benchmark_loop.py');
    const fixedEither = applyFix(either, findingOf(either, 'DD006').fixes[0]);
    assert.ok(fixedEither.includes('    y = model(x)\nif torch.cuda.is_available(): torch.cuda.synchronize()\nelapsed ='), fixedEither);
  });

  it('DD008 offers no GradScaler edit where the scope has two backward() calls', () => {
    const source = fixture('DD008', 'retain_graph_backward.py');
    const titles = findingOf(source, 'DD008').fixes.map((f) => f.title);
    assert.deepEqual(titles, ['Autocast in bfloat16 (no GradScaler needed)']);
  });

  // Inserted lines (the synchronize call, the GradScaler recipe) take the file's line ending and indentation.
  const layouts: Array<[string, (t: string) => string]> = [
    ['CRLF', (t) => t.replace(/\r?\n/g, '\r\n')],
    ['tabs', (t) => t.replace(/^((?: {4})+)/gm, (spaces) => '\t'.repeat(spaces.length / 4))],
  ];
  const cases: Array<[RuleCode, string]> = [
    ['DD006', 'single_forward_time.py'], ['DD008', 'cuda_amp_default.py'], ['DD008', 'half_alias.py'],
    ['DD009', 'epoch_total_loss.py'], ['DD012', 'trainer_class_attribute.py'],
  ];
  for (const [rule, name] of cases) {
    for (const [layout, convert] of layouts) {
      it(`${rule}/${name} (${layout}): every fix applies cleanly and fix-all settles`, () => {
        const source = convert(fixture(rule, name));
        const { findings, problems } = everyFixProblems(source);
        assert.ok(findings.some((f) => f.code === rule), `${rule} expected`);
        assert.deepEqual(problems, []);
        assert.deepEqual(fixAllProblems(source), []);
      });
    }
  }
});
