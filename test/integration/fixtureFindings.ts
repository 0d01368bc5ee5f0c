// What the analyzer must report on each fixture in test/fixtures/workspace, and what its
// preferred fix must write. Both suites (integration and e2e) read this one table, so a
// fixture and its expectations change together. No `vscode` import: e2e uses it in Node.

export type ExpectedSeverity = 'error' | 'warning';

/** Where a diagnostic belongs: on the line whose trimmed text is `line`, over `covers`. */
export interface ExpectedLocation {
  line: string;
  /** A substring of that line the diagnostic's range must overlap. */
  covers: string;
}

export interface ExpectedFinding {
  code: string;
  severity: ExpectedSeverity;
  /** Any one of these places is right (a rule may flag the use or the definition). */
  at: ExpectedLocation[];
  /** After the preferred fix: this trimmed line exists ... */
  fixedLine: string;
  /** ... and this one (the faulty line) is gone, unless the fix only inserts a line. */
  replacedLine?: string;
}

export interface FixtureFile {
  file: string;
  findings: ExpectedFinding[];
}

export const MISMATCH: FixtureFile = {
  file: 'train_mismatch.py',
  findings: [{
    code: 'DD001',
    severity: 'warning',
    at: [{ line: 'logits = model(inputs)', covers: 'inputs' }],
    fixedLine: 'inputs = torch.randn(32, 20, device=device)',
    replacedLine: 'inputs = torch.randn(32, 20)',
  }],
};

export const LOADER: FixtureFile = {
  file: 'train_loader.py',
  findings: [{
    code: 'DD002',
    severity: 'warning',
    at: [
      { line: 'loss = loss_fn(model(features), labels)', covers: 'model(features), labels' },
      { line: 'for features, labels in train_loader:', covers: 'features, labels' },
    ],
    fixedLine: 'features, labels = features.to(device), labels.to(device)',
  }],
};

export const NUMPY_ON_ACCELERATOR: FixtureFile = {
  file: 'eval_numpy.py',
  findings: [{
    code: 'DD003',
    severity: 'error',
    at: [{ line: 'values = embeddings.numpy()', covers: 'embeddings.numpy()' }],
    fixedLine: 'values = embeddings.cpu().numpy()',
    replacedLine: 'values = embeddings.numpy()',
  }],
};

export const DISCARDED_TO: FixtureFile = {
  file: 'discard_to.py',
  findings: [{
    code: 'DD004',
    severity: 'warning',
    at: [{ line: 'batch.to(device)', covers: 'batch.to(device)' }],
    fixedLine: 'batch = batch.to(device)',
    replacedLine: 'batch.to(device)',
  }],
};

export const NUMPY_WITH_GRAD: FixtureFile = {
  file: 'predict_numpy.py',
  findings: [{
    code: 'DD010',
    severity: 'error',
    at: [{ line: 'scores = prediction.numpy()', covers: 'prediction.numpy()' }],
    fixedLine: 'scores = prediction.detach().numpy()',
    replacedLine: 'scores = prediction.numpy()',
  }],
};

/** Three independent fixable mistakes: what fix-all on save must repair in one go. */
export const SEVERAL: FixtureFile = {
  file: 'several_mistakes.py',
  findings: [
    {
      code: 'DD003', severity: 'error',
      at: [{ line: 'weights_np = weights.numpy()', covers: 'weights.numpy()' }],
      fixedLine: 'weights_np = weights.cpu().numpy()', replacedLine: 'weights_np = weights.numpy()',
    },
    {
      code: 'DD004', severity: 'warning',
      at: [{ line: 'bias.to(device)', covers: 'bias.to(device)' }],
      fixedLine: 'bias = bias.to(device)', replacedLine: 'bias.to(device)',
    },
    {
      code: 'DD010', severity: 'error',
      at: [{ line: 'scores_np = scores.numpy()', covers: 'scores.numpy()' }],
      fixedLine: 'scores_np = scores.detach().numpy()', replacedLine: 'scores_np = scores.numpy()',
    },
  ],
};

/**
 * An LSTM's initial state made in forward without a device (DD015): the fix creates h0 on the
 * input's device, and c0 (`zeros_like(h0)`) follows it, so the one mistake is one finding.
 */
export const CREATED_IN_FORWARD: FixtureFile = {
  file: 'lstm_h0.py',
  findings: [{
    code: 'DD015',
    severity: 'warning',
    at: [{ line: 'h0 = torch.zeros(self.layers, tokens.size(0), self.hidden)', covers: 'torch.zeros' }],
    fixedLine: 'h0 = torch.zeros(self.layers, tokens.size(0), self.hidden, device=tokens.device)',
    replacedLine: 'h0 = torch.zeros(self.layers, tokens.size(0), self.hidden)',
  }],
};

/** One file per core rule, each with exactly the findings listed. */
export const SINGLE_RULE_FIXTURES: readonly FixtureFile[] = [
  MISMATCH, LOADER, NUMPY_ON_ACCELERATOR, DISCARDED_TO, NUMPY_WITH_GRAD, CREATED_IN_FORWARD,
];

/** Correct code: no diagnostics at all. */
export const CLEAN_FILE = 'clean_train.py';

/** The notebook: the DD001 is in a later cell than the tensor it is about. */
export const NOTEBOOK = {
  file: 'notebook_regression.ipynb',
  /** Text of the cell with the mistake, and where. */
  faultyCell: 'predictions = model(samples)',
  finding: { code: 'DD001', severity: 'warning' as ExpectedSeverity, at: [{ line: 'predictions = model(samples)', covers: 'samples' }] },
  /** The preferred fix edits the earlier cell that created the tensor. */
  creatingCell: 'samples = torch.randn(5, 3)',
  fixedCreatingLine: 'samples = torch.randn(5, 3, device=device)',
};

/** A workspace setting naming an executable that Restricted Mode must never run. */
export const FAKE_PYTHON = {
  script: 'tools/fake-python',
  /** Written next to the workspace's top level whenever the script runs. */
  marker: 'fake-python-ran.txt',
};

/** Finds the 0-based line whose trimmed text is `line`; throws unless exactly one matches. */
export function lineIndex(text: string, line: string): number {
  const lines = text.split(/\r?\n/);
  const matches = lines.flatMap((l, i) => (l.trim() === line ? [i] : []));
  if (matches.length !== 1) {
    throw new Error(`fixture problem: expected one line "${line}", found ${matches.length}`);
  }
  return matches[0];
}
