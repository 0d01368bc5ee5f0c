// Hands each event the interpreter (or a rule) emits to every enabled rule that subscribes
// to it, and collects the findings of one round. The gating lives here, once: rules see
// events only in the final round and outside a loop's first pass, whose state is
// incomplete. So does refinement: a generic finding that an enabled, more specific rule
// also reported on the same operand is dropped here, not by the rules.
import type { Node } from '../python/pyNode';
import { nodeRange } from '../python/syntax';
import { ruleInfo, type RuleCode } from './catalog';
import { deviceChoiceOf } from './deviceChoice';
import { programFact } from './programFacts';
import type { Frame } from './frame';
import type { Program } from './program';
import { AnalysisEvents, EVENT_NAMES, RuleHost, UnitFinding } from './ruleApi';
import { RULE_REGISTRY, type RegisteredRule } from './rules';
import type { RelatedLocation } from './types';
import type { Origin } from './values';
import { noticedUses, type Tape } from './runCache';


type EventName = keyof AnalysisEvents;

/** Events judged by one operation alone, which the first iteration of a loop can already raise. */
const FIRST_ITERATION_EVENTS = new Set<EventName>(['moduleCall', 'tensorOperation', 'numpyConversion', 'argumentMeetsAccelerator']);
type Handler = (frame: Frame, ...rest: never[]) => void;

export class RuleDispatcher {
  private readonly findings = new Map<string, UnitFinding>();
  /** What the interpreter emits into; each call reaches the subscribed rules in registry order. */
  readonly events: AnalysisEvents;
  /** Codes refined by an enabled rule, with the codes refining them. */
  private readonly refinedBy = new Map<RuleCode, Set<RuleCode>>();
  private readonly enabled: ReadonlySet<RuleCode>;

  /**
   * Rules are created per round, so their state (open loops) never outlives one; only the
   * final round's, and only the enabled ones. With a `tape` (a reporting round whose runs
   * may be skipped next time, runCache.ts) the rules see the program through a view that
   * notes each use, and each report is counted.
   */
  constructor(
    readonly program: Program,
    readonly final: boolean,
    enabled: ReadonlySet<RuleCode>,
    private readonly tape?: Tape,
    registry: readonly RegisteredRule[] = RULE_REGISTRY,
    torchVersion?: string,
  ) {
    // Filled below once every rule has subscribed; rules emit into it through `host.emit`.
    const events = {} as Record<EventName, Handler>;
    this.events = events as unknown as AnalysisEvents;
    const view = tape ? noticedUses(program, tape) : program;
    const host: RuleHost = {
      program: view,
      report: (f) => this.report(f),
      related: (loc, message): RelatedLocation[] => {
        if (!loc) return [];
        const out: RelatedLocation[] = [this.located(loc.unit, nodeRange(loc.node), message)];
        // Each earlier step of where the value came from is a location of its own.
        for (let o = (loc as Origin).from; o && out.length < 4; o = o.from) out.push(this.located(o.unit, nodeRange(o.node), o.what));
        return out;
      },
      severityOf: (code) => ruleInfo(code).severity,
      deviceChoice: () => deviceChoiceOf(view),
      programFact: (key, compute) => programFact(view, key, compute),
      emit: this.events,
      torchVersion,
    };
    this.enabled = enabled;
    // A rule that another enabled one hears from runs too (`--select DD002` needs DD001's analysis).
    const needed = new Set<string>(enabled);
    for (const r of registry) if (enabled.has(r.code) && r.hearsFrom) needed.add(r.hearsFrom);
    const running = final ? registry.filter((r) => needed.has(r.code)) : [];
    for (const r of running) {
      if (r.refines && enabled.has(r.refines as RuleCode)) {
        const refined = r.refines as RuleCode;
        if (!this.refinedBy.has(refined)) this.refinedBy.set(refined, new Set());
        this.refinedBy.get(refined)!.add(r.code);
      }
    }
    const subscribers = running.map((r) => ({ rule: r, handlers: r.factory(host) }));
    for (const name of Object.keys(EVENT_NAMES) as EventName[]) {
      const listening = subscribers.filter((s) => s.handlers[name]);
      const handlers = listening.map((s) => (s.handlers[name] as Handler).bind(s.handlers));
      // Code only a machine without an accelerator runs (world.ts) is heard by the rules that need none.
      const shadowHandlers = listening.filter((s) => !s.rule.needsAccelerator).map((s) => (s.handlers[name] as Handler).bind(s.handlers));
      const importerHandlers = listening.filter((s) => s.rule.hearsImporters).map((s) => (s.handlers[name] as Handler).bind(s.handlers));
      events[name] = (frame, ...rest) => {
        if (handlers.length === 0 || this.quiet(frame, name)) return;
        if (!this.program.inAnalysedFile(frame.unit)) {
          if (!frame.shadow) for (const h of importerHandlers) h(frame, ...rest);
          return;
        }
        for (const h of frame.shadow ? shadowHandlers : handlers) h(frame, ...rest);
      };
    }
  }

