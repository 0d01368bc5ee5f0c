// The device-doctor steps of docs/integrations/ci.md's GitHub Actions workflow and GitLab jobs,
// run verbatim with bash in a project with a device mistake, as a CPU runner would run them
// (python3 is Debian's PyTorch, as `pip install torch` on the CPU would give). Each must fail
// the step (exit 1: the gate works) and write its SARIF file, which must pass the SARIF 2.1.0
// JSON schema (Ajv) and Microsoft's SARIF validator (Sarif.Multitool validate, the SDK's own
// checker): no error and no warning.
import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { parse as parseYaml } from 'yaml';
import { findExecutable } from '../../src/node/pathLookup';
import { docSnippet } from '../unit/docSnippets';
import { sarifSchemaErrors } from '../unit/sarifSchema';
import { runToEnd } from './runToEnd';
import { ensureServerBuilt } from './serverClient';

const ROOT = path.resolve(__dirname, '..', '..');
const TORCH_PYTHON = '/usr/bin/python3';
// A training script whose model goes to CUDA and whose batches stay on the CPU: lint and the virtual GPU both find it.
const TRAIN = `import torch
model = torch.nn.Linear(4, 2).to("cuda")
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for _ in range(2):
    x = torch.randn(8, 4)
    loss = model(x).sum()
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
`;

/** The device-doctor command lines of the snippets, each with the SARIF file it writes. */
function deviceDoctorSteps(): Array<{ where: string; command: string; sarif: string }> {
  const steps: Array<{ where: string; command: string; sarif: string }> = [];
  const add = (where: string, command: string): void => {
    const sarif = /> *(\S+\.sarif)\s*$/.exec(command)?.[1];
    if (/^device-doctor (lint|run) /.test(command) && sarif) steps.push({ where, command, sarif });
  };
  const workflow = parseYaml(docSnippet('ci.md', 'github-actions')) as { jobs: Record<string, { steps: Array<{ run?: string }> }> };
  for (const [job, { steps: jobSteps }] of Object.entries(workflow.jobs)) for (const step of jobSteps) if (step.run) add(`GitHub Actions job ${job}`, step.run.trim());
  const pipeline = parseYaml(docSnippet('ci.md', 'gitlab-ci')) as Record<string, { script: string[] }>;
  for (const [job, { script }] of Object.entries(pipeline)) for (const line of script) add(`GitLab job ${job}`, line.trim());
  return steps;
}

describe('docs/integrations/ci.md: the device-doctor steps, run as a CPU runner runs them', function () {
  this.timeout(5 * 60_000);
  let bin: string;
  let project: string;
  let env: NodeJS.ProcessEnv;
  let bash: string;
  const multitool = require('@microsoft/sarif-multitool') as string;

  before(() => {
    ensureServerBuilt();
    const found = findExecutable('bash', process.env, process.platform);
    assert.ok(found, 'bash is not on PATH');
    bash = found;
    bin = fs.mkdtempSync(path.join(os.tmpdir(), 'dd-ci-bin-'));
    // What `npm install -g device-doctor` and `pip install torch` leave on a runner's PATH.
    fs.symlinkSync(path.join(ROOT, 'dist', 'cli.js'), path.join(bin, 'device-doctor'));
    fs.symlinkSync(TORCH_PYTHON, path.join(bin, 'python3'));
    project = fs.mkdtempSync(path.join(os.tmpdir(), 'dd-ci-project-'));
    fs.writeFileSync(path.join(project, 'train.py'), TRAIN);
    env = { ...process.env, PATH: `${bin}${path.delimiter}${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH ?? ''}` };
    // The package's postinstall does this; npm may have skipped it (install scripts not approved).
    fs.chmodSync(multitool, 0o755);
  });

  after(() => {
    fs.rmSync(bin, { recursive: true, force: true });
    fs.rmSync(project, { recursive: true, force: true });
  });

  const steps = deviceDoctorSteps();

  it('the snippets have a lint and a virtual-GPU run step in each CI', () => {
    assert.deepStrictEqual(steps.map((s) => `${s.where.split(' job')[0]}: ${s.command.split(' ')[1]}`),
      ['GitHub Actions: lint', 'GitHub Actions: run', 'GitLab: lint', 'GitLab: run']);
  });

  for (const step of steps) {
    it(`${step.where}: \`${step.command}\` fails on the mistake and writes SARIF both validators accept`, async () => {
      const outcome = await runToEnd(bash, ['-e', '-c', step.command], project, env);
      assert.strictEqual(outcome.status, 1, outcome.output);
      const file = path.join(project, step.sarif);
      const log = JSON.parse(fs.readFileSync(file, 'utf8'));
      assert.ok(log.runs[0].results.length > 0, 'no result in the SARIF');
      assert.deepStrictEqual(sarifSchemaErrors(log), []);
      const report = path.join(project, `${step.sarif}.validation.sarif`);
      const validated = await runToEnd(multitool, ['validate', file, '--output', report, '--log', 'ForceOverwrite'], project, env);
      assert.strictEqual(validated.status, 0, validated.output);
      const problems = (JSON.parse(fs.readFileSync(report, 'utf8')).runs[0].results ?? []) as Array<{ level?: string; ruleId: string; message: unknown }>;
      assert.deepStrictEqual(problems.filter((p) => p.level !== 'note'), [], validated.output);
    });
  }
});
