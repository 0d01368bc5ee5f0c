// Plain data produced by the analyzer. Exactly one layer per front end turns these
// into editor types (the language server into LSP, the CLI into text/JSON/SARIF).
import type { Origin } from './values';
import type { Node } from '../python/pyNode';
import type { RuleCode, Severity } from './catalog';
import type { ProjectContext } from './project';

/** 0-based line, character offset in UTF-16 code units (what LSP and tree-sitter use). */
export interface Position {
  line: number;
  character: number;
}

export interface Range {
  start: Position;
  end: Position;
}

export interface TextEdit {
  range: Range;
  newText: string;
  /** Notebook results only: the code cell this range is in (a fix may edit another cell). */
  cellIndex?: number;
}

/** Declared by the rule catalogue, where each code is listed once. */
export type { RuleCode, Severity };

export interface Fix {
  /** Shown in the quick-fix menu, e.g. "Insert .cpu() before .numpy()". */
  title: string;
  edits: TextEdit[];
  /** Exactly one fix of a finding is preferred; `--fix` and fix-all apply only that one. */
  preferred: boolean;
}

export interface RelatedLocation {
  range: Range;
  message: string;
  /** Notebook results only: the code cell this range is in. */
  cellIndex?: number;
  /** Another file of the project (absolute path) this range is in: an imported module, or a file that imports the analysed one. */
  path?: string;
}

export interface Finding {
  code: RuleCode;
  message: string;
  range: Range;
  severity: Severity;
  related: RelatedLocation[];
  fixes: Fix[];
  /** Editor tags; "unnecessary" fades the text, as for unused code. */
  tags?: Array<'unnecessary' | 'deprecated'>;
}

/** Which rules run. Codes may be prefixes ("DD00" selects DD001–DD009), as in Ruff. */
export interface RuleSelection {
  select?: string[];
  ignore?: string[];
}

export interface AnalyzeOptions extends RuleSelection {
  /** Honour `# noqa` comments (default true). */
  noqa?: boolean;
  /**
   * The PyTorch version the code runs with ("2.6.0"), when the front end knows it (the
   * editor's interpreter, `--torch-version`, pyproject's `target-torch`): checks and fixes
   * that depend on it read it; unknown, they assume nothing (docs/configuration.md).
   */
  torchVersion?: string;
  /** The file's path and its project's modules: imports of them carry their classes, functions and values. */
  project?: ProjectContext;
  /**
   * Called for each statement the analysis skipped because it has a syntax error (the rest
   * of the file is analysed around it); in reading order, before the findings are returned.
   */
  onSyntaxError?: (skipped: SkippedStatement) => void;
}

/** A statement with a syntax error, blanked out for the analysis; fixes never touch its lines. */
export interface SkippedStatement {
  range: Range;
  /** Notebook results only: the code cell it is in. */
  cellIndex?: number;
}

/** A finding located in one code cell of a notebook. */
export interface CellFinding {
  cellIndex: number;
  finding: Finding;
}

/** A finding as a rule reports it (ruleApi.ts), located in one unit (a file, or a notebook cell) by syntax nodes; analyze.ts makes it a Finding. */
export interface UnitFinding {
  unit: number;
  code: RuleCode;
  message: string;
  node: Node;
  /**
   * The operand the finding is about (the CPU side of a mismatch). A rule that refines
   * another (catalog.ts) reports the same subject; the dispatcher then drops the generic one.
   */
  subject?: Node;
  /**
   * Where the subject's value came from (its creation, then each step before). A generic
   * finding whose cause passes through a node a refining finding reports is the same
   * mistake seen later (`c0 = torch.zeros_like(h0)` after DD015 on h0's factory): dropped too.
   */
  cause?: Origin;
  /** Optional narrower start (e.g. the `.numpy` attribute), else the node's range. */
  startNode?: Node;
  related: RelatedLocation[];
  fixes: Fix[];
  tags?: Array<'unnecessary' | 'deprecated'>;
  /**
   * The mismatch needs a value that is only maybe on an accelerator (an open test decides it).
   * Found only in worlds where the program's device flag is off, such a finding is dropped
   * (analyze.ts): there the code chose the CPU, and the open test is most likely the same choice
   * under another name (`self.gpu = cfg.CUDA`).
   */
  onlyMaybe?: true;
}
