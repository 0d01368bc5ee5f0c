// The SARIF that lint and run print is checked against the official SARIF 2.1.0 JSON schema
// (test/unit/sarifSchema.ts), and the CI snippets of docs/integrations/ci.md upload exactly the
// file their device-doctor step writes, in that format.
import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { parse as parseYaml } from 'yaml';
import { runLintReport } from '../../src/cli/formats/runReport';
import { formatRunSarif } from '../../src/cli/formats/runSarif';
import { memoryIo } from '../../src/cli/io';
import { runCli } from '../../src/cli/main';
import { clearProjectConfigCache } from '../../src/core/config';
import { parseRunReport } from '../../src/core/virtualRun/report';
import { docSnippet } from './docSnippets';
import { sarifSchemaErrors } from './sarifSchema';

const FIXTURE = path.join(__dirname, '..', 'fixtures', 'cli', 'project');

interface SarifResult {
  ruleId: string;
  fixes?: unknown[];
  locations: Array<{ physicalLocation: { artifactLocation: { uri: string } } }>;
}

function results(log: { runs: Array<{ results: SarifResult[] }> }): SarifResult[] {
  return log.runs[0].results;
}

describe('SARIF output against the SARIF 2.1.0 JSON schema', () => {
  let project: string;

  before(() => {
    project = fs.mkdtempSync(path.join(os.tmpdir(), 'dd-sarif-'));
    fs.cpSync(FIXTURE, project, { recursive: true });
    // A statement that does not parse, a path that must be percent-encoded and a finding with a related location.
    fs.writeFileSync(path.join(project, 'broken syntax é.py'), 'import torch\nx = torch.ones(2).to("cuda")\nx.numpy()\ndef (:\n');
    clearProjectConfigCache();
  });

  after(() => fs.rmSync(project, { recursive: true, force: true }));

  it('lint --format sarif on a project with a notebook, fixes and a syntax error is a valid SARIF 2.1.0 log', async () => {
    const io = memoryIo(project);
    const status = await runCli(['lint', '--format', 'sarif', '.'], io);
    assert.strictEqual(status, 1, io.err);
    const log = JSON.parse(io.out);
    assert.deepStrictEqual(sarifSchemaErrors(log), []);
    const found = results(log);
    assert.ok(found.some((r) => r.fixes !== undefined), 'no result with a fix: the fixes were not validated');
    assert.ok(found.some((r) => r.locations[0].physicalLocation.artifactLocation.uri.endsWith('.ipynb')), 'no notebook result');
    assert.ok(found.some((r) => r.locations[0].physicalLocation.artifactLocation.uri.includes('%C3%A9')), 'no percent-encoded path');
  });

  it('run --format sarif (the virtual GPU) with runtime stacks across files is a valid SARIF 2.1.0 log', () => {
    const train = path.join(project, 'train.py');
    const report = parseRunReport(JSON.stringify({
      version: 1, outcome: 'finished', stoppedBy: null, virtual: { kind: 'cuda', devices: 1 }, torch: '1.13.1', steps: 2, seconds: 1, error: null,
      findings: [
        { code: 'DD001', message: 'Expected all tensors to be on the same device', fatal: true, count: 2,
          stack: [{ file: train, line: 13, function: 'forward' }, { file: train, line: 27, function: 'main' }] },
        { code: 'DD003', message: "can't convert cuda:0 device type tensor to numpy.", fatal: true, count: 1, stack: [{ file: train, line: 32, function: 'main' }] },
      ],
    }));
    const origins = new Map();
    const lint = runLintReport(report, (file) => ({ sources: [fs.readFileSync(file, 'utf8')] }), (file) => path.relative(project, file), origins);
    const log = JSON.parse(formatRunSarif(lint, origins, { cwd: project, version: '0.0.0' }));
    assert.deepStrictEqual(sarifSchemaErrors(log), []);
    assert.strictEqual(results(log).length, 2);
  });

  it('the schema rejects a log whose result has no message, so a broken formatter would fail here', async () => {
    const io = memoryIo(project);
    await runCli(['lint', '--format', 'sarif', 'train.py'], io);
    const log = JSON.parse(io.out);
    delete (results(log)[0] as unknown as Record<string, unknown>).message;
    assert.ok(sarifSchemaErrors(log).some((e) => e.includes('message')), 'a result without a message passed the schema');
  });
});

interface WorkflowStep {
  run?: string;
  uses?: string;
  with?: Record<string, string>;
}

/** The file a `device-doctor … --format sarif … > file` command line writes. */
function sarifWrittenBy(command: string): string | undefined {
  return /device-doctor (?:lint|run) [^\n>]*--format sarif[^\n>]*> *(\S+)/.exec(command)?.[1];
}

describe('docs/integrations/ci.md: the CI snippets', () => {
  it('each GitHub Actions job uploads the SARIF file its device-doctor step writes, even after findings', () => {
    const workflow = parseYaml(docSnippet('ci.md', 'github-actions')) as { jobs: Record<string, { steps: WorkflowStep[]; permissions: Record<string, string> }> };
    const jobs = Object.values(workflow.jobs);
    assert.strictEqual(jobs.length, 2);
    const categories = new Set<string>();
    for (const job of jobs) {
      const written = job.steps.map((s) => (s.run ? sarifWrittenBy(s.run) : undefined)).filter((f): f is string => f !== undefined);
      const upload = job.steps.find((s) => s.uses?.startsWith('github/codeql-action/upload-sarif@'));
      assert.strictEqual(written.length, 1, JSON.stringify(job.steps));
      assert.ok(upload?.with, 'no upload-sarif step');
      assert.strictEqual(upload.with.sarif_file, written[0]);
      assert.strictEqual((upload as { if?: string }).if, 'always()', 'the upload must run after a step that found mistakes');
      assert.strictEqual(job.permissions['security-events'], 'write');
      categories.add(upload.with.category);
    }
    assert.strictEqual(categories.size, 2, 'two uploads of one tool need two categories');
  });

  it('each GitLab job keeps the SARIF file its script writes, even when the job fails', () => {
    const pipeline = parseYaml(docSnippet('ci.md', 'gitlab-ci')) as Record<string, { script: string[]; artifacts: { when: string; paths: string[] } }>;
    const jobs = Object.values(pipeline);
    assert.strictEqual(jobs.length, 2);
    for (const job of jobs) {
      const written = job.script.map(sarifWrittenBy).filter((f): f is string => f !== undefined);
      assert.strictEqual(written.length, 1, JSON.stringify(job.script));
      assert.deepStrictEqual(job.artifacts.paths, written);
      assert.strictEqual(job.artifacts.when, 'always');
    }
  });
});
