import * as assert from 'assert';
import { parseArgs, type Invocation, type LintOptions } from '../../src/cli/args';
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
      noqa: true, quiet: false, exitZero: false,
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

  it('recognizes the other commands and global options', () => {
    assert.deepStrictEqual(parseArgs(['doctor']), { command: 'doctor' });
    assert.deepStrictEqual(parseArgs(['detect', '--json']), { command: 'detect', argv: ['--json'] });
    assert.deepStrictEqual(parseArgs(['bench', '--size', '1024']), { command: 'bench', argv: ['--size', '1024'] });
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
    for (const option of ['--format', '--fix', '--select', '--extend-select', '--ignore', '--ignore-noqa', '--exit-zero', '--quiet']) {
      assert.ok(help.includes(option), option);
    }
    assert.match(helpText(), /Usage: device-doctor <command>/);
    assert.strictEqual(helpText('no-such-topic'), helpText());
  });
});
