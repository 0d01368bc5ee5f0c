// What Insert Device Selection says when the file already chooses its device (`device = …`):
// a second choice below or above it would silently override it, or be overridden (issue 28
// item 5). The user may replace a top-level one-line choice with the helper, go to it, or
// insert anyway. No vscode import, so it is unit-tested.
import type { DeviceChoice } from '../../core/python/deviceHelper';

export const REPLACE = 'Replace It';
export const GO_TO = 'Go to Line';
export const INSERT_ANYWAY = 'Insert Anyway';

export interface DeviceChoicePrompt {
  message: string;
  /** The buttons, the suggested one first. */
  actions: string[];
}

export function deviceChoicePrompt(choice: DeviceChoice): DeviceChoicePrompt {
  const where = `This file already chooses its device on line ${choice.line + 1}: ${choice.text}`;
  if (choice.replaceable) {
    return { message: `${where}. Replace it with get_device()? A second device = … would override it or be overridden by it.`, actions: [REPLACE, GO_TO] };
  }
  return { message: `${where}. Change it there (get_device() would not replace a choice inside a block or across lines), or insert the helper anyway.`, actions: [GO_TO, INSERT_ANYWAY] };
}
