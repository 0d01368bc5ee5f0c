// Which rules run for one file: the defaults, then pyproject's select/ignore, then the
// command line's, then per-file-ignores — resolved with Ruff's precedence rules.
import * as path from 'path';
import { isDefaultRule, isRuleGroup, RULES, selectorMatches, type RuleInfo } from '../analysis/catalog';
import type { RuleCode, RuleSelection } from '../analysis/types';
import { relativeInside } from '../paths/containment';
import { compileGlob } from './glob';
import { CUDA_ONLY_QUIET, type ProjectConfig } from './projectConfig';

/** One level of selection, such as the pyproject table or the command line. */
export interface SelectionLayer {
  /** When present, replaces everything selected by earlier layers. */
  select?: string[];
  extendSelect?: string[];
  ignore?: string[];
  /** The PyTorch version to assume (the command line's --torch-version), over the pyproject's `target-torch`. */
  torchVersion?: string;
}

const ALL_CODES: readonly RuleCode[] = RULES.map((rule) => rule.code);
/** What runs when nothing is selected: every rule outside the opt-in groups. */
const DEFAULT_CODES: readonly RuleCode[] = RULES.filter(isDefaultRule).map((rule) => rule.code);
const INFO = new Map<RuleCode, RuleInfo>(RULES.map((rule) => [rule.code, rule]));

/** ALL, then a group's name, then prefixes by length: a code named outright wins over a group that holds it. */
function specificity(selector: string): number {
  if (selector.trim().toUpperCase() === 'ALL') return 0;
  return isRuleGroup(selector) ? 0.5 : selector.length;
}

function selects(selector: string, code: RuleCode): boolean {
  return selectorMatches(selector, INFO.get(code)!);
}

/**
 * Applies one layer. Inside a layer the more specific selector wins (`select = ["DD"]`
 * with `ignore = ["DD003"]` runs everything but DD003, and the other way round), and
 * at equal specificity `ignore` wins — Ruff's rules.
 */
export function applySelectionLayer(enabled: ReadonlySet<RuleCode>, layer: SelectionLayer): Set<RuleCode> {
  const result = new Set<RuleCode>(layer.select ? [] : enabled);
  const updates = [
    ...[...(layer.select ?? []), ...(layer.extendSelect ?? [])].map((selector) => ({ selector, enable: true })),
    ...(layer.ignore ?? []).map((selector) => ({ selector, enable: false })),
  ];
  // Array.prototype.sort is stable, so selects stay before ignores of equal specificity.
  updates.sort((a, b) => specificity(a.selector) - specificity(b.selector));
  for (const { selector, enable } of updates) {
    for (const code of ALL_CODES) {
      if (!selects(selector, code)) continue;
      if (enable) result.add(code);
      else result.delete(code);
    }
  }
  return result;
}

/** Resolves layers, starting from the default set (no opt-in group), into explicit code lists for the analyzer. */
export function resolveSelection(layers: readonly SelectionLayer[]): RuleSelection {
  let enabled = new Set<RuleCode>(DEFAULT_CODES);
  for (const layer of layers) enabled = applySelectionLayer(enabled, layer);
  return {
    select: ALL_CODES.filter((code) => enabled.has(code)),
    ignore: ALL_CODES.filter((code) => !enabled.has(code)),
  };
}

function toPosix(p: string): string {
  return p.split(path.sep).join('/');
}

/** The codes that `per-file-ignores` (and `cuda-only`) turn off for `filePath`. */
export function perFileIgnoredCodes(config: ProjectConfig, root: string, filePath: string): string[] {
  const absolute = path.resolve(filePath);
  // '' (the root itself) matches as an absolute path, as a file outside the root does.
  const relative = relativeInside(path.resolve(root), absolute) || null;
  const matches = (pattern: string) => {
    const matcher = compileGlob(path.isAbsolute(pattern) ? toPosix(pattern) : pattern);
    return matcher.matches(path.isAbsolute(pattern) || relative === null ? toPosix(absolute) : toPosix(relative));
  };
  const codes: string[] = [];
  for (const entry of config.perFileIgnores ?? []) if (matches(entry.pattern)) codes.push(...entry.codes);
  const cudaOnly = config.cudaOnly;
  if (cudaOnly === true || (Array.isArray(cudaOnly) && cudaOnly.some(matches))) codes.push(...CUDA_ONLY_QUIET);
  return codes;
}

/**
 * The rules to run on `filePath` under `config` (found at `root`). `overrides` are the
 * command line's options: a `select` there replaces the pyproject's select and ignore.
 * per-file-ignores always apply last. The result also carries the PyTorch version to
 * assume (--torch-version, else `target-torch`), which the front ends pass on with it.
 */
export function selectionForFile(
  config: ProjectConfig,
  root: string,
  filePath: string,
  overrides?: SelectionLayer,
): RuleSelection & { torchVersion?: string } {
  const layers: SelectionLayer[] = [{ select: config.select, extendSelect: config.extendSelect, ignore: config.ignore }];
  if (overrides) layers.push(overrides);
  layers.push({ ignore: perFileIgnoredCodes(config, root, filePath) });
  // The analysis options of the file: what runs, and the PyTorch version to assume when one is given.
  const torchVersion = overrides?.torchVersion ?? config.targetTorch;
  return { ...resolveSelection(layers), ...(torchVersion ? { torchVersion } : {}) };
}
