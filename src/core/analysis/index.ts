// The analyzer's public surface. Front ends (language server, CLI, tests) import from here.
export * from './types';
export { RULES, ruleInfo, ruleDocsUrl, isRuleCode, DOCS_BASE_URL } from './catalog';
export type { RuleInfo } from './catalog';
export { analyzeSource, analyzeSplicedTree, analyzeTree, analyzeNotebook } from './analyze';
export { marimoScript, withoutFixesNamingOtherCells } from './marimo';
export { RunCache } from './runCache';
export { initPythonParser } from '../python/parser';
export { createModuleResolver } from './project';
export { ModuleTrees } from './moduleTrees';
export { ImporterIndex, ImportScans, MAX_IMPORTER_CANDIDATES } from './importerIndex';
export { nameOtherPlacesLines } from './otherPlaceLines';
export { withCellWording } from './cellWording';
export type { ModuleFile, ModuleResolver, ProjectContext, ReadFile } from './project';
