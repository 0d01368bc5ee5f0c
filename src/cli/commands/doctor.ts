// `device-doctor doctor` (what `npm start` runs): the version, a summary of this
// machine from Node's os module, the device report (accelerators, PyTorch, the selected
// device, each problem with its remedy), the interpreters with PyTorch (the virtual
// environments in the current folder only with --discover: they run that folder's code), a
// one-line-per-rule summary of the code in the current folder, then a quick matmul benchmark
// of the selected device against the CPU.
// It informs rather than gates, so it always exits 0.
import * as os from 'os';
import { ruleInfo } from '../../core/analysis/catalog';
import type { RuleCode } from '../../core/analysis/types';
import type { DeviceReport } from '../../core/devices/report';
import { summarizeReport } from '../../core/devices/summary';
import { cliInterpreter } from '../../node/interpreter';
import { DEFAULT_TIMEOUTS_MS } from '../../protocol/probeTimeouts';
import { benchScriptPath } from '../../worker/engines/torch/engine';
import { TorchHost } from '../../worker/engines/torch/host';
import { QUICK_BENCH_TITLE, quickBenchSection } from './bench';
import { detectWithInterpreters } from './detect';
import { interpretersSection } from './interpreters';
import type { DiscoveredInterpreter } from '../../core/interpreters/model';
import { DEFAULT_MAX_BYTES, type DoctorOptions } from '../args';
import type { CliIo } from '../io';
import { terminalLines, terminalText } from '../formats/terminalText';
import type { LintReport } from '../formats/report';
import { configurationErrors, lintFiles } from '../lint/lintFiles';
import { DEVICE_DOCTOR_VERSION } from '../version';
import { collectFiles } from '../lint/walk';

/** The facts `doctor` prints about the machine; a parameter so tests can fabricate them. */
export interface MachineFacts {
  nodeVersion: string;
  platform: string;
  arch: string;
  release: string;
  cpuModel: string | undefined;
  logicalCores: number;
  totalMemoryBytes: number;
  freeMemoryBytes: number;
}

export function currentMachine(): MachineFacts {
  const cpus = os.cpus();
  return {
    nodeVersion: process.version,
    platform: os.platform(),
    arch: os.arch(),
    release: os.release(),
    cpuModel: cpus[0]?.model.trim() || undefined,
    logicalCores: typeof os.availableParallelism === 'function' ? os.availableParallelism() : cpus.length,
    totalMemoryBytes: os.totalmem(),
    freeMemoryBytes: os.freemem(),
  };
}

function gib(bytes: number): string {
  return `${(bytes / 1024 ** 3).toFixed(1)} GiB`;
}

export function machineSection(facts: MachineFacts): string[] {
  return [
    'This machine',
    `  Node.js    ${facts.nodeVersion}`,
    `  Platform   ${facts.platform} ${facts.arch} (${facts.release})`,
    `  CPU        ${facts.cpuModel ?? 'unknown model'}, ${facts.logicalCores} logical core${facts.logicalCores === 1 ? '' : 's'}`,
    `  Memory     ${gib(facts.totalMemoryBytes)} total, ${gib(facts.freeMemoryBytes)} free`,
  ];
}

/** The device report in a person's words; a detect that fails is one line, not a crash. */
export async function deviceSection(detect: () => Promise<DeviceReport>): Promise<string[]> {
  try {
    return ['Accelerators', ...summarizeReport(await detect()).map((line) => (line === '' ? '' : `  ${line}`))];
  } catch (err) {
    return ['Accelerators', `  Detection failed: ${err instanceof Error ? err.message : String(err)}`, "  Run 'device-doctor detect --verbose' to see which tool failed."];
  }
}

