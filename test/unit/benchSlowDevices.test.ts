// `bench --devices all`'s verdict, on made-up results: a device more than 10 % below the
// median of its peers (itself left out) is flagged, with its readings during its run beside it.
import * as assert from 'assert';
import { judgeDevices, slowDeviceMessage, type DeviceSpeed } from '../../src/core/bench/devices/slowDevices';

const eight = (slow: Partial<DeviceSpeed> & { gflops: number }): DeviceSpeed[] =>
  [50_000, 51_000, 49_500, 50_500, 50_200, 49_800, 50_100].map((gflops, i) => ({ device: `cuda:${i}`, gflops })).concat([{ device: 'cuda:7', ...slow }]);

describe('bench: a device slower than its peers', () => {
  it('flags the one GPU of eight 20 % below the others, and only it', () => {
    const verdicts = judgeDevices(eight({ gflops: 40_000, temperatureC: 88, powerW: 450, smClockMHz: 1410, maxSmClockMHz: 1980 }));
    assert.deepStrictEqual(verdicts.filter((v) => v.slow).map((v) => v.device), ['cuda:7']);
    const slow = verdicts[7];
    assert.strictEqual(slow.peerMedianGflops, 50_100);
    assert.ok(Math.abs((slow.belowPeers as number) - (1 - 40_000 / 50_100)) < 1e-12);
    assert.strictEqual(slowDeviceMessage(slow, 7), 'cuda:7 is 20 % below the median of its 7 peers (40 vs 50.1 TFLOP/s); its SM clock ran at 1.41 of 1.98 GHz at 88 °C and 450 W during the run');
  });

  it('says only the readings it has, and GFLOP/s for speeds under one TFLOP/s', () => {
    const [, slow] = judgeDevices([{ device: 'cuda:0', gflops: 100 }, { device: 'cuda:1', gflops: 60, temperatureC: 84.4 }]);
    assert.strictEqual(slowDeviceMessage(slow, 1), 'cuda:1 is 40 % below the median of its 1 peer (60 vs 100 GFLOP/s); it ran at 84 °C during the run');
    const [, clockOnly] = judgeDevices([{ device: 'cuda:0', gflops: 100 }, { device: 'cuda:1', gflops: 60, smClockMHz: 1200 }]);
    assert.match(slowDeviceMessage(clockOnly, 1), /; its SM clock ran at 1\.2 GHz during the run$/);
    const [, bare] = judgeDevices([{ device: 'cuda:0', gflops: 100 }, { device: 'cuda:1', gflops: 60 }]);
    assert.strictEqual(slowDeviceMessage(bare, 1), 'cuda:1 is 40 % below the median of its 1 peer (60 vs 100 GFLOP/s)');
  });

  it('does not flag a device 9 % below, nor the fast ones when one is slow', () => {
    assert.deepStrictEqual(judgeDevices(eight({ gflops: 45_600 })).map((v) => v.slow), Array(8).fill(false));
    const two = judgeDevices([{ device: 'cuda:0', gflops: 100 }, { device: 'cuda:1', gflops: 50 }]);
    assert.deepStrictEqual(two.map((v) => [v.device, v.slow, v.peerMedianGflops]), [['cuda:0', false, 50], ['cuda:1', true, 100]]);
  });

  it('has no verdict for a lone device, and refuses a device without a speed', () => {
    assert.deepStrictEqual(judgeDevices([{ device: 'cuda:0', gflops: 10 }]), [{ device: 'cuda:0', gflops: 10, peerMedianGflops: null, belowPeers: null, slow: false }]);
    assert.throws(() => judgeDevices([{ device: 'cuda:0', gflops: 10 }, { device: 'cuda:1', gflops: Number.NaN }]), /cuda:1 has no speed/);
    assert.throws(() => judgeDevices([], 1.5), RangeError);
  });
});
