// The virtual-GPU corpus's manifest (test/fixtures/virtualGpu/corpus.json): per script, how it
// is run and the findings a virtual run must report, each with the line a real GPU raises at.
// Read and checked here, so that a typo in the manifest is a clear error, not a silent pass.
import * as fs from 'fs';

/** A finding the virtual run must report. `line` is where it is reported (the CPU tensor's origin for a mismatch). */
export interface ExpectedFinding {
  rule: string;
  /** The file, relative to the corpus folder; default the script (or notebook) the entry runs. */
  file: string;
  /** Notebooks: the index of the cell among code cells. */
  cell?: number;
  line: number;
  /** Where a real run raises for it (the failing use); equal to `line` when the mistake is the use itself. */
  raisesAt: number;
  /** True when a real run on that device stops with an exception (SARIF level "error"). */
  fatal: boolean;
}

export interface CorpusEntry {
  /** What follows `device-doctor run [options]`: `script.py args`, `-m module args` or `notebook.ipynb`. */
  run: string[];
  /** `--virtual`: cuda, cuda:N or mps. */
  virtual: string;
  /** `--devices`, and the GPUs a real run needs. */
  devices: number;
  /** Run first on the same side (the virtual side virtually, the real side plainly); it must succeed. */
  setup?: string[];
  findings: ExpectedFinding[];
  /** Why this script is never compared on a real GPU. */
  exclude?: string;
}

/** `{tmp}` in `run` and `setup` stands for a folder of each side's own, made for the check. */
export const TMP_MARK = '{tmp}';

export class CorpusError extends Error {}

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const isArgv = (v: unknown): v is string[] => Array.isArray(v) && v.length > 0 && v.every((a) => typeof a === 'string' && a !== '');
const isLine = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 1;

/** The file a run's frames are in, relative to the corpus folder: the module's file must be named. */
export function targetFile(run: readonly string[]): string | undefined {
  return run[0] === '-m' ? undefined : run[0];
}

function finding(value: unknown, run: string[], where: string): ExpectedFinding {
  if (!isObject(value)) throw new CorpusError(`${where}: a finding must be an object`);
  const file = value.file ?? targetFile(run);
  if (typeof value.rule !== 'string' || !/^DD\d{3}$/.test(value.rule)) throw new CorpusError(`${where}: "rule" must be a rule code such as DD001`);
  if (typeof file !== 'string') throw new CorpusError(`${where}: "file" is needed for a module run`);
  if (!isLine(value.line) || !isLine(value.raisesAt)) throw new CorpusError(`${where}: "line" and "raisesAt" must be line numbers (1 and up)`);
  if (typeof value.fatal !== 'boolean') throw new CorpusError(`${where}: "fatal" must be true or false`);
  if (value.cell !== undefined && !(Number.isInteger(value.cell) && (value.cell as number) >= 0)) throw new CorpusError(`${where}: "cell" must be a cell index (0 and up)`);
  return { rule: value.rule, file, line: value.line, raisesAt: value.raisesAt, fatal: value.fatal, ...(value.cell === undefined ? {} : { cell: value.cell as number }) };
}

function entry(value: unknown, index: number): CorpusEntry {
  const where = `corpus entry ${index + 1}`;
  if (!isObject(value) || !isArgv(value.run)) throw new CorpusError(`${where}: "run" must be a list of arguments`);
  const run = value.run;
  const devices = value.devices ?? 1;
  if (!(Number.isInteger(devices) && (devices as number) >= 1)) throw new CorpusError(`${where}: "devices" must be 1 or more`);
  if (value.setup !== undefined && !isArgv(value.setup)) throw new CorpusError(`${where}: "setup" must be a list of arguments`);
  if (value.exclude !== undefined && (typeof value.exclude !== 'string' || !value.exclude.trim())) throw new CorpusError(`${where}: "exclude" must say why`);
  if (!Array.isArray(value.findings)) throw new CorpusError(`${where}: "findings" must be a list (empty for a clean script)`);
  return {
    run,
    virtual: typeof value.virtual === 'string' ? value.virtual : 'cuda',
    devices: devices as number,
    findings: value.findings.map((f, i) => finding(f, run, `${where} (${run.join(' ')}), finding ${i + 1}`)),
    ...(value.setup ? { setup: value.setup as string[] } : {}),
    ...(value.exclude ? { exclude: value.exclude as string } : {}),
  };
}

/** The manifest's entries, checked; a CorpusError that says what is wrong otherwise. */
export function parseCorpus(text: string): CorpusEntry[] {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new CorpusError(`the corpus manifest is not JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (!isObject(json) || !Array.isArray(json.scripts) || json.scripts.length === 0) throw new CorpusError('the corpus manifest needs a non-empty "scripts" list');
  return json.scripts.map(entry);
}

export function readCorpus(manifest: string): CorpusEntry[] {
  let text: string;
  try {
    text = fs.readFileSync(manifest, 'utf8');
  } catch (error) {
    throw new CorpusError(`cannot read the corpus manifest ${manifest}: ${error instanceof Error ? error.message : String(error)}`);
  }
  return parseCorpus(text);
}

/** The name a script goes by in the check's JSON: its run line. */
export const scriptName = (entry: CorpusEntry): string => entry.run.join(' ');
