// Project configuration: `[tool.device-doctor]` in pyproject.toml, and the rules it
// selects for each file. Pure: reads files, never imports vscode or spawns processes.
export { parseProjectConfig, isRuleSelector, isTorchVersion, TABLE_NAME } from './projectConfig';
export type { ProjectConfig, PerFileIgnore, ParsedConfig } from './projectConfig';
export { findProjectConfig, clearProjectConfigCache } from './findConfig';
export type { FoundConfig } from './findConfig';
export { selectionForFile, resolveSelection, applySelectionLayer, perFileIgnoredCodes } from './selection';
export type { SelectionLayer } from './selection';
export { compileGlob, globMatches, globProblem, GlobError, MAX_GLOB_LENGTH } from './glob';
export type { GlobMatcher } from './glob';