function count(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

export function codeSection(report: LintReport, cwd: string): string[] {
  const notebooks = report.files.filter((f) => f.cellNumbers).length;
  const scripts = report.files.length - notebooks;
  const lines = [`Code in ${cwd}`];
  if (report.files.length === 0 && report.problems.length === 0) {
    return [...lines, '  No Python files or notebooks here.'];
  }
  lines.push(`  Checked ${count(scripts, 'Python file')} and ${count(notebooks, 'notebook')}.`);
  if (report.problems.length > 0) lines.push(`  ${count(report.problems.length, 'file')} could not be read (run 'device-doctor lint' to see why).`);
  const perRule = new Map<RuleCode, number>();
  for (const file of report.files) for (const { finding } of file.findings) perRule.set(finding.code, (perRule.get(finding.code) ?? 0) + 1);
  if (perRule.size === 0) return [...lines, '  No device mistakes found.'];
  for (const code of [...perRule.keys()].sort()) {
    lines.push(`  ${code} ${ruleInfo(code).name}: ${count(perRule.get(code) ?? 0, 'finding')}`);
  }
  lines.push("  Run 'device-doctor lint' to see where, or 'device-doctor lint --fix' to apply the fixes.");
  return lines;
}

/** What doctor reads from the machine; parameters so tests can fabricate them. */
export interface DoctorSources {
  machine: MachineFacts;
  /** The device report and the interpreters found beside it. */
  detect: () => Promise<{ report: DeviceReport; interpreters: DiscoveredInterpreter[] }>;
  /** The closing benchmark. */
  quickBench: (report: DeviceReport) => Promise<string[]>;
  /** Called once doctor is done, whatever happened: ends what the sources started. */
  close?: () => void;
}

/**
 * One Python answers detect's PyTorch probe and then runs the quick benchmark's torch batch
 * (a TorchHost, as `device-doctor bench` does): torch is imported once, not once per step.
 * It starts with the first detect, so sources that tests replace never start it.
 */
function defaultSources(io: CliIo, options: DoctorOptions): DoctorSources {
  const python = cliInterpreter(options.python);
  let host: TorchHost | null | undefined;
  const sharedHost = (): TorchHost | null => (host ??= python ? new TorchHost({ python, script: benchScriptPath(), env: process.env, importTimeoutMs: DEFAULT_TIMEOUTS_MS.torch }) : null);
  return {
    machine: currentMachine(),
    detect: () => {
      const started = sharedHost();
      return detectWithInterpreters({ python: options.python, verbose: false, discover: options.discover }, io, undefined, started ? (interpreter) => (interpreter === started.python ? started.probeRun : null) : undefined);
    },
    quickBench: (report) => quickBenchSection(report, python, undefined, sharedHost() ?? undefined),
    close: () => host?.close(),
  };
}

export async function runDoctorCommand(io: CliIo, options: DoctorOptions = {}, sources: Partial<DoctorSources> = {}): Promise<number> {
  const all = { ...defaultSources(io, options), ...sources };
  try {
    return await doctor(io, all, options.discover === true);
  } finally {
    all.close?.();
  }
}

async function doctor(io: CliIo, { machine, detect: detectBoth, quickBench }: DoctorSources, discovered: boolean): Promise<number> {
  const collected = collectFiles(['.'], io.cwd);
  // Unlike lint, a bad pyproject.toml does not stop doctor: it says so and checks with what parsed.
  for (const error of configurationErrors(collected.files)) io.stderr(`warning: ${terminalText(error)}\n`);
  // One detect serves the device summary and the benchmark; the probes (seconds, for
  // PyTorch) run while the code is checked.
  const both = detectBoth();
  const detected = both.then(({ report }) => report);
  detected.catch(() => undefined); // deviceSection reports a failed detect
  const [devices, report] = await Promise.all([deviceSection(() => detected), lintFiles(collected.files, { cwd: io.cwd, noqa: true, fix: false, maxBytes: DEFAULT_MAX_BYTES })]);
  const interpreters = await both.then(({ report: devicesReport, interpreters: found }) => ['', ...interpretersSection(found, devicesReport, 'doctor', discovered)], () => []);
  const bench = await detected.then(quickBench, () => [QUICK_BENCH_TITLE, '  Skipped: the devices could not be detected.']);
  const lines = [`Device Doctor ${DEVICE_DOCTOR_VERSION}`, '', ...machineSection(machine), '', ...devices, ...interpreters, '', ...codeSection(report, io.cwd), '', ...bench];
  // Paths, device names and tool messages: nothing from outside reaches the terminal raw.
  io.stdout(terminalLines(lines));
  return 0;
}
