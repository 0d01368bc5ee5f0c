// The command line, parsed once for every command. Node's util.parseArgs splits argv
// (`--name value`, `--name=value`, `-h`, `--` to end options); the table below says
// which options each command has, and this file turns its tokens into our messages
// and typed options. Order of judgement, for every command: the spelling of options
// (unknown, missing value, value given to a flag), then stray arguments, then -h/--help,
// then the values themselves (a format, rule codes, numbers).
import { parseArgs as parseArgv } from 'util';
import { DTYPES, STORAGE_DTYPES, isCudaDevice } from '../core/bench/model';
import { isRuleSelector, isTorchVersion } from '../core/config';
import { DEFAULT_MAX_BYTES } from '../core/python/limits';

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
  /** From --max-bytes: files (a notebook's code cells) larger than this are skipped, not parsed; 0: no limit. */
  maxBytes: number;
  /** false with --no-cache; a folder with --cache-dir; absent: the default folder in the current directory. */
  cache?: string | false;
  /** From --torch-version: the PyTorch version to assume, over pyproject's `target-torch`. */
  torchVersion?: string;
  /** From --jobs: files checked at once, each in its own thread; absent: one fewer than the cores (lintThreads.ts). */
  jobs?: number;
}

/**
 * The largest file lint parses unless told otherwise: the editor's deviceDoctor.maxFileBytes
 * default, one constant for both (limits.ts says why 2 MiB).
 */
export { DEFAULT_MAX_BYTES };

export interface DetectOptions {
  json: boolean;
  python?: string;
  /** --device: the device to check as if pinned by deviceDoctor.device. */
  device?: string;
  /** --timeout, in seconds: per tool, overriding each tool's default. */
  timeoutSeconds?: number;
  verbose: boolean;
  /** --discover: also probe the virtual environments under the current folder (they run its code). */
  discover?: boolean;
}

export interface DoctorOptions {
  /** --python: the interpreter to ask about PyTorch and to benchmark with. */
  python?: string;
  /** --discover: as detect's. */
  discover?: boolean;
}

export interface BenchOptions {
  engine?: string;
  device?: string;
  size?: number;
  sweep: boolean;
  repeats?: number;
  /** --repeat-budget: seconds the torch engine's samples adapt to per size (not with --repeats). */
  repeatBudgetSec?: number;
  /** --memory: the memory copy on the CPU too (accelerators measure theirs in every run). */
  memory?: boolean;
  dtypes?: string[];
  python?: string;
  json: boolean;
  /** The collective benchmark (torch.distributed) instead of the matmul: its options, as typed. */
  collective?: CollectiveOptions;
  /** --devices all: the torch matmul on every accelerator, alone and all at once. */
  devices?: 'all';
}

/** `bench --collective`: read here, judged by src/cli/commands/benchCollective.ts. */
export interface CollectiveOptions {
  collective: string;
  worldSize?: number;
  minSize?: string;
  maxSize?: string;
  masterPort?: number;
  timeoutSeconds?: number;
}

export type Invocation =
  | { command: 'help'; topic?: string }
  | { command: 'version' }
  | { command: 'lint'; options: LintOptions }
  | { command: 'doctor'; options: DoctorOptions }
  | { command: 'detect'; options: DetectOptions }
  | { command: 'bench'; options: BenchOptions }
  | { command: 'rule'; code?: string }
  /** The language server over stdio (`--stdio`, which editors pass, is the only transport). */
  | { command: 'server' }
  /** `run` reads its own arguments (src/cli/run/runArgs.ts): the script's follow it. */
  | { command: 'run'; argv: string[] }
  | { command: 'usage-error'; message: string; topic?: string };

// ---- the option table ----

interface OptionSpec {
  /** 'string' options take a value (`--name value` or `--name=value`); 'boolean' ones are flags. */
  type: 'string' | 'boolean';
  short?: string;
}

type CommandName = 'lint' | 'doctor' | 'detect' | 'bench' | 'rule' | 'server';

interface CommandSpec {
  options: Readonly<Record<string, OptionSpec>>;
  /** Whether the command takes arguments besides its options (lint's paths). */
  positionals: boolean;
  /** What a usage error of this command tells the person to run. */
  helpCommand: string;
}

const flag: OptionSpec = { type: 'boolean' };
const value: OptionSpec = { type: 'string' };
const help: OptionSpec = { type: 'boolean', short: 'h' };

/** bench's options for the collective benchmark (`--collective`). */
const COLLECTIVE_OPTIONS: Readonly<Record<string, OptionSpec>> = {
  collective: value, 'world-size': value, 'min-size': value, 'max-size': value, 'master-port': value, timeout: value,
};

