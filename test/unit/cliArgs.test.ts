import * as assert from 'assert';
import { DEFAULT_MAX_BYTES, helpCommandFor, parseArgs, type Invocation, type LintOptions } from '../../src/cli/args';
import { helpText } from '../../src/cli/help';

function lint(argv: string[]): LintOptions {
  const invocation = parseArgs(['lint', ...argv]);
  assert.strictEqual(invocation.command, 'lint', JSON.stringify(invocation));
  return (invocation as Extract<Invocation, { command: 'lint' }>).options;
}

function usageError(argv: string[]): string {
  const invocation = parseArgs(argv);
  assert.strictEqual(invocation.command, 'usage-error', JSON.stringify(invocation));
  return (invocation as Extract<Invocation, { command: 'usage-error' }>).message;
}

describe('cli: argument parsing', () => {
  it('gives lint its defaults', () => {
    assert.deepStrictEqual(lint([]), {
      paths: ['.'], format: 'text', fix: false, select: undefined, extendSelect: undefined, ignore: undefined,
      noqa: true, quiet: false, exitZero: false, maxBytes: DEFAULT_MAX_BYTES,
    });
  });

  it('reads paths, flags and options with separate or = values', () => {
    const options = lint(['src', '--format', 'json', '--fix', 'train.py', '--select=DD001,DD003', '-q', '--exit-zero']);
    assert.deepStrictEqual(options.paths, ['src', 'train.py']);
    assert.strictEqual(options.format, 'json');
    assert.strictEqual(options.fix, true);
    assert.deepStrictEqual(options.select, ['DD001', 'DD003']);
    assert.strictEqual(options.quiet, true);
    assert.strictEqual(options.exitZero, true);
  });

  it('accumulates repeated code options and trims spaces', () => {
    assert.deepStrictEqual(lint(['--ignore', 'DD001, DD002', '--ignore', 'DD010']).ignore, ['DD001', 'DD002', 'DD010']);
    assert.deepStrictEqual(lint(['--extend-select', 'DD0']).extendSelect, ['DD0']);
  });

  it('turns off noqa with --ignore-noqa or --no-noqa', () => {
    assert.strictEqual(lint(['--ignore-noqa']).noqa, false);
    assert.strictEqual(lint(['--no-noqa']).noqa, false);
  });

  it('treats everything after -- as paths, even names that look like options', () => {
    assert.deepStrictEqual(lint(['--', '--fix', '-weird.py']).paths, ['--fix', '-weird.py']);
    assert.strictEqual(lint(['--', '--fix']).fix, false);
  });

  it('lets the last --format win', () => {
    assert.strictEqual(lint(['--format', 'json', '--format', 'sarif']).format, 'sarif');
  });

  it('rejects unknown options, formats and rule codes', () => {
    assert.match(usageError(['lint', '--frmat', 'json']), /unknown option '--frmat'/);
    assert.match(usageError(['lint', '-x']), /unknown option '-x'/);
    assert.match(usageError(['lint', '--format', 'xml']), /unknown format 'xml' \(choose text, json, sarif\)/);
    assert.match(usageError(['lint', '--select', 'DD001,DD999']), /unknown rule code 'DD999' in --select/);
    assert.match(usageError(['lint', '--ignore', 'E501']), /unknown rule code 'E501' in --ignore/);
  });

  it('rejects a missing value and a value given to a flag', () => {
    assert.match(usageError(['lint', '--format']), /'--format' needs a value/);
    assert.match(usageError(['lint', '--fix=yes']), /'--fix' takes no value/);
  });

  it('points usage errors in lint at lint help', () => {
    const invocation = parseArgs(['lint', '--nope']);
    assert.deepStrictEqual(invocation, { command: 'usage-error', message: "unknown option '--nope'", topic: 'lint' });
  });

  it('detect and doctor probe the folder\'s own virtual environments only when --discover is given', () => {
    assert.strictEqual((parseArgs(['detect']) as { options: { discover?: boolean } }).options.discover, undefined);
    assert.deepStrictEqual(parseArgs(['detect', '--discover']), { command: 'detect', options: { json: false, verbose: false, discover: true } });
    assert.deepStrictEqual(parseArgs(['doctor', '--discover', '--python', '/opt/py']), { command: 'doctor', options: { discover: true, python: '/opt/py' } });
    assert.deepStrictEqual(parseArgs(['doctor', '--discover=yes']), { command: 'usage-error', message: "option '--discover' takes no value", topic: 'doctor' });
    assert.deepStrictEqual(parseArgs(['bench', '--discover']), { command: 'usage-error', message: "unknown option '--discover'", topic: 'bench' });
  });

  it('recognizes the other commands and global options', () => {
    assert.deepStrictEqual(parseArgs(['doctor']), { command: 'doctor', options: {} });
    assert.deepStrictEqual(parseArgs(['doctor', '--python', '/usr/bin/python3']), { command: 'doctor', options: { python: '/usr/bin/python3' } });
    assert.deepStrictEqual(parseArgs(['doctor', '--python=/opt/py']), { command: 'doctor', options: { python: '/opt/py' } });
    assert.deepStrictEqual(parseArgs(['detect', '--json']), { command: 'detect', options: { json: true, verbose: false } });
    assert.deepStrictEqual(parseArgs(['bench', '--size', '1024']), { command: 'bench', options: { sweep: false, json: false, size: 1024 } });
    assert.deepStrictEqual(parseArgs(['--version']), { command: 'version' });
    assert.deepStrictEqual(parseArgs(['-V']), { command: 'version' });
    assert.deepStrictEqual(parseArgs(['--help']), { command: 'help' });
    assert.deepStrictEqual(parseArgs(['help', 'lint']), { command: 'help', topic: 'lint' });
    assert.deepStrictEqual(parseArgs(['lint', '-h']), { command: 'help', topic: 'lint' });
    assert.deepStrictEqual(parseArgs(['doctor', '--help']), { command: 'help', topic: 'doctor' });
  });

  it('rejects no command, an unknown command, and arguments to doctor', () => {
    assert.match(usageError([]), /no command given/);
    assert.match(usageError(['lnt']), /unknown command 'lnt'/);
    assert.match(usageError(['doctor', 'src']), /'doctor' takes no arguments/);
  });

  it('documents every lint option in its help', () => {
    const help = helpText('lint');
    for (const option of ['--format', '--fix', '--select', '--extend-select', '--ignore', '--ignore-noqa', '--exit-zero', '--quiet', '--max-bytes']) {
      assert.ok(help.includes(option), option);
    }
    assert.match(helpText(), /Usage: device-doctor <command>/);
    assert.strictEqual(helpText('no-such-topic'), helpText());
  });
});

