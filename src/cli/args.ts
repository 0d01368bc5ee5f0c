// A small argv parser: `--name value`, `--name=value`, boolean flags, `-h`, and `--`
// to end options. No dependency: the CLI has four subcommands and a dozen options.
import { isRuleSelector } from '../core/config';

export type OutputFormat = 'text' | 'json' | 'sarif';
export const OUTPUT_FORMATS: readonly OutputFormat[] = ['text', 'json', 'sarif'];

export interface LintOptions {
  paths: string[];
  format: OutputFormat;
  fix: boolean;
  /** From --select; replaces the pyproject selection when present. */
  select?: string[];
  extendSelect?: string[];
  ignore?: string[];
  /** false with --ignore-noqa: report findings on `# noqa` lines too. */
  noqa: boolean;
  quiet: boolean;
  exitZero: boolean;
}

export type Invocation =
  | { command: 'help'; topic?: string }
  | { command: 'version' }
  | { command: 'lint'; options: LintOptions }
  | { command: 'doctor' }
  | { command: 'detect'; argv: readonly string[] }
  | { command: 'bench'; argv: readonly string[] }
  | { command: 'usage-error'; message: string; topic?: string };

interface OptionSpec {
  name: string;
  alias?: string;
  takesValue: boolean;
}

const LINT_OPTIONS: OptionSpec[] = [
  { name: 'format', takesValue: true },
  { name: 'fix', takesValue: false },
  { name: 'select', takesValue: true },
  { name: 'extend-select', takesValue: true },
  { name: 'ignore', takesValue: true },
  { name: 'ignore-noqa', takesValue: false },
  { name: 'no-noqa', takesValue: false },
  { name: 'quiet', alias: 'q', takesValue: false },
  { name: 'exit-zero', takesValue: false },
  { name: 'help', alias: 'h', takesValue: false },
];

const HELP_ONLY: OptionSpec[] = [{ name: 'help', alias: 'h', takesValue: false }];


export class UsageError extends Error {}

interface ParsedOptions {
  /** Each option's values in order; flags get "true". */
  values: Map<string, string[]>;
  positionals: string[];
}

function findSpec(specs: OptionSpec[], arg: string): OptionSpec | undefined {
  if (arg.startsWith('--')) return specs.find((s) => s.name === arg.slice(2));
  return specs.find((s) => s.alias !== undefined && s.alias === arg.slice(1));
}

function parseOptions(argv: readonly string[], specs: OptionSpec[]): ParsedOptions {
  const values = new Map<string, string[]>();
  const positionals: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--') {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (!arg.startsWith('-') || arg === '-') {
      positionals.push(arg);
      continue;
    }
    const eq = arg.startsWith('--') ? arg.indexOf('=') : -1;
    const name = eq >= 0 ? arg.slice(0, eq) : arg;
    const spec = findSpec(specs, name);
    if (!spec) throw new UsageError(`unknown option '${name}'`);
    let value = 'true';
    if (spec.takesValue) {
      if (eq >= 0) value = arg.slice(eq + 1);
      else if (i + 1 < argv.length) value = argv[++i];
      else throw new UsageError(`option '--${spec.name}' needs a value`);
    } else if (eq >= 0) {
      throw new UsageError(`option '--${spec.name}' takes no value`);
    }
    values.set(spec.name, [...(values.get(spec.name) ?? []), value]);
  }
  return { values, positionals };
}

/** Comma-separated codes, possibly repeated (`--select DD001,DD003 --select DD010`). */
function readCodes(options: ParsedOptions, name: string): string[] | undefined {
  const raw = options.values.get(name);
  if (!raw) return undefined;
  const codes = raw.flatMap((v) => v.split(',')).map((c) => c.trim()).filter((c) => c !== '');
  for (const code of codes) {
    if (!isRuleSelector(code)) {
      throw new UsageError(`unknown rule code '${code}' in --${name} (use codes such as DD003, prefixes such as DD00, or ALL)`);
    }
  }
  return codes;
}

function readFormat(options: ParsedOptions): OutputFormat {
  const values = options.values.get('format');
  const format = values ? values[values.length - 1] : 'text';
  if (!(OUTPUT_FORMATS as readonly string[]).includes(format)) {
    throw new UsageError(`unknown format '${format}' (choose ${OUTPUT_FORMATS.join(', ')})`);
  }
  return format as OutputFormat;
}

function parseLint(argv: readonly string[]): Invocation {
  const options = parseOptions(argv, LINT_OPTIONS);
  if (options.values.has('help')) return { command: 'help', topic: 'lint' };
  const flag = (name: string): boolean => options.values.has(name);
  return {
    command: 'lint',
    options: {
      paths: options.positionals.length > 0 ? options.positionals : ['.'],
      format: readFormat(options),
      fix: flag('fix'),
      select: readCodes(options, 'select'),
      extendSelect: readCodes(options, 'extend-select'),
      ignore: readCodes(options, 'ignore'),
      noqa: !flag('ignore-noqa') && !flag('no-noqa'),
      quiet: flag('quiet'),
      exitZero: flag('exit-zero'),
    },
  };
}

function parseHelpOnly(command: string, argv: readonly string[]): ParsedOptions {
  const options = parseOptions(argv, HELP_ONLY);
  if (options.positionals.length > 0) {
    throw new UsageError(`'${command}' takes no arguments (got '${options.positionals[0]}')`);
  }
  return options;
}

function parseCommand(command: string, rest: readonly string[]): Invocation {
  switch (command) {
    case 'lint':
      return parseLint(rest);
    case 'doctor':
      return parseHelpOnly(command, rest).values.has('help') ? { command: 'help', topic: 'doctor' } : { command: 'doctor' };
    case 'detect':
      // detect parses its own options (detectCommand.ts).
      return { command: 'detect', argv: rest };
    case 'bench':
      // bench parses its own options (benchCommand.ts).
      return { command: 'bench', argv: rest };
    case 'help':
      return { command: 'help', topic: rest[0] };
    default:
      throw new UsageError(`unknown command '${command}'`);
  }
}

/** Turns argv (without node and the script) into what to run; never throws. */
export function parseArgs(argv: readonly string[]): Invocation {
  const [first, ...rest] = argv;
  if (first === undefined) return { command: 'usage-error', message: 'no command given' };
  if (first === '--help' || first === '-h') return { command: 'help' };
  if (first === '--version' || first === '-V') return { command: 'version' };
  try {
    return parseCommand(first, rest);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    const topic = first === 'lint' || first === 'doctor' ? first : undefined;
    return { command: 'usage-error', message: err.message, topic };
  }
}
