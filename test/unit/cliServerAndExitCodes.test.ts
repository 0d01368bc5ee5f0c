// `device-doctor server`'s command line, and the exit-code table of docs/integrations/ci.md
// against the CLI: every command has a row, and lint, rule and server exit as the table says.
import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { parseArgs } from '../../src/cli/args';
import { helpText } from '../../src/cli/help';
import { memoryIo } from '../../src/cli/io';
import { runCli } from '../../src/cli/main';
import { INTEGRATION_DOCS } from './docSnippets';

describe('device-doctor server: the command line', () => {
  it('takes --stdio, which editors pass, or nothing', () => {
    assert.deepStrictEqual(parseArgs(['server', '--stdio']), { command: 'server' });
    assert.deepStrictEqual(parseArgs(['server']), { command: 'server' });
  });

  it('refuses another transport or a stray argument with a usage error that points at its help', async () => {
    for (const argv of [['server', '--socket=5007'], ['server', 'extra']]) {
      const io = memoryIo(os.tmpdir());
      assert.strictEqual(await runCli(argv, io), 2);
      assert.match(io.err, /^error: .*\nRun 'device-doctor help server' for usage\.\n$/);
    }
  });

  it('is in the overview and has its own help', () => {
    assert.match(helpText(), /^ {2}server --stdio {4}/m);
    assert.match(helpText('server'), /^Usage: device-doctor server \[--stdio\]/);
  });
});

/** The rows of the exit-status table: first cell (command names in backticks) → the cells for 0, 1, 2. */
function exitTable(): Map<string, string[]> {
  const page = fs.readFileSync(path.join(INTEGRATION_DOCS, 'ci.md'), 'utf8');
  const section = page.slice(page.indexOf('## Exit status'));
  const rows = new Map<string, string[]>();
  for (const line of section.split('\n').filter((l) => /^\| `?[a-z]/.test(l))) {
    const [names, ...cells] = line.split('|').slice(1, -1).map((c) => c.trim());
    for (const name of names.split(',').map((n) => n.trim().replace(/`/g, ''))) rows.set(name, cells);
  }
  return rows;
}

describe('docs/integrations/ci.md: the exit-code table', () => {
  let folder: string;

  before(() => {
    folder = fs.mkdtempSync(path.join(os.tmpdir(), 'dd-exit-codes-'));
    fs.writeFileSync(path.join(folder, 'clean.py'), 'import torch\nx = torch.ones(2)\nprint(x.numpy())\n');
    fs.writeFileSync(path.join(folder, 'mistake.py'), 'import torch\nt = torch.ones(2).to("cuda")\nt.numpy()\n');
  });

  after(() => fs.rmSync(folder, { recursive: true, force: true }));

  it('has a row for every command of the overview', () => {
    const overview = helpText();
    const commands = [...overview.slice(overview.indexOf('Commands:')).matchAll(/^ {2}([a-z]+) /gm)].map((m) => m[1]).filter((c) => c !== 'help');
    const rows = exitTable();
    assert.deepStrictEqual(commands.filter((c) => !rows.has(c)), []);
  });

  it('says what lint, rule and server return, and they return it', async () => {
    const rows = exitTable();
    const cases: Array<{ argv: string[]; row: string; status: number }> = [
      { argv: ['lint', 'clean.py'], row: 'lint', status: 0 },
      { argv: ['lint', 'mistake.py'], row: 'lint', status: 1 },
      { argv: ['lint', '--format', 'yaml', 'clean.py'], row: 'lint', status: 2 },
      { argv: ['rule', 'DD003'], row: 'rule', status: 0 },
      { argv: ['rule', 'DD999'], row: 'rule', status: 2 },
      { argv: ['server', '--tcp'], row: 'server', status: 2 },
      { argv: ['no-such-command'], row: 'any', status: 2 },
    ];
    for (const { argv, row, status } of cases) {
      const io = memoryIo(folder);
      assert.strictEqual(await runCli(argv, io), status, `${argv.join(' ')}: ${io.err}`);
      assert.notStrictEqual(rows.get(row)?.[status] ?? '', '', `the table has nothing for ${row} exiting ${status}`);
    }
  });
});