  /** A place in a unit: a cell of the analysed notebook, or a line of another file of the project. */
  private located(unit: number, range: RelatedLocation['range'], message: string): RelatedLocation {
    const module = this.program.units[unit]?.module ?? 0;
    const info = module === 0 ? undefined : this.program.modules[module];
    if (info?.path === undefined) return { range, message, cellIndex: unit };
    // A notebook that imports the analysed file: a unit per code cell.
    const cell = info.path.endsWith('.ipynb') ? info.units.findIndex((u) => u.index === unit) : -1;
    return cell >= 0 ? { range, message, path: info.path, cellIndex: cell } : { range, message, path: info.path };
  }

  /** The round's findings, less the generic ones a refining rule reported on the same operand or its cause. */
  results(): UnitFinding[] {
    const all = [...this.findings.values()];
    if (this.refinedBy.size === 0) return all;
    const refinedNodes = new Map<RuleCode, Set<number>>();
    for (const [generic, refining] of this.refinedBy) {
      const nodes = new Set<number>();
      for (const f of all) {
        if (!refining.has(f.code) || !f.subject) continue;
        nodes.add(f.subject.id);
        nodes.add(f.node.id);
      }
      refinedNodes.set(generic, nodes);
    }
    return all.filter((f) => {
      const nodes = refinedNodes.get(f.code);
      if (!nodes || !f.subject) return true;
      if (nodes.has(f.subject.id)) return false;
      for (let o = f.cause, steps = 0; o && steps < 8; o = o.from, steps++) {
        if (nodes.has(o.node.id)) return false;
      }
      return true;
    });
  }

  private quiet(frame: Frame, name: EventName): boolean {
    if (!this.final) return true;
    if (frame.muted === 0) return false;
    // A loop's first pass is its first iteration: one operation's mismatch there raises.
    return !(frame.firstPass && frame.muted === 1 && FIRST_ITERATION_EVENTS.has(name));
  }
  /** A finding of a replayed run (runCache.ts), as its rule made it then: reported as if the rule had again. */
  reportAgain(finding: UnitFinding): void {
    this.report(finding);
  }

  /** A range reached again in the same round (an expression evaluated twice) keeps its first report. */
  private report(finding: UnitFinding): void {
    // A rule that runs only for the rules that hear from it reports nothing of its own.
    if (!this.enabled.has(finding.code as RuleCode)) return;
    // A file that imports the analysed one reports too (interpreter.ts reportsIn), but only
    // what is placed in the analysed file, with fixes that edit only it.
    if (!this.program.inAnalysedFile(finding.unit)) return;
    if (finding.fixes.some((fix) => fix.edits.some((e) => e.cellIndex !== undefined && !this.program.inAnalysedFile(e.cellIndex)))) {
      finding = { ...finding, fixes: finding.fixes.filter((fix) => fix.edits.every((e) => e.cellIndex === undefined || this.program.inAnalysedFile(e.cellIndex))) };
    }
    this.tape?.reported(finding);
    // A fix inside a statement that does not parse edits text whose meaning the parser only
    // guessed: it can break the file or, applied again, never settle (`x = x = x.cuda()`).
    const f = finding.fixes.length > 0 && inBrokenStatement(finding.node) ? { ...finding, fixes: [] } : finding;
    const r = nodeRange(f.startNode ?? f.node);
    const end = nodeRange(f.node).end;
    const key = `${f.code}|${f.unit}|${r.start.line}:${r.start.character}|${end.line}:${end.character}`;
    if (!this.findings.has(key)) this.findings.set(key, f);
  }
}

/**
 * Whether the innermost statement around `node` contains a syntax error, or shares a line
 * with one that does (error recovery can split `a=().to(d)device=…` into several
 * statements on one line, and a fix there would be applied to guessed structure).
 */
function inBrokenStatement(node: Node): boolean {
  let n: Node | null = node;
  while (n && n.parent && n.parent.type !== 'block' && n.parent.type !== 'module') n = n.parent;
  if (!n) return false;
  const broken = (s: Node) => s.hasError || s.type === 'ERROR';
  if (broken(n) || n.parent?.type === 'ERROR') return true;
  const sameLines = statementsOnItsLines(n);
  // Statements run together without `;` show only as an invisible MISSING newline in the parent.
  return sameLines.some(broken) || (sameLines.length > 0 && !!n.parent?.hasError);
}

/**
 * The other statements of `n`'s block that share a line with it. Statements are in order and
 * do not overlap, so those are its neighbours: found by bisection, not by a scan of the block
 * (a module-level finding in a 10,000-line script compared every statement's position).
 */
function statementsOnItsLines(n: Node): Node[] {
  const siblings = n.parent?.codeChildren ?? [];
  const first = n.startPosition.row;
  const last = n.endPosition.row;
  let lo = 0;
  let hi = siblings.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (siblings[mid]!.startIndex < n.startIndex) lo = mid + 1;
    else hi = mid;
  }
  if (siblings[lo]?.id !== n.id) return siblings.filter((s) => s.id !== n.id && s.startPosition.row <= last && s.endPosition.row >= first);
  const out: Node[] = [];
  for (let i = lo - 1; i >= 0 && siblings[i]!.endPosition.row >= first; i--) out.push(siblings[i]!);
  for (let i = lo + 1; i < siblings.length && siblings[i]!.startPosition.row <= last; i++) out.push(siblings[i]!);
  return out;
}