describe('cli: one parser for every command', () => {
  it('takes the next argument as a value whatever it looks like', () => {
    assert.deepStrictEqual(parseArgs(['detect', '--python', '--json']), { command: 'detect', options: { json: false, verbose: false, python: '--json' } });
    assert.deepStrictEqual(parseArgs(['bench', '--size', '-5']), { command: 'bench', options: { sweep: false, json: false, size: -5 } });
    assert.match(usageError(['lint', '--format', '--fix']), /^unknown format '--fix' /);
  });

  it('lets the last of a repeated value win in detect and bench', () => {
    assert.deepStrictEqual(parseArgs(['detect', '--device', 'cuda:0', '--device=cuda:1']), { command: 'detect', options: { json: false, verbose: false, device: 'cuda:1' } });
    assert.deepStrictEqual(parseArgs(['bench', '--dtype', 'all', '--dtype', 'float16']), { command: 'bench', options: { sweep: false, json: false, dtypes: ['float16'] } });
  });

  it('rejects the same spellings in every command, naming the option as typed', () => {
    for (const command of ['lint', 'doctor', 'detect', 'bench']) {
      assert.deepStrictEqual(parseArgs([command, '--nope=1']), { command: 'usage-error', message: "unknown option '--nope'", topic: command });
      assert.deepStrictEqual(parseArgs([command, '-x']), { command: 'usage-error', message: "unknown option '-x'", topic: command });
      // Short options do not combine, and take no '=': no option is named -hx or -h=1.
      assert.deepStrictEqual(parseArgs([command, '-hx']), { command: 'usage-error', message: "unknown option '-hx'", topic: command });
      assert.deepStrictEqual(parseArgs([command, '-h=1']), { command: 'usage-error', message: "unknown option '-h=1'", topic: command });
      assert.deepStrictEqual(parseArgs([command, '--help=yes']), { command: 'usage-error', message: "option '--help' takes no value", topic: command });
    }
    assert.match(usageError(['detect', '--json=1']), /^option '--json' takes no value$/);
    assert.match(usageError(['bench', '--sweep=yes']), /^option '--sweep' takes no value$/);
    assert.match(usageError(['detect', '--device']), /^option '--device' needs a value$/);
  });

  it('ends options at --, so what follows is an argument', () => {
    assert.match(usageError(['detect', '--', '--json']), /^'detect' takes no arguments \(got '--json'\)$/);
    assert.match(usageError(['bench', '--', '-h']), /^'bench' takes no arguments \(got '-h'\)$/);
    assert.match(usageError(['doctor', '--', '--help']), /^'doctor' takes no arguments \(got '--help'\)$/);
  });

  it('judges spelling and stray arguments before help, and values after it', () => {
    assert.match(usageError(['lint', '--help', '--nope']), /unknown option '--nope'/);
    assert.match(usageError(['doctor', '--help', 'src']), /'doctor' takes no arguments \(got 'src'\)/);
    assert.deepStrictEqual(parseArgs(['lint', '--format', 'xml', '-h']), { command: 'help', topic: 'lint' });
    assert.deepStrictEqual(parseArgs(['detect', '--timeout', '0', '--help']), { command: 'help', topic: 'detect' });
    assert.deepStrictEqual(parseArgs(['bench', '--size', 'big', '--sweep', '-h']), { command: 'help', topic: 'bench' });
  });

  it('checks values in the order given', () => {
    assert.match(usageError(['bench', '--repeats', 'x', '--size', 'big']), /^--repeats needs a number \(got 'x'\)$/);
    assert.match(usageError(['bench', '--size', 'big', '--repeats', 'x']), /^--size needs a number \(got 'big'\)$/);
  });

  it("points each command's usage errors at its help", () => {
    assert.strictEqual(helpCommandFor('lint'), 'device-doctor help lint');
    assert.strictEqual(helpCommandFor('doctor'), 'device-doctor help doctor');
    assert.strictEqual(helpCommandFor('detect'), 'device-doctor detect --help');
    assert.strictEqual(helpCommandFor('bench'), 'device-doctor bench --help');
    assert.strictEqual(helpCommandFor(undefined), 'device-doctor --help');
    assert.strictEqual(helpCommandFor('constructor'), 'device-doctor --help');
  });
});
