// How to choose another interpreter, said where it is read. Texts built below the front ends
// (the worker's engines, the device diagnosis) name both ways; the editor shows only its own
// command (issue 28 item 11: the CLI's --python was suggested inside VS Code).
export const BOTH_WAYS = '(in the editor: Device Doctor: Choose Interpreter; on the command line: --python)';
const EDITOR_WAY = '(Device Doctor: Choose Interpreter)';

/** A hint or remedy as the editor shows it: the command palette's way, not the CLI's option. */
export function inTheEditor(text: string): string {
  return text.split(BOTH_WAYS).join(EDITOR_WAY);
}
