// `[tool.device-doctor]` in pyproject.toml: the same keys and meaning as Ruff's
// `select`, `extend-select`, `ignore` and `per-file-ignores`.
import type * as SmolToml from 'smol-toml' with { 'resolution-mode': 'import' };
import { isRuleGroup, RULES } from '../analysis/catalog';
import { globProblem } from './glob';

// smol-toml publishes ESM type declarations only; its CommonJS build is what runs here.
const { parse: parseToml } = require('smol-toml') as typeof SmolToml;

export interface PerFileIgnore {
  /** Glob relative to the project root (the folder holding pyproject.toml). */
  pattern: string;
  codes: string[];
}

export interface ProjectConfig {
  /** Replaces the default selection (every rule) when present. */
  select?: string[];
  /** Added to `select` (or to the default). */
  extendSelect?: string[];
  ignore?: string[];
  perFileIgnores?: PerFileIgnore[];
  /**
   * The project (true) or the files these globs match runs only where CUDA is: the rules
   * about code that must also run without it (CUDA_ONLY_QUIET) are off there.
   */
  cudaOnly?: boolean | string[];
  /** `target-torch`: the PyTorch version the project runs with ("2.6"), for checks and fixes that depend on it. */
  targetTorch?: string;
}

/** DD005 (hard-coded CUDA), DD011 (unguarded torch.cuda call), DD013 (torch.load without map_location). */
export const CUDA_ONLY_QUIET = ['DD005', 'DD011', 'DD013'];

export interface ParsedConfig {
  config: ProjectConfig;
  /** Human-readable problems; the keys that were valid are still in `config`. */
  errors: string[];
}

export const TABLE_NAME = 'tool.device-doctor';

const KNOWN_KEYS = ['select', 'extend-select', 'ignore', 'per-file-ignores', 'cuda-only', 'target-torch'];

/**
 * A rule selector is a full code (`DD003`), a prefix of codes (`DD00`, `DD`), `ALL`, as
 * in Ruff, or the name of an opt-in group (`performance`). Reserved codes of rules not
 * implemented yet are valid selectors.
 */
export function isRuleSelector(value: string): boolean {
  if (value === 'ALL' || isRuleGroup(value)) return true;
  if (!/^DD\d{0,3}$/.test(value)) return false;
  return RULES.some((rule) => rule.code.startsWith(value));
}

function readCodeList(value: unknown, where: string, errors: string[]): string[] | undefined {
  if (!Array.isArray(value) || value.some((item) => typeof item !== 'string')) {
    errors.push(`${where} must be a list of rule codes, such as ["DD003"]`);
    return undefined;
  }
  const codes: string[] = [];
  for (const code of value as string[]) {
    const trimmed = code.trim();
    if (isRuleSelector(trimmed)) codes.push(trimmed);
    else errors.push(`${where}: unknown rule code "${code}"`);
  }
  return codes;
}

function readPerFileIgnores(value: unknown, errors: string[]): PerFileIgnore[] | undefined {
  const where = `[${TABLE_NAME}] per-file-ignores`;
  if (typeof value !== 'object' || value === null || Array.isArray(value) || value instanceof Date) {
    errors.push(`${where} must be a table of glob = [codes], such as { "tests/**" = ["DD001"] }`);
    return undefined;
  }
  const entries: PerFileIgnore[] = [];
  for (const [pattern, codes] of Object.entries(value)) {
    const unusable = globProblem(pattern);
    if (unusable) {
      errors.push(`${where}: pattern "${pattern.slice(0, 60)}${pattern.length > 60 ? '…' : ''}" is ${unusable}; it is ignored`);
      continue;
    }
    const list = readCodeList(codes, `${where} "${pattern}"`, errors);
    if (list) entries.push({ pattern, codes: list });
  }
  return entries;
}

/** A PyTorch version as "2.6" or "2.6.0" (a TOML string; a local part such as "+cu124" is allowed). */
export function isTorchVersion(value: string): boolean {
  return /^\d+\.\d+(\.\d+)?([a-z]+\d*)?(\+[\w.]+)?$/.test(value);
}

