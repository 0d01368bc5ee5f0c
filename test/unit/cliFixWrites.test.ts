// What --fix does when it must not, or cannot, write: a user saved the file meanwhile, the
// file is read-only, the disk is full. The file is then as the user left it, the findings
// are those in it, and stderr says why with exit 1. And what it keeps when it does write:
// the owner and the mode. Saves are made deterministically, at the moments that matter:
// from inside the analysis (what a save during a long fix is) and through replaceFile's hooks.
import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import type { AnalyzeOptions, Finding } from '../../src/core/analysis/types';
import { clearProjectConfigCache } from '../../src/core/config';
import { parseArgs, type LintOptions } from '../../src/cli/args';
import { memoryIo } from '../../src/cli/io';
import { runLintCommand } from '../../src/cli/commands/lint';
import { lintFiles, type Analyzer, type LintSettings } from '../../src/cli/lint/lintFiles';

/** A stand-in DD003: each `name.numpy()` not after `.cpu()` gets "insert .cpu()". */
function findings(source: string, _options?: AnalyzeOptions): Finding[] {
  const found: Finding[] = [];
  source.split('\n').forEach((line, lineNo) => {
    for (const match of line.matchAll(/(\w+)(?<!\.cpu\(\))\.numpy\(\)/g)) {
      const start = match.index ?? 0;
      const insertAt = { line: lineNo, character: start + match[1].length };
      found.push({
        code: 'DD003', severity: 'error', related: [], message: `${match[1]} may be on an accelerator`,
        range: { start: { line: lineNo, character: start }, end: { line: lineNo, character: start + match[0].length } },
        fixes: [{ title: 'Insert .cpu() before .numpy()', preferred: true, edits: [{ range: { start: insertAt, end: insertAt }, newText: '.cpu()' }] }],
      });
    }
  });
  return found;
}

const analyzer: Analyzer = {
  analyzeSource: findings,
  analyzeNotebook: (cells) => cells.flatMap((cell, cellIndex) => findings(cell).map((finding) => ({ finding, cellIndex }))),
};

const ORIGINAL = 'x = t.numpy()\n';
const FIXED = 'x = t.cpu().numpy()\n';
const SAVED = 'x = t.numpy()\ny = 2  # the user typed this and saved\n';

function lintOptions(argv: string[]): LintOptions {
  const invocation = parseArgs(['lint', ...argv]);
  if (invocation.command !== 'lint') throw new Error(`not a lint command line: ${JSON.stringify(invocation)}`);
  return invocation.options;
}

