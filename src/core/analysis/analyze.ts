// Entry points: parse, interpret the program in rounds (so call-site states reach
// function parameters), then turn the final round's findings into plain Findings.
import { parsePython, Tree } from '../python/parser';
import { KeptPlainTree, Node, NodeRegistry } from '../python/pyNode';
import { recoverFromSyntaxErrors, touchesSkipped, type RecoveredParse } from '../python/recovery';
import { nodeRange } from '../python/syntax';
import { ruleInfo, type RuleCode } from './catalog';
import { Summaries } from './frame';
import { RunCache, Tape } from './runCache';
import { Interpreter } from './interpreter';
import { blankIPythonSyntax } from './notebook';
import { marimoScript, withoutFixesNamingOtherCells } from './marimo';
import { ModuleInfo, ModuleLoader, Program, Unit } from './program';
import { onlyImports } from './importsOnly';
import type { ModuleFile, ProjectContext } from './project';
import type { KeptModule } from './moduleTrees';
import { nameOtherPlacesLines, type OtherPlaceLine } from './otherPlaceLines';
import { RuleDispatcher } from './ruleDispatcher';
import type { UnitFinding } from './ruleApi';
import { ACCELERATOR, sameRun, worldCondition, worldsOfProgram, WorldState, type World } from './world';
import { enabledRules, isSuppressedByNoqa } from './suppression';
import { basename } from 'path';
import type { AnalyzeOptions, CellFinding, Finding, Fix, Range, RelatedLocation, TextEdit } from './types';

/**
 * Rounds of whole-program interpretation; each feeds call sites to the next. Muted rounds
 * (no rule listens) run until a round's outputs equal its inputs, at most this many; then
 * one round reports, reading the last muted round's inputs when they were final, else its
 * outputs. Real code settles after 2 muted rounds (nothing flows between functions) or
 * not within 2 (call-site states change returns), a few never (chains of helpers).
 */
const MUTED_ROUNDS = 3;

/** A unit of the recovered tree and text (recovery.ts): same lines and columns as the original source. */
function makeUnit(index: number, parsed: RecoveredParse, registry: NodeRegistry, module = 0, kept?: KeptPlainTree): Unit {
  const { tree, text: source } = parsed;
  return unitOf(index, module, kept ? kept.read(tree, source, parsed.owned) : registry.root(tree, source), source);
}

function unitOf(index: number, module: number, root: Node, source: string): Unit {
  return { index, module, root, source, lines: source.split(/\r?\n|\r/), eol: /\r\n/.test(source) ? '\r\n' : '\n' };
}

/**
 * An imported project module bigger than this is not followed: its classes and values stay
 * unknown (silence), and one import never costs more than a large file's analysis.
 */
const MAX_MODULE_BYTES = 512 * 1024;

/** Reads imported project modules through the front end's resolver and parses them, or takes them parsed from the shared ModuleTrees. */
class ProjectModuleLoader implements ModuleLoader {
  constructor(private readonly project: ProjectContext, private readonly registry: NodeRegistry) {}

  load(from: ModuleInfo, name: string, unitIndex: number, moduleIndex: number): { path: string; unit?: Unit } | undefined {
    const dots = /^\.*/.exec(name)![0].length;
    let file;
    try {
      file = this.project.modules.resolve(from.path ?? this.project.path, name.slice(dots), dots, this.sourceOf(from));
    } catch {
      return undefined; // a front end's read failing is a module we cannot see, not a failed analysis
    }
    if (!file || file.source.length > MAX_MODULE_BYTES) return undefined;
    // An importer importing the analysed file back: linked to module 0, never parsed again.
    if (file.path === this.project.path) return { path: file.path };
    return { path: file.path, unit: this.unit(file.path, file.source, unitIndex, moduleIndex) };
  }

  private readonly sources = new Map<number, string>();

  /** The importing module's code, once per module (a notebook's cells joined: its file is JSON). */
  private sourceOf(from: ModuleInfo): string {
    let text = this.sources.get(from.index);
    if (text === undefined) this.sources.set(from.index, (text = from.units.map((u) => u.source).join('\n')));
    return text;
  }

  importers(unitIndex: number, firstModuleIndex: number): Array<{ path: string; units: Unit[] }> {
    let files: readonly ModuleFile[];
    try {
      files = this.project.importers?.() ?? [];
    } catch {
      return [];
    }
    // Numbered by Program.link as it adds them; a notebook's cells are parsed (and shared) one by one.
    return files
      .filter((f) => f.path !== this.project.path && f.source.length <= MAX_MODULE_BYTES)
      .map((f, i) => ({
        path: f.path,
        units: f.cells ? f.cells.map((cell, c) => this.unit(`${f.path}#cell${c}`, cell, unitIndex, firstModuleIndex + i)) : [this.unit(f.path, f.source, unitIndex, firstModuleIndex + i)],
      }));
  }

