// A finding's message, written as Ruff and Pylance write theirs (issue 28 item 2): a first
// sentence that says what is wrong and what to do ("`x.numpy()` on an accelerator tensor; call
// `.cpu()` first."), short enough for one line of the Problems panel, then why, for the hover
// and the rule page. Code stays in backticks, as Ruff's messages have it: the editor shows
// them literally, and the same text is Markdown in the CLI's GitHub and SARIF output.
import type { Node } from '../../../python/pyNode';

/** The most a first sentence may take, the engine's world prefix ("With a GPU: ") included. */
export const FIRST_SENTENCE_MAX = 100;

/**
 * What a rule's own first sentence may take: the rest is left for the prefix the engine adds
 * in a world of its own ("With a GPU: ", "When `args.cuda` is false: ").
 */
const OWN_BUDGET = 84;

/** How long a quoted piece of code may be, longest first: shorter ones are tried until the sentence fits. */
const CLIP_LENGTHS = [30, 20, 14, 10] as const;

/** A piece of code for a message: one line, in backticks, at most `max` characters inside them. */
export function code(text: string | Node, max = 30): string {
  const flat = (typeof text === 'string' ? text : text.text).replace(/\s+/g, ' ');
  return `\`${flat.length > max ? `${flat.slice(0, max - 1)}…` : flat}\``;
}

/** The sentence parts a rule writes, given how to quote code at the length being tried. */
export type MessageParts = (quote: (text: string | Node) => string) => { problem: string; action: string; why?: string };

/**
 * "<problem>; <action>. <why>": the quoted code is clipped until the first sentence fits the
 * budget (names longer than the panel's line help nobody); the explanation is never cut.
 */
export function ruleMessage(parts: MessageParts): string {
  let text = '';
  for (const max of CLIP_LENGTHS) {
    const { problem, action, why } = parts((t) => code(t, max));
    const first = `${problem}; ${action}.`;
    text = why ? `${first} ${why}` : first;
    if (first.length <= OWN_BUDGET) break;
  }
  return text;
}
