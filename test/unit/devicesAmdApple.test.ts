import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import { parseRocmSmiJson, parseSysfsDrmCard, ROCM_SMI_ARGS, type SysfsDrmCard } from '../../src/core/devices/amd';
import { AMD_SMI_METRIC_ARGS, AMD_SMI_STATIC_ARGS, parseAmdSmiJson } from '../../src/core/devices/amdSmi';
import { parseMacMemorySize, parseSystemProfilerDisplays } from '../../src/core/devices/apple';

const PROBES = path.join(__dirname, '..', 'fixtures', 'probes');
const recorded = (file: string): string => fs.readFileSync(path.join(PROBES, file), 'utf8');
const MIB = 1024 * 1024;
const GIB = 1024 * MIB;

describe('devices: rocm-smi JSON', () => {
  it('uses PROBES.md flags, and --showbus for the PCI bus id', () => {
    assert.deepStrictEqual(ROCM_SMI_ARGS, ['--showproductname', '--showmeminfo', 'vram', '--showuse', '--showbus', '--json']);
  });

  it('reads PROBES.md sample, whose values are all strings', () => {
    assert.deepStrictEqual(parseRocmSmiJson(recorded('rocm-smi/rx7900xt.json')), {
      gpus: [
        {
          index: 0,
          name: 'Radeon RX 7900 XT',
          uuid: null,
          pciBusId: null,
          memory: { totalBytes: 21458059264, usedBytes: 27856896, freeBytes: 21458059264 - 27856896 },
          utilizationPercent: 0,
          temperatureC: null,
          powerW: null,
          driverVersion: null,
          gfxVersion: 'gfx1100',
          secondaryDie: false,
        },
      ],
      warning: null,
    });
  });

  it('keeps both dies of an MI250; the second one says "N/A (Secondary die)"', () => {
    const { gpus, warning } = parseRocmSmiJson(recorded('rocm-smi/mi250-two-dies.json'));
    assert.strictEqual(warning, null);
    assert.deepStrictEqual(gpus.map((gpu) => [gpu.index, gpu.secondaryDie, gpu.powerW, gpu.utilizationPercent]), [
      [0, false, 101, 12],
      [1, true, null, 0],
    ]);
    assert.strictEqual(gpus[1].memory.totalBytes, 68702699520);
    assert.deepStrictEqual(gpus.map((gpu) => gpu.pciBusId), ['0000:29:00.0', '0000:2C:00.0']);
    assert.strictEqual(gpus[1].name, 'AMD INSTINCT MI250 (MCM) OAM AC MBA');
    assert.deepStrictEqual(gpus.map((gpu) => gpu.driverVersion), ['6.7.0', '6.7.0'], 'the "system" entry is not a card');
  });

  it('reads older rocm-smi spellings ("Card series") and the bus and temperature when present', () => {
    const [gpu] = parseRocmSmiJson(recorded('rocm-smi/rx6800-old-keys.json')).gpus;
    assert.strictEqual(gpu.name, 'Navi 21 [Radeon RX 6800/6800 XT / 6900 XT]');
    assert.strictEqual(gpu.pciBusId, '0000:0B:00.0');
    assert.strictEqual(gpu.temperatureC, 47);
  });

  it('turns "WARNING: No JSON data to report" into a warning, not an exception', () => {
    assert.deepStrictEqual(parseRocmSmiJson(recorded('rocm-smi/warning-no-json.txt')), {
      gpus: [],
      warning: 'rocm-smi printed no JSON: WARNING: No JSON data to report',
    });
    assert.strictEqual(parseRocmSmiJson('').warning, 'rocm-smi printed nothing');
    assert.deepStrictEqual(parseRocmSmiJson('[1, 2]').gpus, []);
  });
});

describe('devices: amd-smi JSON', () => {
  it('runs static and metric with the options whose fields it reads', () => {
    assert.deepStrictEqual(AMD_SMI_STATIC_ARGS, ['static', '--asic', '--bus', '--vram', '--driver', '--json']);
    assert.deepStrictEqual(AMD_SMI_METRIC_ARGS, ['metric', '--usage', '--power', '--temperature', '--mem-usage', '--json']);
  });

  it('merges static, metric and list of two MI300X by GPU index; value objects become numbers', () => {
    const { gpus, warning } = parseAmdSmiJson(
      recorded('amd-smi/mi300x-static.json'),
      recorded('amd-smi/mi300x-metric.json'),
      recorded('amd-smi/list.json'),
    );
    assert.strictEqual(warning, null);
    assert.deepStrictEqual(gpus[0], {
      index: 0,
      name: 'AMD Instinct MI300X',
      uuid: 'a5ff74a1-0000-1000-80ab-cd1234567890',
      pciBusId: '0000:0c:00.0',
      memory: { totalBytes: 196592 * MIB, usedBytes: 40960 * MIB, freeBytes: 155632 * MIB },
      utilizationPercent: 42,
      temperatureC: 35,
      powerW: 133,
      driverVersion: '6.8.5',
      gfxVersion: 'gfx942',
      secondaryDie: false,
    });
    assert.deepStrictEqual(gpus.map((gpu) => [gpu.index, gpu.pciBusId, gpu.utilizationPercent]), [
      [0, '0000:0c:00.0', 42],
      [1, '0000:22:00.0', 0],
    ]);
  });

  it('reads the {"gpu_data": [...]} wrapper of newer releases, and "N/A" as null', () => {
    const { gpus } = parseAmdSmiJson(recorded('amd-smi/rx7900xtx-static-gpu-data.json'), recorded('amd-smi/rx7900xtx-metric-gpu-data.json'));
    assert.strictEqual(gpus.length, 1);
    assert.strictEqual(gpus[0].name, 'Radeon RX 7900 XTX');
    assert.strictEqual(gpus[0].powerW, null);
    assert.strictEqual(gpus[0].temperatureC, 44);
    assert.deepStrictEqual(gpus[0].memory, { totalBytes: 24560 * MIB, usedBytes: null, freeBytes: null });
  });

  it('takes the VRAM size from static alone when there is no metric output', () => {
    const { gpus } = parseAmdSmiJson(recorded('amd-smi/mi300x-static.json'));
    assert.deepStrictEqual(gpus[1].memory, { totalBytes: 196592 * MIB, usedBytes: null, freeBytes: null });
    assert.strictEqual(gpus[1].utilizationPercent, null);
  });

  it('keeps byte counts integers', () => {
    const { gpus } = parseAmdSmiJson(recorded('amd-smi/mi300x-static.json'), recorded('amd-smi/mi300x-metric.json'));
    for (const gpu of gpus) for (const value of Object.values(gpu.memory)) assert.ok(value === null || Number.isInteger(value));
  });

  it('reports output that is not JSON as a warning', () => {
    assert.deepStrictEqual(parseAmdSmiJson('ERROR: Unable to detect any GPU devices, check amdgpu version and module status (sudo modprobe amdgpu)\n'), {
      gpus: [],
      warning: 'amd-smi printed no JSON: ERROR: Unable to detect any GPU devices, check amdgpu version and module status (sudo modprobe amdgpu)',
    });
  });
});