  private unit(path: string, source: string, index: number, module: number): Unit {
    const kept = this.project.trees?.get(path, source) ?? this.parse(path, source);
    return { index, module, root: kept.root, source: kept.source, lines: kept.lines, eol: kept.eol };
  }

  private parse(path: string, source: string): KeptModule {
    const tree = parsePython(source);
    try {
      // An imported module with a syntax error still says what its intact statements define.
      const parsed = recoverFromSyntaxErrors(tree, source);
      try {
        const kept = keptModule(source, makeUnit(0, parsed, this.registry), parsed.skipped);
        this.project.trees?.put(path, kept);
        return kept;
      } finally {
        if (parsed.owned) parsed.tree.delete();
      }
    } finally {
      tree.delete();
    }
  }
}

/**
 * Tells the caller which statements were skipped, and drops the fixes that would edit a
 * line of one (the analysis never saw what is there).
 */
function aroundSkipped(findings: UnitFinding[], parses: ReadonlyArray<{ skipped: readonly Range[] }>, options: AnalyzeOptions, isNotebook: boolean): UnitFinding[] {
  if (parses.every((p) => p.skipped.length === 0)) return findings;
  parses.forEach((p, cell) => p.skipped.forEach((range) => options.onSyntaxError?.(isNotebook ? { range, cellIndex: cell } : { range })));
  const skippedIn = (cell: number): readonly Range[] => parses[cell]?.skipped ?? [];
  return findings.map((f) => {
    const fixes = f.fixes.filter((fix) => !fix.edits.some((e) => touchesSkipped(e.range, skippedIn(e.cellIndex ?? f.unit))));
    return fixes.length === f.fixes.length ? f : { ...f, fixes };
  });
}

function interpret(units: Unit[], isNotebook: boolean, options: AnalyzeOptions, registry: NodeRegistry, runs: RunCache): UnitFinding[] {
  if (!isNotebook && units.length === 1 && onlyImports(units[0]!.root)) return [];
  const project = options.project;
  const loader = project ? new ProjectModuleLoader(project, registry) : undefined;
  return interpretProgram(new Program(units, isNotebook, loader, project?.path), runs, enabledRules(options), options.torchVersion);
}

/**
 * Interprets the program in each device world it tests (world.ts) and reports what happens
 * in any: a finding that only some worlds reach says which ("With a GPU: …"). A world whose
 * answers to everything the finished run asked are the same is that run again, and is
 * not interpreted twice; a program that tests nothing is interpreted once.
 */
function interpretProgram(program: Program, runs: RunCache, enabled: ReadonlySet<RuleCode>, torchVersion?: string): UnitFinding[] {
  if (!program.imports.importsTorch) return [];
  runs.selectRules(enabled);
  const worlds = worldsOfProgram(program.units);
  const done: Array<{ world: World; consulted: ReadonlySet<string>; findings: UnitFinding[] }> = [];
  const seenIn = new Map<string, { finding: UnitFinding; worlds: World[] }>();
  for (const world of worlds) {
    let run = done.find((d) => sameRun(d.world, d.consulted, world));
    if (!run) {
      const state = new WorldState(world);
      // One cache for every world: a run tapes the world variables it reads (world.ts).
      const findings = interpretInWorld(program, runs, enabled, state, torchVersion);
      for (const v of state.consulted) runs.consulted.add(v);
      run = { world, consulted: runs.consulted, findings };
      done.push(run);
    }
    for (const f of run.findings) {
      const key = findingKey(f);
      const seen = seenIn.get(key);
      if (seen) seen.worlds.push(world);
      else seenIn.set(key, { finding: f, worlds: [world] });
    }
  }
  const flagOff = (w: World) => [...w.values].some(([name, on]) => name !== ACCELERATOR && !on);
  return [...seenIn.values()].filter(({ finding, worlds: seen }) => !(finding.onlyMaybe && seen.every(flagOff))).map(({ finding, worlds: seen }) => {
    const condition = worldCondition(seen, worlds, needsAccelerator(finding.code));
    return condition ? { ...finding, message: `${condition}: ${finding.message}` } : finding;
  });
}

function needsAccelerator(code: RuleCode): boolean {
  const info = ruleInfo(code);
  return 'needsAccelerator' in info && info.needsAccelerator === true;
}

function findingKey(f: UnitFinding): string {
  const r = nodeRange(f.startNode ?? f.node);
  const end = nodeRange(f.node).end;
  return `${f.code}|${f.unit}|${r.start.line}:${r.start.character}|${end.line}:${end.character}`;
}

