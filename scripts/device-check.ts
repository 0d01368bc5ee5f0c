// `npm run device-check`: the check to run when an accelerator machine is lent (one NVIDIA
// H200 here, for minutes at a time): one prepared script, under 5 minutes on a GPU, that
// prints ONE JSON object on stdout (progress goes to stderr) and exits
//   0  every check passed on an accelerator,
//   1  a check failed (its `problem` says what),
//   2  no accelerator: PyTorch sees no CUDA device here, so nothing was checked (CPU machines).
// The checks, in order (each one's figures are in `checks[]`):
//   detect       `device-doctor detect --json`: a CUDA device PyTorch can use, its datasheet peaks;
//   virtual-gpu  the virtual-GPU corpus (test/fixtures/virtualGpu/corpus.json, scripts/lib/virtualGpuCheck.ts):
//                each script run by `device-doctor run --virtual … --format sarif` on the CPU
//                (CUDA_VISIBLE_DEVICES empty; SARIF, not json, as only it carries each finding's
//                stack) and plainly with the GPUs visible. The pass rule, fixed
//                before anything was measured: a script AGREES when the virtual run's fatal findings
//                (SARIF level error) are none and the plain run ends without an exception, or the
//                plain run raises at a line (its innermost frame in the corpus's files; a notebook's
//                cell and line) where one of them says a real GPU raises (the finding's first stack
//                frame that is not its CPU tensor's origin). Non-fatal findings (a discarded move,
//                host syncs, torch.load without map_location where the device exists) must not make
//                the plain run fail. The check passes when every compared script agrees, every
//                virtual run reports exactly the manifest's findings, and one script or more was
//                compared. Excluded, with the reason in the JSON: the manifest's own exclusions
//                (MPS, a script that never ends) and scripts needing more GPUs than the machine has.
//                A real run stops at its first exception: in a script with several fatal mistakes the
//                later ones are counted `unreached`, not confirmed; each kind also stands alone in a
//                script of its own. Scripts run side by side (half the cores), each run limited to
//                90 s; with the plain runs on a 2-core CPU (the process test) the corpus takes 30-45 s;
//                not yet timed on a GPU machine;
//   sweep        `bench --engine torch --device cuda --sweep --dtype float32,bfloat16,float16 --json`:
//                every product correct (float64-checked), and the largest size of each dtype at
//                25 % of its datasheet peak or more (the CPU's "far below" mark, diagnosis.ts);
//   tf32, copy   a direct torch timing beside the product (it has no tf32 dtype and no memory
//                test yet): an n = 8192 float32 product with TF32 allowed, as % of the tf32
//                peak, and a device-to-device copy of 1 GiB (bytes read + written) as % of the
//                datasheet bandwidth; both reported, failing only when the work itself fails;
//   agreement    scripts/bench-torch-agreement.ts's rule on cuda at n = 8192 (8 alternating
//                rounds, pooled medians within 10 %);
//   collective   with two GPUs or more: `bench --collective all-reduce,all-gather --device cuda
//                --world-size N --max-size 256MiB --json` over NCCL, every result checked;
//   devices      with two GPUs or more: `bench --devices all --size 8192 --json`, every GPU measured
//                alone and all at once (a GPU flagged slow is reported, not failed: the tool worked).
// It runs the built bundles (dist/cli.js): `npm run device-check` builds them first; on a machine
// without node_modules, carry dist/ and run `node dist/device-check.js` (see README); the
// corpus is read from test/fixtures/virtualGpu beside dist/.
// Options: --python PATH (default: DEVICE_DOCTOR_PYTHON, else python3 on PATH, as the CLI).
import { spawnSync } from 'child_process';
import * as path from 'path';
import { gpuPeakByName, type GpuPeak } from '../src/core/bench/gpuPeaks';
import type { DeviceReport } from '../src/core/devices/report';
import { measureTorchAgreement } from './bench-torch-agreement';
import { CORPUS_DIR, virtualGpuCheck } from './lib/virtualGpuCheck';

export const EXIT_PASSED = 0;
export const EXIT_FAILED = 1;
export const EXIT_NO_ACCELERATOR = 2;
/** The largest size of each dtype must reach this share of its datasheet peak. */
export const MIN_PERCENT_OF_PEAK = 25;
const AGREEMENT_SIZE = 8192;

/** What a check found: passed or not, why not, and its figures. */
export interface Outcome {
  ok: boolean;
  /** Why it failed; absent when it passed. */
  problem?: string;
  [figure: string]: unknown;
}

export interface Check extends Outcome {
  name: 'detect' | 'virtual-gpu' | 'sweep' | 'tf32' | 'copy' | 'agreement' | 'collective' | 'devices';
  seconds: number;
}