describe('cli: --fix loses no save and changes nothing but the text', () => {
  let tmp: string;
  let file: string;

  beforeEach(() => {
    tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'dd-fix-writes-')));
    file = path.join(tmp, 'train.py');
    fs.writeFileSync(file, ORIGINAL);
    clearProjectConfigCache();
  });

  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  async function lint(argv: string[], withAnalyzer: Analyzer = analyzer) {
    const io = memoryIo(tmp);
    const status = await runLintCommand(lintOptions(argv), io, withAnalyzer);
    return { status, out: io.out, err: io.err };
  }

  function fixWith(extra: Partial<LintSettings>) {
    return lintFiles([file], { cwd: tmp, noqa: true, fix: true, analyzer, ...extra });
  }

  /** The folder holds only `names`: no temporary file was left behind. */
  function assertOnly(...names: string[]) {
    assert.deepStrictEqual(fs.readdirSync(tmp).sort(), names.sort());
  }

  describe('a save while --fix works on the file', () => {
    it('a save during the analysis is kept, and --fix reports "changed while fixing" with exit 1', async () => {
      let saved = false;
      const savesMidway: Analyzer = {
        ...analyzer,
        analyzeSource(source, options) {
          if (!saved) {
            saved = true;
            fs.writeFileSync(file, SAVED); // the editor writes the file in place, as VS Code does
          }
          return findings(source, options);
        },
      };
      const { status, out, err } = await lint(['--fix', 'train.py'], savesMidway);
      assert.strictEqual(fs.readFileSync(file, 'utf8'), SAVED);
      assert.match(err, /^error: train\.py: not fixed: the file changed while fixing \(saved by someone else after --fix read it\); your version is kept, run --fix again\n$/);
      assert.match(out, /^train\.py:1:5: DD003 /, 'the findings of the text that was read are reported, not dropped');
      assert.strictEqual(status, 1);
      assertOnly('train.py');
    });

    it('a save while the fixed text is being written is kept (checked again after the temporary file is written)', async () => {
      const report = await fixWith({ replaceHooks: { afterTemporaryWritten: () => fs.writeFileSync(file, SAVED) } });
      assert.strictEqual(fs.readFileSync(file, 'utf8'), SAVED);
      assert.deepStrictEqual(report.files.map((f) => [f.fixed, f.findings.length, f.fixErrors?.length]), [[0, 1, 1]]);
      assert.match(report.files[0].fixErrors?.[0] ?? '', /changed while fixing/);
      assertOnly('train.py');
    });

    it('an editor renaming its own copy into place is seen too: the file at the name is another inode', async () => {
      const report = await fixWith({
        replaceHooks: {
          afterTemporaryWritten: () => {
            // Same size as the original, so only the inode (and the bytes) tell.
            fs.writeFileSync(path.join(tmp, 'editor.tmp'), ORIGINAL.replace('t', 'u'));
            fs.renameSync(path.join(tmp, 'editor.tmp'), file);
          },
        },
      });
      assert.strictEqual(fs.readFileSync(file, 'utf8'), ORIGINAL.replace('t', 'u'));
      assert.match(report.files[0].fixErrors?.[0] ?? '', /changed while fixing/);
      assertOnly('train.py');
    });

    it('a save that lands in the old file after the last check, as the fix is renamed over it, is put back', async () => {
      const report = await fixWith({ replaceHooks: { beforeRename: () => fs.writeFileSync(file, SAVED) } });
      assert.strictEqual(fs.readFileSync(file, 'utf8'), SAVED);
      assert.match(report.files[0].fixErrors?.[0] ?? '', /changed while fixing/);
      assert.strictEqual(report.files[0].fixed, 0);
      assertOnly('train.py');
    });

    it('without a save the fix is written, and nothing is said', async () => {
      const report = await fixWith({ replaceHooks: { afterTemporaryWritten: () => undefined, beforeRename: () => undefined } });
      assert.strictEqual(fs.readFileSync(file, 'utf8'), FIXED);
      assert.deepStrictEqual(report.files.map((f) => [f.fixed, f.findings.length, f.fixErrors, f.notes]), [[1, 0, undefined, undefined]]);
    });
  });

  describe('what the file is stays as it was', () => {
    it('--fix refuses a read-only file with exit 1, says so, and leaves it as it was', async () => {
      fs.chmodSync(file, 0o444);
      const { status, out, err } = await lint(['--fix', 'train.py']);
      assert.strictEqual(fs.readFileSync(file, 'utf8'), ORIGINAL);
      assert.strictEqual(fs.statSync(file).mode & 0o7777, 0o444);
      assert.strictEqual(err, 'error: train.py: not fixed: the file is read-only (mode 0444); make it writable to apply the fixes\n');
      assert.match(out, /^train\.py:1:5: DD003 \[\*\] t may be on an accelerator\nFound 1 error\.\n$/);
      assert.strictEqual(status, 1);
    });

    it('a read-only file with nothing to fix is not an error', async () => {
      fs.writeFileSync(file, FIXED);
      fs.chmodSync(file, 0o444);
      const { status, err } = await lint(['--fix', 'train.py']);
      assert.strictEqual(err, '');
      assert.strictEqual(status, 0);
    });

    it('--fix keeps mode and owner (as root: the rewritten file is given the original uid and gid)', async () => {
      const root = process.getuid?.() === 0;
      // Root can give the file to anyone; another user can only keep their own.
      const owner = root ? { uid: 4321, gid: 8765 } : { uid: fs.statSync(file).uid, gid: fs.statSync(file).gid };
      fs.chownSync(file, owner.uid, owner.gid);
      fs.chmodSync(file, 0o2750); // setgid: chown clears it, so it must be set after
      const before = fs.statSync(file);
      const { status, err } = await lint(['--fix', 'train.py']);
      assert.strictEqual(err, '');
      assert.strictEqual(status, 0);
      const after = fs.statSync(file);
      assert.strictEqual(fs.readFileSync(file, 'utf8'), FIXED);
      assert.notStrictEqual(after.ino, before.ino, 'replaced by a rename');
      assert.deepStrictEqual({ uid: after.uid, gid: after.gid, mode: after.mode & 0o7777 }, { ...owner, mode: 0o2750 });
      assertOnly('train.py');
    });
  });

  describe('a write that fails', () => {
    it('reports the findings and says the fix could not be written, instead of "could not be checked"', async () => {
      const fullDisk = () => {
        throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
      };
      const report = await fixWith({ replaceHooks: { afterTemporaryWritten: fullDisk } });
      assert.deepStrictEqual(report.problems, []);
      assert.strictEqual(fs.readFileSync(file, 'utf8'), ORIGINAL);
      assert.deepStrictEqual(report.files.map((f) => [f.displayPath, f.fixed, f.findings.map((x) => x.finding.code)]), [['train.py', 0, ['DD003']]]);
      assert.deepStrictEqual(report.files[0].fixErrors, ['fix not written: the file could not be written (ENOSPC); it is as it was, and the findings are those in it']);
      assertOnly('train.py');
    });
  });
});