/**
 * Muted rounds replay the runs whose reads did not change (runCache.ts), within this
 * analysis and from the document's earlier ones; the reporting round skips the runs that
 * reported nothing last time and read the same again.
 */
function interpretInWorld(program: Program, runs: RunCache, enabled: ReadonlySet<RuleCode>, world: WorldState, torchVersion?: string): UnitFinding[] {
  const report = (summaries: Summaries): { findings: UnitFinding[]; next: Summaries } => {
    const tape = new Tape(runs.factComputes);
    const rules = new RuleDispatcher(program, true, enabled, tape, undefined, torchVersion);
    const interpreter = new Interpreter(program, summaries, rules.events, { runs, tape, round: 'reporting', reportAgain: (f) => rules.reportAgain(f), world });
    interpreter.run();
    return { findings: rules.results(), next: interpreter.next };
  };
  const muted = (summaries: Summaries): Summaries => {
    const interpreter = new Interpreter(program, summaries, new RuleDispatcher(program, false, enabled).events, { runs, tape: new Tape(runs.factComputes), round: 'muted', world });
    interpreter.run();
    return interpreter.next;
  };
  let inputs = new Summaries();
  let outputs: Summaries;
  // A program without functions makes no summaries, mostly: its first round reports at
  // once, and is final when it made none (a second would read the same empty summaries).
  if (program.functions.length === 0) {
    const first = report(inputs);
    if (first.next.isEmpty()) return first.findings;
    outputs = first.next;
  } else {
    outputs = muted(inputs);
  }
  let settled = false;
  for (let round = 2; round <= MUTED_ROUNDS && !settled; round++) {
    inputs = outputs;
    outputs = muted(inputs);
    settled = outputs.equals(inputs);
  }
  return report(settled ? inputs : outputs).findings;
}

function toFinding(f: UnitFinding, keepCells: boolean): Finding {
  const start = nodeRange(f.startNode ?? f.node).start;
  const end = nodeRange(f.node).end;
  const strip = (e: TextEdit): TextEdit => (keepCells ? e : { range: e.range, newText: e.newText });
  const fixes: Fix[] = f.fixes.map((x) => ({ ...x, edits: x.edits.map(strip) }));
  return {
    code: f.code,
    message: otherFileWording(f.message, f.related, nodeRange(f.node).start.line + 1),
    range: { start, end },
    severity: severityOf(f.code),
    related: f.related.map((r) => (keepCells || r.path !== undefined ? r : { range: r.range, message: r.message })),
    fixes,
    ...(f.tags ? { tags: f.tags } : {}),
  };
}

/**
 * "moved to device on line 5" names a line of the analysed file; where line 5 is only a
 * related place in another file (a file that imports this one), say which: "on line 5 of
 * train.py". A line that is also this file's stays as it is, since which one is meant is unknown.
 */
function otherFileWording(message: string, related: readonly RelatedLocation[], ownLine: number): string {
  const own = [ownLine, ...related.filter((r) => r.path === undefined).map((r) => r.range.start.line + 1)];
  const others: Array<OtherPlaceLine<string>> = [];
  let out = message;
  for (const r of related) {
    if (r.path === undefined) continue;
    const line = r.range.start.line + 1;
    const name = r.cellIndex === undefined ? basename(r.path) : `cell ${r.cellIndex + 1} of ${basename(r.path)}`;
    // A step of where a value came from is said as its related message is ("`model` moved to
    // device on line 6"): that phrase names this place, whatever else says line 6.
    const phrase = `${r.message.replace(/ here$/, '')} on line ${line}`;
    if (out.includes(phrase) && !out.includes(`${phrase} of `)) out = out.split(phrase).join(`${phrase} of ${name}`);
    else others.push({ line, place: name });
  }
  return nameOtherPlacesLines(out, own, others, (text, line, name) => text.replace(new RegExp(`\\bline ${line}\\b(?! of )`, 'g'), `line ${line} of ${name}`));
}

function severityOf(code: Finding['code']) {
  return ruleInfo(code).severity;
}

function select(findings: UnitFinding[], units: Unit[], options: AnalyzeOptions): UnitFinding[] {
  const enabled = enabledRules(options);
  return findings.filter((f) => {
    if (!enabled.has(f.code)) return false;
    if (options.noqa === false) return true;
    const line = units[f.unit].lines[nodeRange(f.startNode ?? f.node).start.line] ?? '';
    return !isSuppressedByNoqa(f.code, line);
  });
}

function byPosition(a: { range: Finding['range']; code: string }, b: { range: Finding['range']; code: string }): number {
  return a.range.start.line - b.range.start.line || a.range.start.character - b.range.start.character || a.code.localeCompare(b.code);
}

