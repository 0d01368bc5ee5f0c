// Debian's pre-commit runs this repository's hooks (.pre-commit-hooks.yaml) on a temporary
// repository, configured with the snippets of docs/integrations/pre-commit.md. pre-commit installs
// a `language: node` hook the way it would from GitHub: clone at `rev`, npm install, npm pack
// (whose prepack builds dist/), npm install -g of the tarball. Only `repo` and `rev` differ from
// the page: they name this checkout's last commit, as the tests cannot reach GitHub, so this
// tests what is committed (uncommitted changes of the shared checkout would not build).
import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { findExecutable } from '../../src/node/pathLookup';
import { docSnippet } from '../unit/docSnippets';
import { runToEnd, type Outcome } from './runToEnd';

const ROOT = path.resolve(__dirname, '..', '..');
const MISTAKE = 'import torch\nt = torch.ones(2).to("cuda")\nt.numpy()\n';

/** The snippet's configuration with `repo` and `rev` pointing at this checkout's HEAD. */
function localConfig(snippet: string, head: string): string {
  const config = parseYaml(snippet) as { repos: Array<{ repo: string; rev: string; hooks: unknown[] }> };
  assert.strictEqual(config.repos.length, 1);
  assert.match(config.repos[0].repo, /github\.com\/device-doctor\/device-doctor$/);
  config.repos[0].repo = ROOT;
  config.repos[0].rev = head;
  return stringifyYaml(config);
}

describe('pre-commit runs the hooks of .pre-commit-hooks.yaml as docs/integrations/pre-commit.md configures them', function () {
  // The first hook run installs the hook: npm install of the development dependencies and a build, 2-3 minutes here.
  this.timeout(15 * 60_000);
  const git = findExecutable('git', process.env, process.platform);
  const preCommit = findExecutable('pre-commit', process.env, process.platform);
  let home: string;
  let project: string;
  let env: NodeJS.ProcessEnv;
  let head: string;

  before(async () => {
    assert.ok(git, 'git is not on PATH');
    assert.ok(preCommit, 'pre-commit is not on PATH: apt-get install -y pre-commit');
    const revParse = await runToEnd(git, ['rev-parse', 'HEAD'], ROOT, process.env);
    assert.strictEqual(revParse.status, 0, revParse.output);
    head = revParse.output.trim();
    home = fs.mkdtempSync(path.join(os.tmpdir(), 'dd-pre-commit-home-'));
    project = fs.mkdtempSync(path.join(os.tmpdir(), 'dd-pre-commit-project-'));
    env = {
      ...process.env,
      PRE_COMMIT_HOME: home,
      // The npm cache already holds the dependencies: do not ask the registry again for each one.
      npm_config_prefer_offline: 'true', npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false',
      GIT_AUTHOR_NAME: 'Test', GIT_AUTHOR_EMAIL: 'test@example.com', GIT_COMMITTER_NAME: 'Test', GIT_COMMITTER_EMAIL: 'test@example.com',
    };
    for (const args of [['init', '-q'], ['config', 'commit.gpgsign', 'false']]) assert.strictEqual((await runToEnd(git, args, project, env)).status, 0);
    fs.writeFileSync(path.join(project, 'README.md'), 'a project\n');
    await runToEnd(git, ['add', 'README.md'], project, env);
    assert.strictEqual((await runToEnd(git, ['commit', '-q', '-m', 'start'], project, env)).status, 0);
  });

  after(() => {
    fs.rmSync(home, { recursive: true, force: true });
    fs.rmSync(project, { recursive: true, force: true });
  });

  async function useConfig(snippetName: string): Promise<void> {
    fs.writeFileSync(path.join(project, '.pre-commit-config.yaml'), localConfig(docSnippet('pre-commit.md', snippetName), head));
    const installed = await runToEnd(preCommit as string, ['install'], project, env);
    assert.strictEqual(installed.status, 0, installed.output);
  }

  /** Stages `file` (with `text` written first, when given) and the configuration, and commits. */
  async function commit(file: string, text?: string): Promise<Outcome> {
    if (text !== undefined) fs.writeFileSync(path.join(project, file), text);
    await runToEnd(git as string, ['add', file, '.pre-commit-config.yaml'], project, env);
    return runToEnd(git as string, ['commit', '-q', '-m', `add ${file}`], project, env);
  }

  it('device-doctor: a staged file with a .numpy() of a CUDA tensor fails the commit and is left as it was', async () => {
    await useConfig('pre-commit-config');
    const outcome = await commit('train.py', MISTAKE);
    assert.notStrictEqual(outcome.status, 0, outcome.output);
    assert.match(outcome.output, /train\.py:3:\d+: DD003/);
    assert.strictEqual(fs.readFileSync(path.join(project, 'train.py'), 'utf8'), MISTAKE);
  });

  it('device-doctor-fix: the commit fails with the file fixed, and the fixed file commits', async () => {
    await useConfig('pre-commit-config-fix');
    const refused = await commit('train.py', MISTAKE);
    assert.notStrictEqual(refused.status, 0, refused.output);
    assert.match(refused.output, /files were modified by this hook/);
    const fixed = fs.readFileSync(path.join(project, 'train.py'), 'utf8');
    assert.match(fixed, /^t\.cpu\(\)\.numpy\(\)$/m, fixed);
    // The fixed file, as the hook left it, is what the person reviews and commits.
    const accepted = await commit('train.py');
    assert.strictEqual(accepted.status, 0, accepted.output);
  });
});
