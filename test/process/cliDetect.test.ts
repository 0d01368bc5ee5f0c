// `device-doctor detect` and the device part of `doctor`: the argument parser, the
// text table, and the bundled dist/cli.js with fake tools, whose --json output must
// follow PROBES.md exactly (field names and order, bytes as integers, null for unknown).
import * as assert from 'assert';
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import type { DeviceReport } from '../../src/core/devices/report';
import { parseArgs } from '../../src/cli/args';
import { formatDetectText } from '../../src/cli/commands/detect';
import { memoryIo } from '../../src/cli/io';
import { runCli } from '../../src/cli/main';
import { buildDist, CLI_JS, DEBIAN_PYTHON, FAKE_TORCH, scenarioEnv, tempDir } from './workerTestKit';

const MIB = 1024 ** 2;

function cli(args: string[], env: NodeJS.ProcessEnv, cwd?: string) {
  const result = spawnSync(process.execPath, [CLI_JS, ...args], { env, cwd, encoding: 'utf8', timeout: 60_000 });
  return { status: result.status, out: result.stdout, err: result.stderr };
}

// PROBES.md's report, key by key and in its order; the `optional` keys of report.ts may sit among them.
const SHAPES: Record<string, { keys: string[]; optional?: string[] }> = {
  report: { keys: ['schemaVersion', 'host', 'accelerators', 'torch', 'selected', 'problems'], optional: ['topology'] },
  host: { keys: ['platform', 'arch', 'cpu', 'memory'] },
  cpu: { keys: ['model', 'cores', 'flags'] },
  hostMemory: { keys: ['totalBytes', 'freeBytes'] },
  accelerator: { keys: ['id', 'vendor', 'api', 'name', 'uuid', 'pciBusId', 'memory', 'utilizationPercent', 'temperatureC', 'powerW', 'driverVersion', 'cudaVersion', 'mig'] },
  memory: { keys: ['totalBytes', 'usedBytes', 'freeBytes'] },
  torch: { keys: ['interpreter', 'version', 'cuda', 'mps'], optional: ['hip', 'currentAccelerator', 'cudaVisibleDevices'] },
  torchError: { keys: ['interpreter', 'error'] },
  cuda: { keys: ['built', 'available', 'version', 'deviceCount'], optional: ['devices', 'cudnnVersion'] },
  mps: { keys: ['built', 'available'], optional: ['allocates', 'error'] },
  selected: { keys: ['device', 'reason'] },
  problem: { keys: ['source', 'code', 'message', 'hint'] },
};

function checkShape(value: unknown, shape: keyof typeof SHAPES, where: string): Record<string, unknown> {
  assert.ok(value !== null && typeof value === 'object' && !Array.isArray(value), `${where} is an object`);
  const record = value as Record<string, unknown>;
  const { keys, optional = [] } = SHAPES[shape];
  const actual = Object.keys(record);
  assert.deepStrictEqual(actual.filter((key) => keys.includes(key)), keys, `${where}: PROBES.md's keys in order`);
  for (const extra of actual.filter((key) => !keys.includes(key))) assert.ok(optional.includes(extra), `${where}: unexpected key ${extra}`);
  for (const key of actual) assert.notStrictEqual(record[key], undefined, `${where}.${key} is null, never missing`);
  return record;
}

function checkBytes(record: Record<string, unknown>, where: string): void {
  for (const [key, value] of Object.entries(record)) {
    if (!key.endsWith('Bytes')) continue;
    assert.ok(value === null || (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0), `${where}.${key} = ${String(value)}`);
  }
}

/** Fails unless `json` is exactly a PROBES.md device report. */
function assertProbesShape(json: unknown): void {
  const report = checkShape(json, 'report', 'report');
  assert.strictEqual(report.schemaVersion, 1);
  const host = checkShape(report.host, 'host', 'host');
  checkShape(host.cpu, 'cpu', 'host.cpu');
  checkBytes(checkShape(host.memory, 'hostMemory', 'host.memory'), 'host.memory');
  assert.ok(Array.isArray(report.accelerators));
  (report.accelerators as unknown[]).forEach((item, i) => {
    const accelerator = checkShape(item, 'accelerator', `accelerators[${i}]`);
    checkBytes(checkShape(accelerator.memory, 'memory', `accelerators[${i}].memory`), `accelerators[${i}].memory`);
    assert.ok(Array.isArray(accelerator.mig));
    for (const key of ['utilizationPercent', 'temperatureC', 'powerW']) {
      assert.ok(accelerator[key] === null || typeof accelerator[key] === 'number', `accelerators[${i}].${key}: a number or null, never "[N/A]"`);
    }
  });
  if (report.torch !== null) {
    const torch = report.torch as Record<string, unknown>;
    if ('error' in torch) checkShape(torch, 'torchError', 'torch');
    else {
      checkShape(torch, 'torch', 'torch');
      checkShape(torch.cuda, 'cuda', 'torch.cuda');
      checkShape(torch.mps, 'mps', 'torch.mps');
    }
  }
  checkShape(report.selected, 'selected', 'selected');
  (report.problems as unknown[]).forEach((p, i) => checkShape(p, 'problem', `problems[${i}]`));
}

