// `device-doctor run [options] script.py [args...]` (or -m module, or a notebook): runs the
// user's code on the CPU while PyTorch believes an accelerator is there, and reports every
// device mistake it makes. Exit 0 when none, 1 when a mistake was found or the script failed
// (CI can gate on it), 2 on usage errors or when no run could be made.
import * as fs from 'fs';
import * as path from 'path';
import { isMistake, type RunFinding, type VirtualRunReport } from '../../core/virtualRun/report';
import { cliInterpreter } from '../../node/interpreter';
import { runOnVirtualGpu } from '../../node/virtualRun';
import { UsageError } from '../args';
import { formatJson } from '../formats/json';
import { runLintReport, type RunSources } from '../formats/runReport';
import { formatRunText } from '../formats/runText';
import { formatRunSarif } from '../formats/runSarif';
import type { LocatedFinding } from '../lint/fixes';
import { terminalText } from '../formats/terminalText';
import { helpText } from '../help';
import type { CliIo } from '../io';
import { parseNotebook } from '../lint/notebookFile';
import { displayPath } from '../lint/lintFiles';
import { parseRunArgs, type RunOptions } from '../run/runArgs';
import { DEVICE_DOCTOR_VERSION } from '../version';

const EXIT_CLEAN = 0;
const EXIT_FOUND = 1;
const EXIT_USAGE = 2;

/** A file's text as lint reads it (a notebook: its code cells and their positions); undefined when unreadable. */
function readSources(file: string): RunSources | undefined {
  try {
    const text = fs.readFileSync(file, 'utf8');
    if (path.extname(file).toLowerCase() !== '.ipynb') return { sources: [text] };
    const notebook = parseNotebook(text);
    return { sources: notebook.sources, cellNumbers: notebook.codeCellPositions.map((p) => p + 1) };
  } catch {
    return undefined;
  }
}

function render(report: VirtualRunReport, options: RunOptions, io: CliIo): string {
  const display = (file: string): string => displayPath(file, io.cwd);
  if (options.format === 'text') {
    const cells = new Map<string, number[] | undefined>();
    const cellNumber = (file: string, cell: number): number => {
      if (!cells.has(file)) cells.set(file, readSources(file)?.cellNumbers);
      return cells.get(file)?.[cell] ?? cell + 1;
    };
    return formatRunText(report, display, cellNumber);
  }
  const origins = new Map<LocatedFinding, RunFinding>();
  const lint = runLintReport(report, readSources, display, origins);
  return options.format === 'json' ? formatJson(lint) : formatRunSarif(lint, origins, { cwd: io.cwd, version: DEVICE_DOCTOR_VERSION });
}

function targetProblem(options: RunOptions, cwd: string): string | undefined {
  const file = 'script' in options.target ? options.target.script : 'notebook' in options.target ? options.target.notebook : undefined;
  if (file !== undefined && !fs.existsSync(path.resolve(cwd, file))) return `file not found: ${file}`;
  return undefined;
}

export async function runVirtualCommand(argv: readonly string[], io: CliIo, signal?: AbortSignal): Promise<number> {
  let options: RunOptions;
  try {
    options = parseRunArgs(argv);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    io.stderr(`error: ${terminalText(err.message)}\nRun 'device-doctor run --help' for usage.\n`);
    return EXIT_USAGE;
  }
  if (options.help) {
    io.stdout(helpText('run'));
    return EXIT_CLEAN;
  }
  const problem = targetProblem(options, io.cwd);
  if (problem) {
    io.stderr(`error: ${terminalText(problem)}\n`);
    return EXIT_USAGE;
  }
  const file = 'script' in options.target ? options.target.script : 'notebook' in options.target ? options.target.notebook : undefined;
  const absolute = file === undefined ? undefined : path.resolve(io.cwd, file);
  // The user's files: the working folder's, or the script's own folder when it lies outside it.
  const root = absolute === undefined || !path.relative(io.cwd, absolute).startsWith('..') ? io.cwd : path.dirname(absolute);
  // The script's output is the person's: on stdout with text, on stderr when stdout carries JSON or SARIF.
  const scriptOut = options.format === 'text' ? io.stdout : io.stderr;
  const result = await runOnVirtualGpu({
    interpreter: cliInterpreter(options.python),
    target: 'script' in options.target ? { script: path.resolve(io.cwd, options.target.script) }
      : 'notebook' in options.target ? { notebook: path.resolve(io.cwd, options.target.notebook) } : options.target,
    args: options.args,
    virtual: options.virtual,
    devices: options.devices,
    steps: options.steps,
    timeSeconds: options.timeSeconds,
    cwd: io.cwd,
    root,
    onOutput: (text, stream) => (stream === 'stdout' ? scriptOut : io.stderr)(text),
  }, signal);
  if ('error' in result) {
    io.stderr(`error: ${terminalText(result.error)}\n`);
    return EXIT_USAGE;
  }
  const { report } = result;
  if (report.outcome === 'unusable') {
    io.stderr(`error: ${terminalText(`PyTorch cannot be imported by this interpreter: ${report.error?.message ?? ''}`)}\n`);
    return EXIT_USAGE;
  }
  io.stdout(render(report, options, io));
  return report.findings.some(isMistake) || report.outcome === 'failed' ? EXIT_FOUND : EXIT_CLEAN;
}
