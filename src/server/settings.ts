// The server's settings: one typed object per resource, parsed defensively from whatever
// the client sends (other LSP editors may send nothing, or the wrong types).
import { isRuleCode } from '../core/analysis';
import { isRuleGroup } from '../core/analysis/catalog';
import type { RuleCode, Severity } from '../core/analysis';
import { DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES } from '../core/python/limits';

export type SeveritySetting = Severity | 'off';

export interface ServerSettings {
  /** Analyse documents at all; false publishes no diagnostics. */
  enable: boolean;
  /** Per-rule severity override; 'off' hides the rule's diagnostics and actions. */
  severity: Partial<Record<RuleCode, SeveritySetting>>;
  /** Codes or prefixes; when non-empty, replaces pyproject's selection (like `--select`). */
  select: string[];
  /** Codes or prefixes turned off after pyproject's selection (like `--ignore`). */
  ignore: string[];
  /** Quiet time after the last keystroke before a document is analysed. */
  debounceMs: number;
  /** Documents longer than this are not analysed (0 = no limit). */
  maxFileLines: number;
  /** Documents larger than this many UTF-8 bytes are not analysed, nor parsed (0 = no limit). */
  maxFileBytes: number;
}

/** Keep in step with `contributes.configuration` in package.json. */
export const DEFAULT_SETTINGS: Readonly<ServerSettings> = Object.freeze({
  enable: true,
  severity: {},
  select: [],
  ignore: [],
  debounceMs: 200,
  maxFileLines: DEFAULT_MAX_LINES,
  maxFileBytes: DEFAULT_MAX_BYTES,
});

const SEVERITY_SETTINGS: readonly string[] = ['error', 'warning', 'information', 'hint', 'off'];
const MAX_DEBOUNCE_MS = 5000;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function parseCodeList(value: unknown): string[] {
  if (!Array.isArray(value)) return [];
  return value
    .filter((v): v is string => typeof v === 'string')
    .map((v) => v.trim())
    // Codes and prefixes (DD003, DD00), ALL, and group names (performance), as in pyproject.
    .filter((v) => /^DD\d{0,3}$/i.test(v) || /^all$/i.test(v) || isRuleGroup(v))
    .map((v) => (isRuleGroup(v) ? v.toLowerCase() : v.toUpperCase()));
}

function parseSeverityMap(value: unknown): Partial<Record<RuleCode, SeveritySetting>> {
  const result: Partial<Record<RuleCode, SeveritySetting>> = {};
  if (!isRecord(value)) return result;
  for (const [key, level] of Object.entries(value)) {
    const code = key.trim().toUpperCase();
    if (!isRuleCode(code) || typeof level !== 'string') continue;
    const normalized = level.trim().toLowerCase();
    if (SEVERITY_SETTINGS.includes(normalized)) result[code] = normalized as SeveritySetting;
  }
  return result;
}

function parseInteger(value: unknown, fallback: number, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) return fallback;
  return Math.min(max, Math.max(min, Math.round(value)));
}

/** Turns the raw `deviceDoctor` section into settings; unusable values fall back to defaults. */
export function parseSettings(raw: unknown): ServerSettings {
  const section = isRecord(raw) ? raw : {};
  return {
    enable: typeof section.enable === 'boolean' ? section.enable : DEFAULT_SETTINGS.enable,
    severity: parseSeverityMap(section.severity),
    select: parseCodeList(section.select),
    ignore: parseCodeList(section.ignore),
    debounceMs: parseInteger(section.debounceMs, DEFAULT_SETTINGS.debounceMs, 0, MAX_DEBOUNCE_MS),
    maxFileLines: parseInteger(section.maxFileLines, DEFAULT_SETTINGS.maxFileLines, 0, Number.MAX_SAFE_INTEGER),
    maxFileBytes: parseInteger(section.maxFileBytes, DEFAULT_SETTINGS.maxFileBytes, 0, Number.MAX_SAFE_INTEGER),
  };
}