describe('cli: detect', function () {
  this.timeout(60_000);

  describe('arguments', () => {
    it('reads --json, --python (both spellings), --device, --timeout and --verbose', () => {
      assert.deepStrictEqual(parseArgs(['detect']), { command: 'detect', options: { json: false, verbose: false } });
      assert.deepStrictEqual(parseArgs(['detect', '--json', '--python', '/x/python', '--device=cuda:1', '--timeout=2.5', '--verbose']), {
        command: 'detect',
        options: { json: true, python: '/x/python', device: 'cuda:1', timeoutSeconds: 2.5, verbose: true },
      });
      assert.deepStrictEqual(parseArgs(['detect', '--python=/a=b/python']), { command: 'detect', options: { json: false, verbose: false, python: '/a=b/python' } });
      assert.deepStrictEqual(parseArgs(['detect', '--json', '-h']), { command: 'help', topic: 'detect' });
    });

    it('rejects unknown options, positionals, a missing value and a bad timeout', () => {
      for (const [argv, message] of [
        [['--bogus'], /unknown option '--bogus'/],
        [['gpu'], /takes no arguments/],
        [['--python'], /needs a value/],
        [['--timeout', '0'], /positive number of seconds/],
        [['--timeout', 'soon'], /positive number of seconds/],
      ] as const) {
        const parsed = parseArgs(['detect', ...argv]);
        assert.strictEqual(parsed.command, 'usage-error', argv.join(' '));
        assert.strictEqual((parsed as { topic?: string }).topic, 'detect', argv.join(' '));
        assert.match((parsed as { message: string }).message, message);
      }
    });

    it('prints help and usage errors (exit 2) without probing anything', async () => {
      const help = memoryIo('/');
      assert.strictEqual(await runCli(['detect', '--help'], help), 0);
      assert.match(help.out, /^Usage: device-doctor detect \[options\]/);
      assert.match(help.out, /--python <path>/);
      const bad = memoryIo('/');
      assert.strictEqual(await runCli(['detect', '--jsn'], bad), 2);
      assert.strictEqual(bad.err, "error: unknown option '--jsn'\nRun 'device-doctor detect --help' for usage.\n");
    });
  });

  describe('text output', () => {
    const report: DeviceReport = {
      schemaVersion: 1,
      host: { platform: 'linux', arch: 'x64', cpu: { model: 'AMD EPYC', cores: 2, flags: ['avx2', 'fma'] }, memory: { totalBytes: 24 * 1024 ** 3, freeBytes: 20 * 1024 ** 3 } },
      accelerators: [
        {
          id: 'cuda:0', vendor: 'nvidia', api: 'cuda', name: 'NVIDIA H200', uuid: null, pciBusId: null,
          memory: { totalBytes: 143771 * MIB, usedBytes: 20480 * MIB, freeBytes: null },
          utilizationPercent: 87, temperatureC: null, powerW: null, driverVersion: '580.159.04', cudaVersion: '13.0', mig: [],
        },
      ],
      torch: { interpreter: '/usr/bin/python3', version: '1.13.0', cuda: { built: false, available: false, version: null, deviceCount: 0 }, mps: { built: false, available: false } },
      selected: { device: 'cpu', reason: "GPU present, PyTorch can't use it" },
      problems: [{ source: 'torch', code: 'torch-cpu-only-build', message: 'PyTorch was not built with CUDA support', hint: 'install a CUDA build of PyTorch; this driver supports CUDA 13.0' }],
    };

    it('shows the host, a table of accelerators, PyTorch, the selection and each problem with its fix', () => {
      assert.strictEqual(
        formatDetectText(report),
        [
          'Host       linux x64, AMD EPYC, 2 cores',
          'SIMD       avx2 fma',
          'Memory     4.0/24 GiB used',
          '',
          'Accelerators',
          '  ID      NAME         MEMORY USED     UTIL  TEMP  DRIVER      CUDA',
          '  cuda:0  NVIDIA H200  20.0/140.4 GiB  87%   -     580.159.04  13.0',
          '',
          'PyTorch    1.13.0 in /usr/bin/python3',
          '           CPU-only build; no MPS',
          "Selected   cpu: GPU present, PyTorch can't use it",
          '',
          'Problems',
          '  torch-cpu-only-build: PyTorch was not built with CUDA support',
          '    fix: install a CUDA build of PyTorch; this driver supports CUDA 13.0',
          '',
        ].join('\n'),
      );
    });

    it('says so when there is no accelerator and no usable PyTorch', () => {
      const text = formatDetectText({ ...report, accelerators: [], torch: { interpreter: '/venv/bin/python', error: "No module named 'torch'" }, problems: [] });
      assert.match(text, /\nAccelerators\n {2}none found\n/);
      assert.match(text, /\nPyTorch {4}not usable with \/venv\/bin\/python: No module named 'torch'\n/);
      assert.doesNotMatch(text, /Problems/);
    });
  });

  describe('the bundled CLI with fake tools', () => {
    let tmp: string;

    before(() => buildDist());

    beforeEach(() => {
      tmp = tempDir('dd-cli-detect-');
    });

    afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

    it('--json follows PROBES.md exactly: field names and order, integer bytes, null for unknown', () => {
      const env = scenarioEnv('nvidia-two-gpus', { PYTHONPATH: path.join(FAKE_TORCH, 'cuda-two-devices') });
      const { status, out, err } = cli(['detect', '--json', '--python', DEBIAN_PYTHON], env);
      assert.strictEqual(status, 0, err);
      assert.strictEqual(err, '');
      const json = JSON.parse(out) as DeviceReport;
      assertProbesShape(json);
      assert.strictEqual(json.accelerators.length, 2);
      assert.strictEqual(json.accelerators[1].memory.totalBytes, 143771 * MIB, 'MiB × 1,048,576');
      assert.strictEqual(json.accelerators[0].powerW, null, '[N/A] becomes null');
      assert.strictEqual(json.selected.device, 'cuda:0');
    });

    it('the shape checker itself rejects a renamed field, a string byte count and a missing key', () => {
      const env = scenarioEnv('nvidia-two-gpus', { PYTHONPATH: path.join(FAKE_TORCH, 'cuda-two-devices') });
      const good = JSON.parse(cli(['detect', '--json', '--python', DEBIAN_PYTHON], env).out) as Record<string, any>;
      assertProbesShape(good);
      const mutants = [
        (r: any) => { r.accelerators[0].memory.total_bytes = r.accelerators[0].memory.totalBytes; delete r.accelerators[0].memory.totalBytes; },
        (r: any) => { r.accelerators[0].memory.usedBytes = '531 MiB'; },
        (r: any) => { r.host.memory.freeBytes = 1.5; },
        (r: any) => { delete r.accelerators[0].temperatureC; },
        (r: any) => { r.accelerators[0].powerW = '[N/A]'; },
        (r: any) => { r.selected.why = 'x'; },
        (r: any) => { r.torch.cuda.device_count = 2; },
        (r: any) => { r.problems.push({ source: 'torch', code: 'x', message: 'y' }); },
      ];
      for (const mutate of mutants) {
        const copy = JSON.parse(JSON.stringify(good));
        mutate(copy);
        assert.throws(() => assertProbesShape(copy), assert.AssertionError, mutate.toString());
      }
    });

    it('exits 0 with no GPU and no PyTorch, and reports both as findings', () => {
      const venv = path.join(tmp, 'venv');
      assert.strictEqual(spawnSync(DEBIAN_PYTHON, ['-m', 'venv', '--without-pip', venv]).status, 0);
      const { status, out } = cli(['detect', '--json', '--python', path.join(venv, 'bin', 'python')], scenarioEnv(undefined));
      assert.strictEqual(status, 0);
      const json = JSON.parse(out) as DeviceReport;
      assertProbesShape(json);
      assert.deepStrictEqual(json.accelerators, []);
      assert.deepStrictEqual(json.torch, { interpreter: path.join(venv, 'bin', 'python'), error: "No module named 'torch'" });
      assert.deepStrictEqual(json.selected.device, 'cpu');
      assert.deepStrictEqual(json.problems.map((p) => p.code), ['torch-missing']);
    });

    it('reports an interpreter that does not exist and still exits 0', () => {
      const missing = path.join(tmp, 'no', 'python');
      const { status, out } = cli(['detect', '--python', missing], scenarioEnv('nvidia-two-gpus'));
      assert.strictEqual(status, 0);
      assert.match(out, /interpreter-not-found: Python interpreter not found/);
      assert.match(out, / {2}nvidia:0 {2}NVIDIA H200 /);
    });

    it('without --python asks python3 on PATH', () => {
      const bin = path.join(tmp, 'bin');
      fs.mkdirSync(bin);
      fs.symlinkSync(DEBIAN_PYTHON, path.join(bin, 'python3'));
      const env = scenarioEnv(undefined, { PYTHONPATH: path.join(FAKE_TORCH, 'ancient') });
      env.PATH = `${bin}${path.delimiter}${env.PATH}`;
      const json = JSON.parse(cli(['detect', '--json'], env).out) as DeviceReport;
      assert.deepStrictEqual(json.torch && [json.torch.interpreter, 'version' in json.torch && json.torch.version], [path.join(bin, 'python3'), '1.4.0']);
    });

    it('--timeout bounds a hung nvidia-smi; the report says it was stopped', () => {
      const started = Date.now();
      const { status, out } = cli(['detect', '--json', '--timeout', '0.5', '--python', path.join(tmp, 'none')], scenarioEnv('nvidia-hang'));
      assert.strictEqual(status, 0);
      assert.ok(Date.now() - started < 10_000);
      assert.ok((JSON.parse(out) as DeviceReport).problems.some((p) => p.code === 'nvidia-smi-timeout'));
    });

    it('--device checks a pinned device', () => {
      const env = scenarioEnv('nvidia-two-gpus', { PYTHONPATH: path.join(FAKE_TORCH, 'cuda-two-devices') });
      const json = JSON.parse(cli(['detect', '--json', '--device', 'cuda:1', '--python', DEBIAN_PYTHON], env).out) as DeviceReport;
      assert.deepStrictEqual(json.selected, { device: 'cuda:1', reason: 'pinned by deviceDoctor.device' });
    });

    it('--verbose logs each tool run to stderr', () => {
      const { err } = cli(['detect', '--verbose', '--python', path.join(tmp, 'none')], scenarioEnv('nvidia-two-gpus'));
      assert.match(err, /^debug: running nvidia-smi --query-gpu=index,uuid,/m);
    });

    it('never runs a ./nvidia-smi of the current folder, whatever empty or relative entry PATH has', () => {
      const marker = path.join(tmp, 'ran');
      const project = path.join(tmp, 'project');
      fs.mkdirSync(project);
      fs.writeFileSync(path.join(project, 'nvidia-smi'), `#!/bin/sh\n: > "${marker}"\necho "0, GPU-11111111-2222-3333-4444-555555555550, Fake GPU, 00000000:01:00.0, 1, 0, 1, 0, 0, 0, 1"\n`, { mode: 0o755 });
      const env = scenarioEnv(undefined);
      // As in `PATH=/usr/bin:/bin: device-doctor detect`: the empty entry and "." both mean the cwd.
      env.PATH = `${env.PATH}${path.delimiter}${path.delimiter}.`;
      const { status, out, err } = cli(['detect', '--json', '--python', path.join(tmp, 'none')], env, project);
      assert.strictEqual(status, 0, err);
      assert.ok(!fs.existsSync(marker), "the project's ./nvidia-smi ran");
      const json = JSON.parse(out) as DeviceReport;
      assert.deepStrictEqual(json.accelerators, []);
      assert.deepStrictEqual(json.problems.filter((p) => p.source === 'nvidia-smi'), [], 'no NVIDIA tool: not installed, not a problem');
    });

    it('a relative --python is the one in the current folder, made absolute', () => {
      const bin = path.join(tmp, 'venv', 'bin');
      fs.mkdirSync(bin, { recursive: true });
      fs.symlinkSync(DEBIAN_PYTHON, path.join(bin, 'python3'));
      const env = scenarioEnv(undefined, { PYTHONPATH: path.join(FAKE_TORCH, 'ancient') });
      const json = JSON.parse(cli(['detect', '--json', '--python', path.join('venv', 'bin', 'python3')], env, tmp).out) as DeviceReport;
      assert.deepStrictEqual(json.torch && [json.torch.interpreter, 'version' in json.torch && json.torch.version], [path.join(bin, 'python3'), '1.4.0']);
    });

    it('doctor prints the device summary beside the code summary', () => {
      const env = scenarioEnv('nvidia-two-gpus', { PYTHONPATH: path.join(FAKE_TORCH, 'driver-too-old') });
      const bin = path.join(tmp, 'bin');
      fs.mkdirSync(bin);
      fs.symlinkSync(DEBIAN_PYTHON, path.join(bin, 'python3'));
      env.PATH = `${bin}${path.delimiter}${env.PATH}`;
      const { status, out } = cli(['doctor'], env, tmp);
      assert.strictEqual(status, 0);
      assert.match(out, /\nAccelerators\n/);
      assert.match(out, /NVIDIA H200/);
      assert.match(out, /driver-too-old|driver supports CUDA 12\.4, this PyTorch needs 12\.8/);
      assert.match(out, /\nCode in /);
    });
  });
});