describe('devices: AMD through sysfs', () => {
  const card = (file: string): SysfsDrmCard => JSON.parse(recorded(`sysfs/${file}`)) as SysfsDrmCard;

  it('reads an AMD card (vendor 0x1002) from its files', () => {
    assert.deepStrictEqual(parseSysfsDrmCard(card('rx6700xt.json')), {
      index: 1,
      name: 'AMD GPU 0x73df',
      uuid: null,
      pciBusId: '0000:0b:00.0',
      memory: { totalBytes: 12868124672, usedBytes: 1186615296, freeBytes: 12868124672 - 1186615296 },
      utilizationPercent: 7,
      temperatureC: null,
      powerW: null,
      driverVersion: null,
      gfxVersion: null,
      secondaryDie: false,
    });
  });

  it('ignores other vendors and AMD cards without VRAM files', () => {
    assert.strictEqual(parseSysfsDrmCard(card('intel-igpu.json')), null);
    assert.strictEqual(parseSysfsDrmCard(card('amd-apu-no-vram-files.json')), null);
  });
});

describe('devices: system_profiler on macOS', () => {
  it('reads PROBES.md Apple M1 sample: unified memory, cores from a string', () => {
    assert.deepStrictEqual(parseSystemProfilerDisplays(recorded('system_profiler/m1.json')), {
      gpus: [{ index: 0, name: 'Apple M1', vendor: 'apple', cores: 7, metalFamily: 'apple7', vramBytes: null, unifiedMemory: true }],
      warning: null,
    });
  });

  it('reads an M2 Max with two displays attached', () => {
    const { gpus } = parseSystemProfilerDisplays(recorded('system_profiler/m2-max.json'));
    assert.deepStrictEqual(gpus, [{ index: 0, name: 'Apple M2 Max', vendor: 'apple', cores: 38, metalFamily: 'metal3', vramBytes: null, unifiedMemory: true }]);
  });

  it('reads an Intel Mac: integrated Intel and a discrete AMD GPU with spdisplays_vram', () => {
    const { gpus } = parseSystemProfilerDisplays(recorded('system_profiler/intel-mac-radeon-pro.json'));
    assert.deepStrictEqual(gpus.map((gpu) => [gpu.name, gpu.vendor, gpu.vramBytes, gpu.unifiedMemory]), [
      ['Intel UHD Graphics 630', 'intel', null, false],
      ['AMD Radeon Pro 5500M', 'amd', 8 * GIB, false],
    ]);
  });

  it('never keeps a display serial number (or anything else about the displays)', () => {
    for (const file of ['m1.json', 'm2-max.json', 'intel-mac-radeon-pro.json']) {
      const raw = recorded(`system_profiler/${file}`);
      const serials = [...raw.matchAll(/"_spdisplays_display-serial-number2?"\s*:\s*"([^"]+)"/g)].map((match) => match[1]);
      assert.ok(serials.length > 0, `${file} has serial numbers to hide`);
      const parsed = JSON.stringify(parseSystemProfilerDisplays(raw));
      for (const serial of serials) assert.ok(!parsed.includes(serial), `${file}: serial ${serial} leaked`);
      assert.ok(!/serial|ndrvs|_spdisplays/i.test(parsed), `${file}: display fields leaked: ${parsed}`);
    }
  });

  it('reads "8 GB" and "1536 MB" as bytes', () => {
    assert.strictEqual(parseMacMemorySize('8 GB'), 8 * GIB);
    assert.strictEqual(parseMacMemorySize('1536 MB'), 1536 * MIB);
    assert.strictEqual(parseMacMemorySize('lots'), null);
  });

  it('answers a warning for output that is not the JSON it asked for', () => {
    assert.deepStrictEqual(parseSystemProfilerDisplays(recorded('system_profiler/garbage.txt')), {
      gpus: [],
      warning: 'system_profiler printed no SPDisplaysDataType JSON',
    });
  });
});
