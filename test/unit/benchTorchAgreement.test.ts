// Acceptance 3 of issue 5, as a test: `device-doctor bench --engine torch --device cpu
// --size 1024 --json` (the built CLI, Debian's PyTorch) agrees within 10% with a direct
// torch timing of the same product in the same run, on the same number of threads. The
// measurement and its noise handling (interleaved rounds, fastest products compared) are
// scripts/bench-torch-agreement.ts, which `npm run bench` prints as a section too.
import * as assert from 'assert';
import { describeAgreement, measureTorchAgreement } from '../../scripts/bench-torch-agreement';
import { buildDist, CLI_JS, DEBIAN_PYTHON, requireDebianTorch, scenarioEnv } from './workerTestKit';

describe('torch engine agrees with a direct torch measurement (acceptance 3)', function () {
  this.timeout(300_000);

  it('bench --engine torch --device cpu --size 1024 --json is within 10% of plain torch timing a @ b', () => {
    requireDebianTorch();
    buildDist();
    const agreement = measureTorchAgreement({ python: DEBIAN_PYTHON, cliJs: CLI_JS, size: 1024, minRounds: 3, maxRounds: 8, env: scenarioEnv(undefined) });
    const report = describeAgreement(agreement);
    assert.ok(agreement.rounds.length >= 3, report);
    assert.ok(agreement.rounds.every((r) => r.cliTimesSec.length === 10 && r.directTimesSec.length === 10), report);
    assert.ok(agreement.agrees, `the bench and the direct timing disagree by more than 10%:\n${report}`);
    assert.ok(agreement.differencePercent <= 10, report);
  });
});
