// `device-doctor run`'s command line. Everything after the script (or `-m module`) is the
// script's own, as with `python script.py args`: util.parseArgs would read the script's
// options as ours, so the options before the target are read here, one by one.
import * as path from 'path';
import { OUTPUT_FORMATS, UsageError, type OutputFormat } from '../args';
import type { RunTarget } from '../../node/virtualRun';

export interface RunOptions {
  target: RunTarget;
  args: string[];
  virtual: string;
  devices: number;
  steps?: number;
  timeSeconds?: number;
  format: OutputFormat;
  python?: string;
  help: boolean;
}

const VALUED = new Set(['--virtual', '--devices', '--steps', '--time', '--format', '--python', '-m']);

function positiveWhole(text: string, name: string): number {
  if (!/^\d+$/.test(text) || Number(text) < 1) throw new UsageError(`${name} needs a whole number of at least 1 (got '${text}')`);
  return Number(text);
}

function readVirtual(text: string): string {
  if (!/^(cuda(:\d+)?|mps)$/.test(text)) throw new UsageError(`--virtual takes cuda, cuda:N or mps (got '${text}')`);
  return text;
}

/** The target from the first argument that is not an option: a notebook, or a script. */
function targetOf(file: string): RunTarget {
  return path.extname(file).toLowerCase() === '.ipynb' ? { notebook: file } : { script: file };
}

/** Reads `run`'s argv (after the command name); throws UsageError. */
export function parseRunArgs(argv: readonly string[]): RunOptions {
  const options: Partial<RunOptions> & { virtual: string; devices: number; format: OutputFormat; help: boolean } = {
    virtual: 'cuda', devices: 1, format: 'text', help: false,
  };
  let i = 0;
  for (; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '-h' || arg === '--help') {
      options.help = true;
      continue;
    }
    if (arg === '--') {
      i++;
      break;
    }
    if (!arg.startsWith('-') || arg === '-') break;
    const eq = arg.startsWith('--') ? arg.indexOf('=') : -1;
    const name = eq >= 0 ? arg.slice(0, eq) : arg;
    if (!VALUED.has(name)) throw new UsageError(`unknown option '${name}'`);
    const value = eq >= 0 ? arg.slice(eq + 1) : argv[++i];
    if (value === undefined) throw new UsageError(`option '${name}' needs a value`);
    if (name === '-m') {
      options.target = { module: value };
      i++;
      break;
    }
    if (name === '--virtual') options.virtual = readVirtual(value);
    else if (name === '--devices') options.devices = positiveWhole(value, '--devices');
    else if (name === '--steps') options.steps = positiveWhole(value, '--steps');
    else if (name === '--python') options.python = value;
    else if (name === '--time') {
      const seconds = Number(value);
      if (!Number.isFinite(seconds) || seconds <= 0) throw new UsageError(`--time needs a positive number of seconds (got '${value}')`);
      options.timeSeconds = seconds;
    } else if (name === '--format') {
      if (!(OUTPUT_FORMATS as readonly string[]).includes(value)) throw new UsageError(`unknown format '${value}' (choose ${OUTPUT_FORMATS.join(', ')})`);
      options.format = value as OutputFormat;
    }
  }
  if (!options.target && i < argv.length) options.target = targetOf(argv[i++]);
  if (!options.target) {
    if (options.help) return { ...options, target: { script: '' }, args: [] };
    throw new UsageError('give a script, a notebook or -m module to run');
  }
  const index = /^cuda:(\d+)$/.exec(options.virtual);
  if (index && Number(index[1]) >= options.devices) options.devices = Number(index[1]) + 1;
  return { ...options, target: options.target, args: argv.slice(i) };
}
