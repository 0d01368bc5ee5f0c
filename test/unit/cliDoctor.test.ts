import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { clearProjectConfigCache } from '../../src/core/config';
import { machineSection, runDoctorCommand, type MachineFacts } from '../../src/cli/commands/doctor';
import { memoryIo } from '../../src/cli/io';
import { DEVICE_DOCTOR_VERSION } from '../../src/cli/version';

const FIXTURE = path.join(__dirname, '..', 'fixtures', 'cli', 'project');

const machine: MachineFacts = {
  nodeVersion: 'v20.1.0', platform: 'linux', arch: 'x64', release: '6.1.0',
  cpuModel: 'Example CPU 9000', logicalCores: 16, totalMemoryBytes: 64 * 1024 ** 3, freeMemoryBytes: 48.5 * 1024 ** 3,
};

describe('cli: doctor', () => {
  let tmp: string;

  beforeEach(() => {
    tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'dd-doctor-')));
    clearProjectConfigCache();
  });

  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('summarizes the machine from plain facts', () => {
    assert.deepStrictEqual(machineSection(machine).slice(0, 5), [
      'This machine',
      '  Node.js    v20.1.0',
      '  Platform   linux x64 (6.1.0)',
      '  CPU        Example CPU 9000, 16 logical cores',
      '  Memory     64.0 GiB total, 48.5 GiB free',
    ]);
    assert.match(machineSection({ ...machine, cpuModel: undefined, logicalCores: 1 })[3], /unknown model, 1 logical core$/);
  });

  it('prints the version, the machine, the accelerator note and the code summary, and exits 0', async () => {
    const project = path.join(tmp, 'project');
    fs.cpSync(FIXTURE, project, { recursive: true });
    const io = memoryIo(project);
    const status = await runDoctorCommand(io, {}, { machine });
    assert.strictEqual(status, 0);
    assert.strictEqual(io.err, '');
    const lines = io.out.split('\n');
    assert.strictEqual(lines[0], `Device Doctor ${DEVICE_DOCTOR_VERSION}`);
    assert.ok(lines.includes('Accelerators'));
    assert.match(io.out, /Selected /);
    assert.ok(lines.includes(`Code in ${project}`));
    // train.py, evaluate.py and legacy/old_train.py; the virtualenvs are skipped.
    assert.ok(lines.includes('  Checked 3 Python files and 1 notebook.'), io.out);
    // needs the analyzer: DD003 in train.py and in the notebook (legacy/ is per-file-ignored).
    assert.ok(lines.includes('  DD003 numpy-on-accelerator: 2 findings'), io.out);
  });

  it('says when there is no Python code here', async () => {
    const io = memoryIo(tmp);
    assert.strictEqual(await runDoctorCommand(io, {}, { machine }), 0);
    assert.match(io.out, /No Python files or notebooks here\./);
  });

  it('warns about a bad pyproject.toml but still checks, and still exits 0', async () => {
    fs.writeFileSync(path.join(tmp, 'pyproject.toml'), '[tool.device-doctor]\nselect = "DD003"\n');
    fs.writeFileSync(path.join(tmp, 'ok.py'), 'x = 1\n');
    const io = memoryIo(tmp);
    assert.strictEqual(await runDoctorCommand(io, {}, { machine }), 0);
    assert.match(io.err, /^warning: .*pyproject\.toml: \[tool\.device-doctor\] select must be a list/m);
    assert.match(io.out, /Checked 1 Python file and 0 notebooks\.\n {2}No device mistakes found\./);
  });
});
