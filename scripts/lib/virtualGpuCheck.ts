// device-check's `virtual-gpu` check: each script of the virtual-GPU corpus run twice, and the
// two compared (scripts/lib/virtualGpuCompare.ts judges; the pass rule is in device-check.ts):
//   virtual  `device-doctor run --virtual … --format sarif` on the CPU (CUDA_VISIBLE_DEVICES
//            empty: the run sees no real GPU, as on a laptop);
//   plain    the same script with nothing of ours loaded (plainRunPython.ts), on whatever the
//            machine has: the real GPUs in device-check; the caller says what, in words.
// A script's two runs follow each other (a script may write a fixed file, as clean_training.py
// does); different scripts run side by side.
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { OWNED_CHILDREN, startProcess } from '../../src/node/processRunner';
import { PLAIN_RUN_PYTHON } from './plainRunPython';
import { compareScript, excluded, exclusionOf, findingsFromSarif, judgeCorpus, plainOutcome, type CorpusVerdict, type PlainOutcome, type ScriptComparison, type VirtualFinding } from './virtualGpuCompare';
import { readCorpus, scriptName, TMP_MARK, type CorpusEntry } from './virtualGpuCorpus';

export const CORPUS_DIR = path.join('test', 'fixtures', 'virtualGpu');
export const MANIFEST = 'corpus.json';
/** One run of a corpus script takes seconds; past this it is a hang. */
const RUN_TIMEOUT_SEC = 90;

export interface VirtualGpuCheckOptions {
  python: string;
  /** The built CLI (dist/cli.js). */
  cliJs: string;
  /** The corpus folder, holding corpus.json. */
  corpusDir: string;
  /** The devices the plain runs have: device-check's GPU count (a CPU stand-in has one); a script needing more is excluded. */
  plainDevices: number;
  /** What the plain runs ran on, in words, for the JSON (never call a CPU a GPU). */
  plainRunOn: string;
  /** The plain runs' environment (default: this process's). */
  plainEnv?: NodeJS.ProcessEnv;
  concurrency?: number;
  log?(text: string): void;
}

export interface VirtualGpuCheckOutcome extends CorpusVerdict {
  virtualRunOn: string;
  plainRunOn: string;
  corpus: string;
}

interface Ran {
  exitCode: number | null;
  stdout: string;
  stderrTail: string;
  timedOut: boolean;
}

async function runProcess(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<Ran> {
  const child = startProcess(command, args, { cwd, env, captureBytes: 16 * 1024 * 1024, track: OWNED_CHILDREN });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill();
  }, RUN_TIMEOUT_SEC * 1000);
  const end = await child.ended;
  clearTimeout(timer);
  const tail = child.stderrTail.trim().split('\n').slice(-2).join(' | ');
  return { exitCode: end.exitCode, stdout: child.output().stdout, stderrTail: end.errorMessage ?? tail, timedOut };
}

const ended = (ran: Ran): string => (ran.timedOut ? `did not end within ${RUN_TIMEOUT_SEC} s` : `exited ${ran.exitCode}: ${ran.stderrTail}`);

const withTmp = (argv: string[], tmp: string): string[] => argv.map((a) => a.split(TMP_MARK).join(tmp));

async function virtualRun(options: VirtualGpuCheckOptions, entry: CorpusEntry, argv: string[]): Promise<Ran> {
  const args = [options.cliJs, 'run', '--virtual', entry.virtual, '--devices', String(entry.devices), '--format', 'sarif', '--python', options.python, ...argv];
  return runProcess(process.execPath, args, options.corpusDir, { ...process.env, CUDA_VISIBLE_DEVICES: '' });
}