export interface DeviceCheckSummary {
  schemaVersion: 1;
  status: 'passed' | 'failed' | 'no-accelerator';
  exitCode: number;
  python: string;
  /** The CUDA device checked (cuda:0) and the peaks its name matched; null when none. */
  accelerator: { id: string; name: string; count: number; peak: GpuPeak | null } | null;
  torch: string | null;
  checks: Check[];
  seconds: number;
}

const ROOT = path.join(__dirname, '..');
const DIST = path.join(ROOT, 'dist');
const CLI_JS = path.basename(__dirname) === 'dist' ? path.join(__dirname, 'cli.js') : path.join(DIST, 'cli.js');

function say(text: string): void {
  process.stderr.write(`device-check: ${text}\n`);
}

export type CliRun = (args: string[], timeoutSec: number) => { status: number | null; json: any; stderr: string };

function cli(args: string[], timeoutSec: number): { status: number | null; json: any; stderr: string } {
  const run = spawnSync(process.execPath, [CLI_JS, ...args], { encoding: 'utf8', timeout: timeoutSec * 1000, maxBuffer: 64 * 1024 * 1024 });
  let json: unknown = null;
  try {
    json = JSON.parse(run.stdout);
  } catch {
    json = null;
  }
  return { status: run.status, json, stderr: (run.stderr ?? '').trim().split('\n').slice(-3).join(' | ') };
}

async function timed(name: Check['name'], work: () => Promise<Outcome> | Outcome): Promise<Check> {
  const start = Date.now();
  say(`${name}…`);
  try {
    const outcome = await work();
    return { ...outcome, name, seconds: (Date.now() - start) / 1000 };
  } catch (error) {
    return { name, ok: false, seconds: (Date.now() - start) / 1000, problem: error instanceof Error ? error.message : String(error) };
  }
}

interface SweepResult {
  dtype: string;
  size: number;
  gflops: number;
  percentOfPeak?: number;
  noisy?: boolean;
}

/** The sweep's figures and whether it passed: every result correct, the largest size of each dtype at MIN_PERCENT_OF_PEAK or more. */
export function judgeSweep(status: number | null, json: any): Outcome {
  if (!json || !Array.isArray(json.results)) return { ok: false, problem: `bench --sweep printed no JSON (exit ${status})` };
  const results: SweepResult[] = json.results;
  const failures = (json.problems ?? []).filter((p: { status: string }) => !['below-peak', 'noisy'].includes(p.status));
  const largest = new Map<string, SweepResult>();
  for (const r of results) if ((largest.get(r.dtype)?.size ?? 0) < r.size) largest.set(r.dtype, r);
  const slow = [...largest.values()].filter((r) => (r.percentOfPeak ?? 0) < MIN_PERCENT_OF_PEAK);
  const problems = [
    ...(status !== 0 ? [`bench exited ${status}`] : []),
    ...failures.map((p: { dtype?: string; size?: number; message: string }) => `${p.dtype ?? ''} n = ${p.size ?? '?'}: ${p.message}`),
    ...slow.map((r) => `${r.dtype} n = ${r.size}: ${r.percentOfPeak === undefined ? 'no % of peak (the device name matched no datasheet)' : `${r.percentOfPeak.toFixed(1)} % of peak`}, under ${MIN_PERCENT_OF_PEAK} %`),
  ];
  return {
    ok: problems.length === 0 && results.length > 0,
    ...(problems.length > 0 ? { problem: problems.join('; ') } : {}),
    results: results.map((r) => ({ dtype: r.dtype, size: r.size, tflops: r.gflops / 1e3, percentOfPeak: r.percentOfPeak ?? null, noisy: r.noisy ?? false })),
    diagnoses: (json.problems ?? []).filter((p: { status: string }) => p.status === 'below-peak').map((p: { message: string }) => p.message),
    sweep: json.sweep ?? null,
  };
}

// tf32 and the device-to-device copy, timed directly (the product has neither yet).
const DIRECT_GPU = `
import json, time, torch
dev = torch.device("cuda", 0)
def timed(work, repeats=10):
    work(); torch.cuda.synchronize(dev)
    times = []
    for _ in range(repeats):
        torch.cuda.synchronize(dev); start = time.perf_counter(); work(); torch.cuda.synchronize(dev)
        times.append(time.perf_counter() - start)
    times.sort()
    return times[len(times) // 2]
n = 8192
torch.manual_seed(1)
a = torch.rand(n, n, device=dev); b = torch.rand(n, n, device=dev); c = torch.empty(n, n, device=dev)
torch.backends.cuda.matmul.allow_tf32 = True
tf32 = timed(lambda: torch.matmul(a, b, out=c))
torch.backends.cuda.matmul.allow_tf32 = False
check = (c[:64].double() - a[:64].double() @ b.double()).abs().max().item() / n
del a, b, c
nbytes = 1 << 30
src = torch.empty(nbytes, dtype=torch.uint8, device=dev).fill_(1); dst = torch.empty_like(src)
copy = timed(lambda: dst.copy_(src))
ok = bool(torch.equal(src[:4096], dst[:4096]))
print(json.dumps({"tf32Sec": tf32, "tf32MaxAbsErrorPerTerm": check, "copySec": copy, "copyBytes": nbytes, "copyOk": ok}))
`;