const COMMANDS: Readonly<Record<CommandName, CommandSpec>> = {
  lint: {
    options: {
      format: value,
      fix: flag,
      select: value,
      'extend-select': value,
      ignore: value,
      'ignore-noqa': flag,
      'no-noqa': flag,
      quiet: { type: 'boolean', short: 'q' },
      'exit-zero': flag,
      'max-bytes': value,
      'no-cache': flag,
      'cache-dir': value,
      'torch-version': value,
      jobs: value,
      help,
    },
    positionals: true,
    helpCommand: 'device-doctor help lint',
  },
  doctor: { options: { python: value, discover: flag, help }, positionals: false, helpCommand: 'device-doctor help doctor' },
  detect: {
    options: { json: flag, python: value, device: value, timeout: value, verbose: flag, discover: flag, help },
    positionals: false,
    helpCommand: 'device-doctor detect --help',
  },
  bench: {
    options: {
      engine: value, device: value, devices: value, size: value, sweep: flag, repeats: value, 'repeat-budget': value, memory: flag, dtype: value, python: value, json: flag, help,
      ...COLLECTIVE_OPTIONS,
    },
    positionals: false,
    helpCommand: 'device-doctor bench --help',
  },
  rule: { options: { help }, positionals: true, helpCommand: 'device-doctor help rule' },
  server: { options: { stdio: flag, help }, positionals: false, helpCommand: 'device-doctor help server' },
};

function isCommand(name: string): name is CommandName {
  return Object.prototype.hasOwnProperty.call(COMMANDS, name);
}

/** The command a usage error of `topic` points at for help. */
export function helpCommandFor(topic?: string): string {
  return topic !== undefined && isCommand(topic) ? COMMANDS[topic].helpCommand : 'device-doctor --help';
}

export class UsageError extends Error {}

/** One command's arguments: each option as given, in order (flags without a value), and the rest. */
interface CommandLine {
  given: { name: string; value?: string }[];
  positionals: string[];
}

/** How the person typed an option's name: `--frmat` of `--frmat=json`, all of `-xy`. */
function typedName(arg: string): string {
  if (!arg.startsWith('--')) return arg;
  const eq = arg.indexOf('=');
  return eq >= 0 ? arg.slice(0, eq) : arg;
}

/**
 * util.parseArgs in its lenient mode gives every token, known or not; the checks are
 * ours, so that each message names the option as typed. A value is taken from the next
 * argument whatever it looks like (`--python --json` sets python to "--json").
 */
function readCommandLine(command: CommandName, argv: readonly string[]): CommandLine {
  const spec = COMMANDS[command];
  const options = Object.fromEntries(Object.entries(spec.options).map(([name, o]) => [name, { ...o, multiple: true }]));
  const { tokens } = parseArgv({ args: [...argv], options, strict: false, allowPositionals: true, tokens: true });
  const line: CommandLine = { given: [], positionals: [] };
  for (const token of tokens) {
    if (token.kind === 'positional') line.positionals.push(token.value);
    if (token.kind !== 'option') continue;
    const typed = typedName(argv[token.index]);
    const option = Object.prototype.hasOwnProperty.call(spec.options, token.name) ? spec.options[token.name] : undefined;
    // A short option counts only alone: `-qh` and `-h=x` are unknown, as no option has such a name.
    if (!option || (!token.rawName.startsWith('--') && typed !== token.rawName)) throw new UsageError(`unknown option '${typed}'`);
    if (option.type === 'string' && token.value === undefined) throw new UsageError(`option '--${token.name}' needs a value`);
    if (option.type === 'boolean' && token.value !== undefined) throw new UsageError(`option '--${token.name}' takes no value`);
    line.given.push({ name: token.name, value: token.value });
  }
  if (!spec.positionals && line.positionals.length > 0) {
    throw new UsageError(`'${command}' takes no arguments (got '${line.positionals[0]}')`);
  }
  return line;
}

function has(line: CommandLine, name: string): boolean {
  return line.given.some((o) => o.name === name);
}

/** Every value given to `name`, in order. */
function valuesOf(line: CommandLine, name: string): string[] | undefined {
  const values = line.given.filter((o) => o.name === name).map((o) => o.value as string);
  return values.length > 0 ? values : undefined;
}

// ---- lint ----