/** The virtual run's findings, or why there are none (exit 0 and 1 are its answers; 2 means it could not run). */
async function virtualSide(options: VirtualGpuCheckOptions, entry: CorpusEntry, tmp: string): Promise<VirtualFinding[] | string> {
  if (entry.setup) {
    const setup = await virtualRun(options, entry, withTmp(entry.setup, tmp));
    if (setup.exitCode !== 0) return `its setup (${entry.setup.join(' ')}) ${ended(setup)}`;
  }
  const ran = await virtualRun(options, entry, withTmp(entry.run, tmp));
  if (ran.exitCode !== 0 && ran.exitCode !== 1) return ended(ran);
  try {
    return findingsFromSarif(JSON.parse(ran.stdout));
  } catch (error) {
    return `${error instanceof Error ? error.message : String(error)} (${ended(ran)})`;
  }
}

/** `argv` run plainly in `corpusDir` (plainRunPython.ts): how it ended, or why that is not known. */
export async function runPlain(python: string, corpusDir: string, argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<PlainOutcome | string> {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'dd-plain-report-'));
  try {
    const report = path.join(tmp, 'report.json');
    const ran = await runProcess(python, ['-c', PLAIN_RUN_PYTHON, report, ...argv], corpusDir, env);
    if (!fs.existsSync(report)) return `wrote no report: ${ended(ran)}`;
    try {
      return plainOutcome(JSON.parse(fs.readFileSync(report, 'utf8')), corpusDir);
    } catch (error) {
      return `wrote an unreadable report (${error instanceof Error ? error.message : String(error)}): ${ended(ran)}`;
    }
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

const plainRun = (options: VirtualGpuCheckOptions, argv: string[]): Promise<PlainOutcome | string> => runPlain(options.python, options.corpusDir, argv, options.plainEnv);

async function plainSide(options: VirtualGpuCheckOptions, entry: CorpusEntry, tmp: string): Promise<PlainOutcome | string> {
  if (entry.setup) {
    const setup = await plainRun(options, withTmp(entry.setup, tmp));
    if (typeof setup === 'string' || setup.failed) {
      return `its setup (${entry.setup.join(' ')}) ${typeof setup === 'string' ? setup : `raised ${setup.type}: ${setup.message}`}`;
    }
  }
  return plainRun(options, withTmp(entry.run, tmp));
}

async function compareEntry(options: VirtualGpuCheckOptions, entry: CorpusEntry): Promise<ScriptComparison> {
  const name = scriptName(entry);
  const reason = exclusionOf(entry, options.plainDevices);
  if (reason) return excluded(name, reason);
  const virtualTmp = fs.mkdtempSync(path.join(os.tmpdir(), 'dd-virtual-'));
  const plainTmp = fs.mkdtempSync(path.join(os.tmpdir(), 'dd-plain-'));
  try {
    const virtual = await virtualSide(options, entry, virtualTmp);
    const real = await plainSide(options, entry, plainTmp);
    const compared = compareScript(name, entry.findings, virtual, real);
    options.log?.(`${name}: ${compared.verdict}${compared.reason ? ` (${compared.reason})` : ''}`);
    return compared;
  } finally {
    fs.rmSync(virtualTmp, { recursive: true, force: true });
    fs.rmSync(plainTmp, { recursive: true, force: true });
  }
}

/** Runs every corpus script both ways, `concurrency` scripts at a time, and judges the corpus. */
export async function virtualGpuCheck(options: VirtualGpuCheckOptions): Promise<VirtualGpuCheckOutcome> {
  const entries = readCorpus(path.join(options.corpusDir, MANIFEST));
  const results: ScriptComparison[] = new Array(entries.length);
  let next = 0;
  const lane = async (): Promise<void> => {
    for (let i = next++; i < entries.length; i = next++) results[i] = await compareEntry(options, entries[i]);
  };
  const lanes = Math.max(1, Math.min(options.concurrency ?? Math.floor(os.cpus().length / 2), entries.length));
  await Promise.all(Array.from({ length: lanes }, lane));
  return {
    ...judgeCorpus(results),
    virtualRunOn: 'cpu (device-doctor run --virtual, CUDA_VISIBLE_DEVICES empty)',
    plainRunOn: options.plainRunOn,
    corpus: path.join(options.corpusDir, MANIFEST),
  };
}