function readTorchVersion(value: unknown, where: string, errors: string[]): string | undefined {
  if (typeof value === 'string' && isTorchVersion(value.trim())) return value.trim();
  errors.push(`${where} must be a PyTorch version as a string, such as "2.6"`);
  return undefined;
}

/** `cuda-only = true`, or a list of globs like per-file-ignores' (`["bench/**", "kernels/*.py"]`). */
function readCudaOnly(value: unknown, errors: string[]): boolean | string[] | undefined {
  const where = `[${TABLE_NAME}] cuda-only`;
  if (typeof value === 'boolean') return value;
  if (!Array.isArray(value) || value.some((item) => typeof item !== 'string')) {
    errors.push(`${where} must be true, false or a list of globs, such as ["bench/**"]`);
    return undefined;
  }
  const patterns: string[] = [];
  for (const pattern of value as string[]) {
    const unusable = globProblem(pattern);
    if (unusable) errors.push(`${where}: pattern "${pattern.slice(0, 60)}${pattern.length > 60 ? '…' : ''}" is ${unusable}; it is ignored`);
    else patterns.push(pattern);
  }
  return patterns;
}

/** Reads the `[tool.device-doctor]` table; problems become messages, never exceptions. */
export function readConfigTable(table: Record<string, unknown>): ParsedConfig {
  const errors: string[] = [];
  const config: ProjectConfig = {};
  for (const key of Object.keys(table)) {
    if (!KNOWN_KEYS.includes(key)) {
      errors.push(`[${TABLE_NAME}]: unknown key "${key}" (known keys: ${KNOWN_KEYS.join(', ')})`);
    }
  }
  if ('select' in table) config.select = readCodeList(table.select, `[${TABLE_NAME}] select`, errors);
  if ('extend-select' in table) {
    config.extendSelect = readCodeList(table['extend-select'], `[${TABLE_NAME}] extend-select`, errors);
  }
  if ('ignore' in table) config.ignore = readCodeList(table.ignore, `[${TABLE_NAME}] ignore`, errors);
  if ('per-file-ignores' in table) config.perFileIgnores = readPerFileIgnores(table['per-file-ignores'], errors);
  if ('cuda-only' in table) config.cudaOnly = readCudaOnly(table['cuda-only'], errors);
  if ('target-torch' in table) config.targetTorch = readTorchVersion(table['target-torch'], `[${TABLE_NAME}] target-torch`, errors);
  for (const key of Object.keys(config) as Array<keyof ProjectConfig>) {
    if (config[key] === undefined) delete config[key];
  }
  return { config, errors };
}

function describeTomlError(err: unknown): string {
  const message = (err instanceof Error ? err.message.split('\n')[0] : String(err)).replace(/^Invalid TOML document: /, '');
  const { line, column } = err as { line?: unknown; column?: unknown };
  const where = typeof line === 'number' && typeof column === 'number' ? ` at line ${line}, column ${column}` : '';
  return `invalid TOML${where}: ${message}`;
}

/** The `[tool.device-doctor]` table of a pyproject.toml text, or undefined when it has none. */
export function extractConfigTable(tomlText: string): { table?: Record<string, unknown>; error?: string } {
  let document: Record<string, unknown>;
  try {
    document = parseToml(tomlText) as Record<string, unknown>;
  } catch (err) {
    return { error: describeTomlError(err) };
  }
  const tool = document.tool;
  if (typeof tool !== 'object' || tool === null) return {};
  const table = (tool as Record<string, unknown>)['device-doctor'];
  if (table === undefined) return {};
  if (typeof table !== 'object' || table === null || Array.isArray(table)) {
    return { error: `[${TABLE_NAME}] must be a table` };
  }
  return { table: table as Record<string, unknown> };
}

/** Parses pyproject.toml text; a text without the table gives an empty config. */
export function parseProjectConfig(tomlText: string): ParsedConfig {
  const { table, error } = extractConfigTable(tomlText);
  if (error) return { config: {}, errors: [error] };
  return table ? readConfigTable(table) : { config: {}, errors: [] };
}