function directGpu(python: string): any {
  const run = spawnSync(python, ['-c', DIRECT_GPU], { encoding: 'utf8', timeout: 120_000 });
  if (run.status !== 0) throw new Error(`the direct tf32/copy timing exited ${run.status}: ${(run.stderr ?? '').trim().split('\n').pop()}`);
  return JSON.parse(run.stdout.trim().split('\n').pop() ?? '');
}

export function pythonOf(argv: readonly string[], env: NodeJS.ProcessEnv): string {
  const flag = argv.indexOf('--python');
  return (flag >= 0 ? argv[flag + 1] : undefined) ?? env.DEVICE_DOCTOR_PYTHON ?? 'python3';
}

/** The CUDA devices PyTorch sees in a detect report (none: nothing to check). */
export function cudaDevicesOf(report: DeviceReport | null): { count: number; name: string | null; version: string | null } {
  const torch = report?.torch;
  if (!torch || 'error' in torch) return { count: 0, name: null, version: null };
  const count = torch.cuda.available ? torch.cuda.deviceCount : 0;
  return { count, name: count > 0 ? torch.cuda.devices?.[0]?.name ?? null : null, version: torch.version ?? null };
}

/** `bench --devices all`'s figures: passed when the CLI exited 0 with every device measured in both passes. */
export function judgeEveryDevice(status: number | null, json: any, count: number): Outcome {
  if (!json || !Array.isArray(json.devices)) return { ok: false, problem: `bench --devices all printed no JSON (exit ${status})` };
  const devices: Array<{ device: string; alone: { gflops?: number; error?: string; during?: unknown }; together: { gflops?: number; error?: string; during?: unknown } }> = json.devices;
  const failed = devices.flatMap((d) => [['alone', d.alone], ['all at once', d.together]].flatMap(([pass, run]) => {
    const r = run as { gflops?: number; error?: string };
    return r.gflops && r.gflops > 0 ? [] : [`${d.device} (${pass}): ${r.error ?? 'no speed'}`];
  }));
  const problems = [...(status !== 0 ? [`bench --devices all exited ${status}`] : []), ...(devices.length !== count ? [`${devices.length} devices measured of ${count}`] : []), ...failed];
  return {
    ok: problems.length === 0,
    ...(problems.length > 0 ? { problem: problems.join('; ') } : {}),
    devices: devices.map((d) => ({ device: d.device, aloneTflops: (d.alone.gflops ?? 0) / 1e3, togetherTflops: (d.together.gflops ?? 0) / 1e3, aloneDuring: d.alone.during ?? null, togetherDuring: d.together.during ?? null })),
    findings: json.findings ?? [],
  };
}

/** The checks that need two GPUs or more: collectives over NCCL, then every device against its peers. */
export async function multiGpuChecks(python: string, count: number, run: CliRun = cli): Promise<Check[]> {
  const checks: Check[] = [];
  checks.push(await timed('collective', () => {
    const result = run(['bench', '--collective', 'all-reduce,all-gather', '--device', 'cuda', '--world-size', String(count), '--max-size', '256MiB', '--json', '--python', python], 150);
    const ok = result.status === 0 && result.json !== null;
    return { ok, worldSize: count, result: result.json, ...(ok ? {} : { problem: `bench --collective exited ${result.status}: ${result.stderr}` }) };
  }));
  checks.push(await timed('devices', () => {
    const result = run(['bench', '--devices', 'all', '--size', '8192', '--json', '--python', python], 180);
    return judgeEveryDevice(result.status, result.json, count);
  }));
  return checks;
}