/**
 * Analyzes an already parsed file (the language server keeps trees incrementally, and with
 * `kept` the plain tree of the file's last analysis, whose unchanged statements are reused,
 * and with `runs` the runs of its last analysis that those statements can replay).
 */
export function analyzeTree(tree: Tree, source: string, options: AnalyzeOptions = {}, kept?: KeptPlainTree, runs = new RunCache()): Finding[] {
  const parsed = recoverFromSyntaxErrors(tree, source);
  try {
    const registry = kept?.registry ?? new NodeRegistry();
    const units = [makeUnit(0, parsed, registry, 0, kept)];
    // Findings kept from earlier analyses name lines: they count only while no line moved.
    if (!kept?.keptEveryLine) runs.linesMoved();
    return aroundSkipped(select(interpret(units, false, options, registry, runs), units, options), [parsed], options, false)
      .map((f) => toFinding(f, false)).sort(byPosition);
  } finally {
    if (parsed.owned) parsed.tree.delete();
  }
}

/**
 * Analyzes a file whose plain tree KeptPlainTree.splice made from the last one (no syntax
 * error anywhere, so nothing to recover), as analyzeTree would the parsed tree of `source`.
 */
export function analyzeSplicedTree(root: Node, source: string, options: AnalyzeOptions, kept: KeptPlainTree, runs: RunCache): Finding[] {
  const units = [unitOf(0, 0, root, source)];
  if (!kept.keptEveryLine) runs.linesMoved();
  return select(interpret(units, false, options, kept.registry, runs), units, options).map((f) => toFinding(f, false)).sort(byPosition);
}

/**
 * Parses and analyzes one Python file. With a project's shared trees (a CLI run), a file
 * another file's analysis already parsed as an import is not parsed again, and this file's
 * tree is kept for the files that import it.
 */
export function analyzeSource(source: string, options: AnalyzeOptions = {}): Finding[] {
  const notebook = marimoScript(source);
  if (notebook) {
    const tree = parsePython(notebook.script);
    try {
      return withoutFixesNamingOtherCells(analyzeTree(tree, notebook.script, options), notebook);
    } finally {
      tree.delete();
    }
  }
  const project = options.project;
  const shared = project?.trees?.get(project.path, source);
  if (shared) return analyzeUnit(unitOf(0, 0, shared.root, shared.source), shared.skipped, options, new NodeRegistry(), new RunCache());
  const tree = parsePython(source);
  try {
    if (!project?.trees) return analyzeTree(tree, source, options);
    const parsed = recoverFromSyntaxErrors(tree, source);
    try {
      const registry = new NodeRegistry();
      const unit = makeUnit(0, parsed, registry);
      project.trees.put(project.path, keptModule(source, unit, parsed.skipped));
      return analyzeUnit(unit, parsed.skipped, options, registry, new RunCache());
    } finally {
      if (parsed.owned) parsed.tree.delete();
    }
  } finally {
    tree.delete();
  }
}

/** A file's unit as the shared trees keep it (moduleTrees.ts). */
function keptModule(fileText: string, unit: Unit, skipped: readonly Range[]): KeptModule {
  return { fileText, source: unit.source, root: unit.root, lines: unit.lines, eol: unit.eol, skipped };
}

/** The findings of one file's unit, its syntax errors' statements skipped. */
function analyzeUnit(unit: Unit, skipped: readonly Range[], options: AnalyzeOptions, registry: NodeRegistry, runs: RunCache): Finding[] {
  runs.linesMoved();
  const units = [unit];
  return aroundSkipped(select(interpret(units, false, options, registry, runs), units, options), [{ skipped }], options, false)
    .map((f) => toFinding(f, false)).sort(byPosition);
}

/** Analyzes a notebook's code cells in order as one program; ranges are cell-local. */
export function analyzeNotebook(cells: readonly string[], options: AnalyzeOptions = {}): CellFinding[] {
  const registry = new NodeRegistry();
  const trees: Tree[] = [];
  const parses: RecoveredParse[] = [];
  try {
    // Inside the try: a parser crash on a later cell frees the trees of the earlier ones.
    for (const cell of cells) {
      const python = blankIPythonSyntax(cell);
      trees.push(parsePython(python));
      parses.push(recoverFromSyntaxErrors(trees[trees.length - 1], python));
    }
    const units = parses.map((parsed, i) => makeUnit(i, parsed, registry));
    return aroundSkipped(select(interpret(units, true, options, registry, new RunCache()), units, options), parses, options, true)
      .map((f) => ({ cellIndex: f.unit, finding: toFinding(f, true) }))
      .sort((a, b) => a.cellIndex - b.cellIndex || byPosition(a.finding, b.finding));
  } finally {
    for (const p of parses) if (p.owned) p.tree.delete();
    for (const t of trees) t.delete();
  }
}
