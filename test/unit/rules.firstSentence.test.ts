// Acceptance 2 of issue 28: every finding's first sentence is at most 100 characters and ends
// in what to do, as Ruff and Pylance write theirs ("`x` is on the CPU; move it to `y`'s
// device."), so the Problems panel's one line holds the advice. Checked on every finding of
// every rule's firing fixtures, the engine's world prefix ("With a GPU: ") included.
import { strict as assert } from 'assert';
import { initPythonParser } from '../../src/core/analysis';
import type { Finding } from '../../src/core/analysis';
import { CORE_RULES, coreFindings } from './helpers/analysis';
import { loadRuleFixtures } from './helpers/fixtures';

const MAX_FIRST_SENTENCE = 100;

/** Imperative verbs an action starts with; a first sentence whose last clause starts with none has no action. */
const ACTION_VERBS = new Set([
  'accumulate', 'add', 'assign', 'autocast', 'build', 'call', 'choose', 'copy', 'create', 'detach', 'give', 'guard',
  'keep', 'load', 'move', 'pass', 'put', 'read', 'register', 'scale', 'start', 'synchronize', 'use', 'wrap',
]);

/** Up to the first full stop outside backticks that ends the text or is followed by a space. */
function firstSentence(message: string): string {
  let inCode = false;
  for (let i = 0; i < message.length; i++) {
    const ch = message[i];
    if (ch === '`') inCode = !inCode;
    else if (ch === '.' && !inCode && (i + 1 === message.length || /\s/.test(message[i + 1]))) return message.slice(0, i + 1);
  }
  return message;
}

/** The clause after the sentence's last "; " outside backticks, or undefined when there is none. */
function lastClause(sentence: string): string | undefined {
  let inCode = false;
  let start: number | undefined;
  for (let i = 0; i < sentence.length; i++) {
    if (sentence[i] === '`') inCode = !inCode;
    else if (!inCode && sentence.startsWith('; ', i)) start = i + 2;
  }
  return start === undefined ? undefined : sentence.slice(start);
}

/** What is wrong with a message's first sentence, or undefined when it is written as required. */
function firstSentenceProblem(message: string): string | undefined {
  const sentence = firstSentence(message);
  if (sentence.length > MAX_FIRST_SENTENCE) return `${sentence.length} characters: "${sentence}"`;
  if (!sentence.endsWith('.')) return `no full stop ends the first sentence: "${sentence}"`;
  const action = lastClause(sentence);
  const verb = action?.match(/^[a-z]+/)?.[0];
  if (!verb || !ACTION_VERBS.has(verb)) return `the first sentence does not end in an action ("…; move …."): "${sentence}"`;
  return undefined;
}

describe('every finding\'s first sentence: at most 100 characters, ending in the action (issue 28 acceptance 2)', () => {
  before(async () => {
    await initPythonParser();
  });

  it('the check itself rejects the old long form, a missing action and an overlong sentence', () => {
    const old = '`x` is on the CPU, but `y` is on an accelerator: PyTorch raises an error. Move `x` to the same device.';
    assert.match(firstSentenceProblem(old) ?? '', /does not end in an action/);
    assert.match(firstSentenceProblem('`x` is on the CPU; it raises.') ?? '', /does not end in an action/);
    assert.match(firstSentenceProblem(`\`x\` is on the CPU; move it to \`y\`'s device${'.'.padStart(90, 'e')}`) ?? '', /characters/);
    assert.equal(firstSentenceProblem('With a GPU: `x.numpy()` on an accelerator tensor; call `x.cpu()` first. Why: ...'), undefined);
    assert.equal(firstSentence('`a.b` is wrong; move `c.d`. Then more.'), '`a.b` is wrong; move `c.d`.');
  });

  for (const rule of CORE_RULES) {
    it(`${rule}: every finding on its firing fixtures`, () => {
      const problems: string[] = [];
      for (const fx of loadRuleFixtures(rule, 'fire')) {
        for (const f of coreFindings(fx.source) as Finding[]) {
          const problem = firstSentenceProblem(f.message);
          if (problem) problems.push(`${fx.relPath}:${f.range.start.line + 1} ${f.code}: ${problem}`);
        }
      }
      assert.deepEqual(problems, []);
    });
  }
});