export async function deviceCheck(python: string): Promise<DeviceCheckSummary> {
  const start = Date.now();
  const checks: Check[] = [];
  const summary = (status: DeviceCheckSummary['status'], accelerator: DeviceCheckSummary['accelerator'], torch: string | null): DeviceCheckSummary => ({
    schemaVersion: 1, status, exitCode: status === 'passed' ? EXIT_PASSED : status === 'failed' ? EXIT_FAILED : EXIT_NO_ACCELERATOR,
    python, accelerator, torch, checks, seconds: (Date.now() - start) / 1000,
  });
  let cuda = { count: 0, name: null as string | null, version: null as string | null };
  checks.push(await timed('detect', () => {
    const run = cli(['detect', '--json', '--python', python], 120);
    if (!run.json) return { ok: false, problem: `detect printed no JSON (exit ${run.status}): ${run.stderr}` };
    const report = run.json as DeviceReport;
    cuda = cudaDevicesOf(report);
    const torchError = report.torch && 'error' in report.torch ? report.torch.error : null;
    return {
      ok: cuda.count > 0,
      ...(cuda.count > 0 ? {} : { problem: torchError ? `PyTorch is not usable with ${python}: ${torchError}` : `PyTorch with ${python} sees no CUDA device` }),
      cudaDevices: cuda.count, deviceName: cuda.name, torch: cuda.version,
      accelerators: report.accelerators.map((a) => `${a.id} ${a.name}`),
      selected: report.selected.device,
    };
  }));
  if (cuda.count === 0) return summary('no-accelerator', null, cuda.version);
  const peak = cuda.name ? gpuPeakByName(cuda.name) : null;
  const accelerator = { id: 'cuda:0', name: cuda.name ?? 'cuda:0', count: cuda.count, peak };

  checks.push(await timed('virtual-gpu', async () => ({
    ...(await virtualGpuCheck({
      python, cliJs: CLI_JS, corpusDir: path.join(ROOT, CORPUS_DIR), plainDevices: cuda.count,
      plainRunOn: `cuda: ${cuda.count} × ${accelerator.name} (PyTorch ${cuda.version ?? '?'}), a real GPU`, log: say,
    })),
  })));

  checks.push(await timed('sweep', () => {
    const run = cli(['bench', '--engine', 'torch', '--device', 'cuda', '--sweep', '--dtype', 'float32,bfloat16,float16', '--json', '--python', python], 150);
    return judgeSweep(run.status, run.json);
  }));
  let copy = null as Check | null;
  checks.push(await timed('tf32', () => {
    const d = directGpu(python);
    const tflops = (2 * 8192 ** 3) / d.tf32Sec / 1e12;
    const copyGBs = (2 * d.copyBytes) / d.copySec / 1e9;
    copy = {
      name: 'copy', ok: d.copyOk === true, seconds: 0, bytes: d.copyBytes, medianSec: d.copySec, GBs: copyGBs,
      percentOfPeak: peak ? (copyGBs / peak.bandwidthGBs) * 100 : null, ...(d.copyOk ? {} : { problem: 'the copied bytes differ' }),
    };
    const correct = d.tf32MaxAbsErrorPerTerm < 1e-2;
    return {
      ok: correct, size: 8192, medianSec: d.tf32Sec, tflops, percentOfPeak: peak?.tf32 ? (tflops / peak.tf32) * 100 : null,
      ...(correct ? {} : { problem: `the tf32 product is wrong (max error per term ${d.tf32MaxAbsErrorPerTerm})` }),
    };
  }));
  checks.push(copy ?? { name: 'copy', ok: false, seconds: 0, problem: 'not measured: the direct timing failed (see tf32)' });
  checks.push(await timed('agreement', async () => {
    const a = await measureTorchAgreement({ python, device: 'cuda', size: AGREEMENT_SIZE, withOldMethod: false, cliJs: CLI_JS });
    return {
      ok: a.agrees, size: a.size, rounds: a.rounds.length, benchPooledMedianSec: a.cliPooledMedianSec, directPooledMedianSec: a.directPooledMedianSec,
      differencePercent: a.differencePercent, ...(a.agrees ? {} : { problem: `bench and the direct timing are ${a.differencePercent.toFixed(1)} % apart (more than 10 %)` }),
    };
  }));
  if (cuda.count > 1) checks.push(...(await multiGpuChecks(python, cuda.count)));
  return summary(checks.every((c) => c.ok) ? 'passed' : 'failed', accelerator, cuda.version);
}

if (require.main === module && path.basename(process.argv[1] ?? '').startsWith('device-check')) {
  deviceCheck(pythonOf(process.argv, process.env)).then(
    (summary) => {
      process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
      say(summary.status === 'no-accelerator' ? 'no accelerator: PyTorch sees no CUDA device here, so nothing was checked (exit 2)' : `${summary.status} (exit ${summary.exitCode})`);
      process.exitCode = summary.exitCode;
    },
    (error) => {
      process.stdout.write(`${JSON.stringify({ schemaVersion: 1, status: 'failed', exitCode: EXIT_FAILED, problem: error instanceof Error ? error.message : String(error) })}\n`);
      process.exitCode = EXIT_FAILED;
    },
  );
}
