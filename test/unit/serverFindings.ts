// Realistic findings, written by hand in the shape the analyzer returns, for the server's
// unit tests (which must not depend on what the analyzer happens to find today).
import type { Finding, Range } from '../../src/core/analysis';

export function range(line: number, start: number, endLine: number, end: number): Range {
  return { start: { line, character: start }, end: { line: endLine, character: end } };
}

export function at(line: number, character: number): Range {
  return range(line, character, line, character);
}

/** `t_gpu.numpy()` on line 1 of:  t_gpu = torch.tensor([1.0, 2.0]).to("cuda") / t_gpu.numpy() */
export function numpyOnGpu(line = 1): Finding {
  return {
    code: 'DD003',
    message: "'t_gpu' is on an accelerator (moved with .to(\"cuda\")); .numpy() needs a CPU tensor",
    range: range(line, 0, line, 13),
    severity: 'error',
    related: [{ range: range(line - 1, 8, line - 1, 44), message: "'t_gpu' moved to \"cuda\" here" }],
    fixes: [{ title: 'Insert .cpu() before .numpy()', preferred: true, edits: [{ range: at(line, 5), newText: '.cpu()' }] }],
  };
}

/** `pred.numpy()` where pred = model(X) and model is on cuda: DD010 and DD003 share one fix. */
export function predNumpyPair(line = 5): Finding[] {
  const fix = { title: 'Insert .detach().cpu() before .numpy()', preferred: true, edits: [{ range: at(line, 4), newText: '.detach().cpu()' }] };
  const where = range(line, 0, line, 12);
  return [
    { code: 'DD010', message: "'pred' requires grad (output of model)", range: where, severity: 'error', related: [], fixes: [fix] },
    { code: 'DD003', message: "'pred' is on an accelerator", range: where, severity: 'error', related: [], fixes: [fix] },
  ];
}

/** `x.to(device)` as a statement on line 3 (x a tensor): DD004, result thrown away. */
export function discardedTo(line = 3): Finding {
  return {
    code: 'DD004',
    message: "x.to(device) returns a new tensor; 'x' itself stays where it was",
    range: range(line, 0, line, 12),
    severity: 'warning',
    related: [],
    fixes: [{ title: 'Assign the result: x = x.to(device)', preferred: true, edits: [{ range: at(line, 0), newText: 'x = ' }] }],
    tags: ['unnecessary'],
  };
}

/**
 * Notebook: cell 0 `x = torch.randn(4, 10)`, cell 1 `model = Net().to(device)` / `model(x)`.
 * DD001 shown in cell 1; its preferred fix edits the factory call in cell 0.
 */
export function mismatchAcrossCells(): Finding {
  return {
    code: 'DD001',
    message: "'x' is on the CPU but 'model' was moved to device",
    range: range(1, 6, 1, 7),
    severity: 'warning',
    related: [{ range: range(0, 0, 0, 24), message: "'model' moved to device here" }],
    fixes: [
      { title: 'Create x on device: torch.randn(4, 10, device=device)', preferred: true,
        edits: [{ range: at(0, 21), newText: ', device=device', cellIndex: 0 }] },
      { title: 'Move x: x.to(device)', preferred: false, edits: [{ range: range(1, 6, 1, 7), newText: 'x.to(device)' }] },
    ],
  };
}