/** Comma-separated codes, possibly repeated (`--select DD001,DD003 --select DD010`). */
function readCodes(line: CommandLine, name: string): string[] | undefined {
  const raw = valuesOf(line, name);
  if (!raw) return undefined;
  const codes = raw.flatMap((v) => v.split(',')).map((c) => c.trim()).filter((c) => c !== '');
  for (const code of codes) {
    if (!isRuleSelector(code)) {
      throw new UsageError(`unknown rule code '${code}' in --${name} (use codes such as DD003, prefixes such as DD00, or ALL)`);
    }
  }
  return codes;
}

function readFormat(line: CommandLine): OutputFormat {
  const format = valuesOf(line, 'format')?.pop() ?? 'text';
  if (!(OUTPUT_FORMATS as readonly string[]).includes(format)) {
    throw new UsageError(`unknown format '${format}' (choose ${OUTPUT_FORMATS.join(', ')})`);
  }
  return format as OutputFormat;
}

function readMaxBytes(line: CommandLine): number {
  const text = valuesOf(line, 'max-bytes')?.pop();
  if (text === undefined) return DEFAULT_MAX_BYTES;
  if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(Number(text))) {
    throw new UsageError(`--max-bytes needs a whole number of bytes, 0 for no limit (got '${text}')`);
  }
  return Number(text);
}

function lintOptions(line: CommandLine): LintOptions {
  return {
    paths: line.positionals.length > 0 ? line.positionals : ['.'],
    format: readFormat(line),
    fix: has(line, 'fix'),
    select: readCodes(line, 'select'),
    extendSelect: readCodes(line, 'extend-select'),
    ignore: readCodes(line, 'ignore'),
    noqa: !has(line, 'ignore-noqa') && !has(line, 'no-noqa'),
    quiet: has(line, 'quiet'),
    exitZero: has(line, 'exit-zero'),
    maxBytes: readMaxBytes(line),
    ...readCache(line),
    ...readTorchVersionOption(line),
    ...readJobs(line),
  };
}

function readJobs(line: CommandLine): { jobs?: number } {
  const text = valuesOf(line, 'jobs')?.pop();
  if (text === undefined) return {};
  if (!/^\d+$/.test(text.trim()) || Number(text) < 1 || Number(text) > 64) throw new UsageError(`--jobs needs a whole number of threads from 1 to 64 (got '${text}')`);
  return { jobs: Number(text) };
}

function readTorchVersionOption(line: CommandLine): { torchVersion?: string } {
  const text = valuesOf(line, 'torch-version')?.pop();
  if (text === undefined) return {};
  if (!isTorchVersion(text.trim())) throw new UsageError(`--torch-version needs a PyTorch version such as 2.6 or 2.6.0 (got '${text}')`);
  return { torchVersion: text.trim() };
}

/** --no-cache, or --cache-dir DIR (the last one given); neither: the default folder. */
function readCache(line: CommandLine): { cache?: string | false } {
  if (has(line, 'no-cache')) return { cache: false };
  const dir = valuesOf(line, 'cache-dir')?.pop();
  return dir === undefined ? {} : { cache: dir };
}

// ---- detect ----

function parseTimeout(text: string): number {
  const seconds = Number(text);
  if (!Number.isFinite(seconds) || seconds <= 0) throw new UsageError(`--timeout needs a positive number of seconds (got '${text}')`);
  return seconds;
}

/** Options in the order given; a repeated one's last value wins. */
function detectOptions(line: CommandLine): DetectOptions {
  const options: DetectOptions = { json: false, verbose: false };
  for (const { name, value: text = '' } of line.given) {
    if (name === 'json') options.json = true;
    else if (name === 'verbose') options.verbose = true;
    else if (name === 'discover') options.discover = true;
    else if (name === 'python') options.python = text;
    else if (name === 'device') options.device = text;
    else if (name === 'timeout') options.timeoutSeconds = parseTimeout(text);
  }
  return options;
}

// ---- doctor ----

function doctorOptions(line: CommandLine): DoctorOptions {
  const options: DoctorOptions = {};
  for (const { name, value: text = '' } of line.given) {
    if (name === 'python') options.python = text;
    else if (name === 'discover') options.discover = true;
  }
  return options;
}

// ---- bench ----

/** A number as typed; its range is the core's to judge (so 0 and 100000 get the core's message). */
function parseNumber(text: string, name: string): number {
  const number = Number(text);
  if (text.trim() === '' || !Number.isFinite(number)) throw new UsageError(`${name} needs a number (got '${text}')`);
  return number;
}

/** `all`: every dtype of the device; tf32 only with a CUDA --device (elsewhere it is no mode at all). */
function parseDtypes(text: string, device: string | undefined): string[] {
  if (text === 'all') return [...(device !== undefined && isCudaDevice(device) ? DTYPES : STORAGE_DTYPES)];
  return text.split(',').map((d) => d.trim()).filter((d) => d !== '');
}

