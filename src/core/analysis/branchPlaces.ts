// The paths of an `if` that the world does not decide (`if args.model == "mlp":`) are joined:
// a model built on the CPU in one branch and moved in another is "maybe on an accelerator"
// afterwards, and a mismatch on the CPU path was lost in the join. Here the joined value
// keeps that path: the branch that leaves it on the CPU (Value.cpuWhen), so DD001 can say
// that the model meets GPU inputs when that branch is taken.
import type { Node } from '../python/pyNode';
import { children, field, shortText } from '../python/syntax';
import type { Env } from './env';
import { ACCEL, CPU, EITHER, PathTest, Value } from './values';

/** One path through an `if`: the clause whose body ran, or none (no branch taken). */
export interface Arm {
  node: Node;
  what: string;
  /** The undecided tests this path takes, by their text, with their outcome on it. */
  tests: PathTest[];
  /** The block this path runs (none where it takes no branch). */
  body?: Node | null;
}

/** The arm of an `if`/`elif` clause, or of its `else`, after the undecided tests `earlier` were false (undefined: not followed). */
export function clauseArm(clause: Node, condition: Node | null, earlier: readonly Node[] | undefined): Arm {
  const tests = earlier ? falseTests(earlier) : [];
  if (!condition) return { node: clause, what: `in the \`else\` on line ${clause.startPosition.row + 1}`, tests, body: field(clause, 'body') };
  const body = condition.parent ? field(condition.parent, 'consequence') : null;
  return { node: condition, what: `when \`${shortText(condition, 24)}\``, tests: earlier ? [...tests, { text: condition.text, truth: true }] : [], body };
}

/** The path that takes no branch of an `if` without `else`: every undecided test false. */
export function skippedArm(statement: Node, undecided: readonly Node[] | undefined): Arm {
  const condition = field(statement, 'condition');
  return {
    node: condition ?? statement, what: condition ? `when \`${shortText(condition, 24)}\` is false` : 'when the `if` is skipped',
    tests: undecided ? falseTests(undecided) : [],
  };
}

function falseTests(conditions: readonly Node[]): PathTest[] {
  return conditions.map((c) => ({ text: c.text, truth: false }));
}

/**
 * After `joined = join(branches)`: each key a join bound whose value is exactly on the CPU
 * (a tensor or a module with a place) on one path and exactly on the accelerator on another
 * keeps the first such CPU path, and every path's value with its tests.
 */
export function markCpuArms(joined: Env, branches: readonly Env[], arms: readonly Arm[], unit: number): void {
  if (branches.length < 2 || branches.length !== arms.length) return;
  for (const key of joined.ownKeys()) {
    const v = joined.get(key);
    if (!v || v.place !== EITHER || (v.kind !== 'tensor' && v.kind !== 'module')) continue;
    const values = branches.map((b) => b.get(key));
    const onAccel = values.some((x) => x?.kind === v.kind && x.place === ACCEL);
    const cpuAt = values.findIndex((x) => x?.kind === v.kind && isPlacedOnCpu(x));
    if (!onAccel || cpuAt < 0 || keptAsItIs(arms[cpuAt]!, key)) continue;
    const paths = values.flatMap((x, i) => (x ? [{ tests: arms[i].tests, value: x, onCpu: x.kind === v.kind && isPlacedOnCpu(x) }] : []));
    joined.replaceOwn(key, { ...v, cpuWhen: { unit, node: arms[cpuAt].node, what: arms[cpuAt].what, tests: arms[cpuAt].tests, value: values[cpuAt]!, paths } });
  }
}

/**
 * `if kind in GRAPH_KINDS: x = x` beside `else: x = x.to(device)`: the arm says in so many words
 * that it leaves `x` where it is (what it is given there moves itself, or is no tensor), so
 * its CPU path is no forgotten move.
 */
function keptAsItIs(arm: Arm, key: string): boolean {
  return !!arm.body && children(arm.body).some((stmt) => {
    const assignment = stmt.type === 'expression_statement' ? children(stmt)[0] : undefined;
    if (assignment?.type !== 'assignment') return false;
    const left = field(assignment, 'left');
    const right = field(assignment, 'right');
    return left?.text === key && right?.text === key;
  });
}

function isPlacedOnCpu(v: Value): boolean {
  // An empty container holds nothing to be anywhere (it is the identity until filled).
  return v.place === CPU && !v.scalar && !v.placeless && !v.param && !v.emptyContainer;
}