/** Options in the order given; a repeated one's last value wins. */
function benchOptions(line: CommandLine): BenchOptions {
  const options: BenchOptions = { sweep: false, json: false };
  let dtypeText: string | undefined;
  for (const { name, value: text = '' } of line.given) {
    if (name === 'json') options.json = true;
    else if (name === 'sweep') options.sweep = true;
    else if (name === 'engine') options.engine = text;
    else if (name === 'device') options.device = text;
    else if (name === 'size') options.size = parseNumber(text, '--size');
    else if (name === 'repeats') options.repeats = parseNumber(text, '--repeats');
    else if (name === 'repeat-budget') options.repeatBudgetSec = parseNumber(text, '--repeat-budget');
    else if (name === 'memory') options.memory = true;
    else if (name === 'dtype') dtypeText = text;
    else if (name === 'python') options.python = text;
  }
  if (dtypeText !== undefined) options.dtypes = parseDtypes(dtypeText, options.device);
  if (options.sweep && options.size !== undefined) throw new UsageError('use either --size or --sweep, not both');
  if (options.repeats !== undefined && options.repeatBudgetSec !== undefined) throw new UsageError('use either --repeats (a fixed count) or --repeat-budget (seconds), not both');
  const devices = valuesOf(line, 'devices')?.pop();
  if (devices !== undefined) {
    if (devices !== 'all') throw new UsageError(`--devices takes 'all' (every accelerator PyTorch sees); for one device use --device (got '${devices}')`);
    const other = ['engine', 'device', 'sweep', 'collective'].find((name) => has(line, name));
    if (other) throw new UsageError(`--devices all runs the torch matmul on every accelerator; it does not go with --${other}`);
    options.devices = 'all';
  }
  return withCollective(options, line);
}

/** The collective options, which only go with --collective, and the matmul's, which do not. */
function withCollective(options: BenchOptions, line: CommandLine): BenchOptions {
  const collectiveOnly = Object.keys(COLLECTIVE_OPTIONS).filter((name) => name !== 'collective' && has(line, name));
  const collective = valuesOf(line, 'collective')?.pop();
  if (collective === undefined) {
    if (collectiveOnly.length > 0) throw new UsageError(`--${collectiveOnly[0]} goes with --collective`);
    return options;
  }
  const matmulOnly = ['engine', 'size', 'sweep', 'dtype'].find((name) => has(line, name));
  if (matmulOnly) throw new UsageError(`--${matmulOnly} is for the matmul benchmark, not --collective`);
  const last = (name: string): string | undefined => valuesOf(line, name)?.pop();
  const whole = (name: string): number | undefined => {
    const text = last(name);
    if (text === undefined) return undefined;
    if (!/^\d+$/.test(text.trim())) throw new UsageError(`--${name} needs a whole number (got '${text}')`);
    return Number(text);
  };
  const timeout = last('timeout');
  return {
    ...options,
    collective: {
      collective,
      worldSize: whole('world-size'),
      minSize: last('min-size'),
      maxSize: last('max-size'),
      masterPort: whole('master-port'),
      timeoutSeconds: timeout === undefined ? undefined : parseTimeout(timeout),
    },
  };
}

// ---- commands ----

function parseCommand(command: CommandName, rest: readonly string[]): Invocation {
  const line = readCommandLine(command, rest);
  if (has(line, 'help')) return { command: 'help', topic: command };
  switch (command) {
    case 'lint':
      return { command, options: lintOptions(line) };
    case 'doctor':
      return { command, options: doctorOptions(line) };
    case 'detect':
      return { command, options: detectOptions(line) };
    case 'bench':
      return { command, options: benchOptions(line) };
    case 'rule':
      if (line.positionals.length > 1) throw new UsageError(`'rule' takes one rule code (got ${line.positionals.length})`);
      return { command, code: line.positionals[0] };
    case 'server':
      return { command };
  }
}

/** Turns argv (without node and the script) into what to run; never throws. */
export function parseArgs(argv: readonly string[]): Invocation {
  const [first, ...rest] = argv;
  if (first === undefined) return { command: 'usage-error', message: 'no command given' };
  if (first === '--help' || first === '-h') return { command: 'help' };
  if (first === '--version' || first === '-V') return { command: 'version' };
  if (first === 'help') return { command: 'help', topic: rest[0] };
  if (first === 'run') return { command: 'run', argv: rest };
  if (!isCommand(first)) return { command: 'usage-error', message: `unknown command '${first}'` };
  try {
    return parseCommand(first, rest);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    return { command: 'usage-error', message: err.message, topic: first };
  }
}
