// Shrinks a failing input to a small one that fails the same way (delta debugging):
// first whole notebook cells, then lines, then single UTF-16 code units.
import { splitKeepingBreaks } from './mutators';
import type { FuzzInput } from './mutators';

export interface MinimizeBudget {
  /** Most candidate checks. */
  checks: number;
  /** Wall-clock deadline (Date.now() value). */
  deadline: number;
}

class Budget {
  used = 0;

  constructor(private readonly budget: MinimizeBudget) {}

  get spent(): boolean {
    return this.used >= this.budget.checks || Date.now() > this.budget.deadline;
  }
}

/** Classic ddmin over complements: removes ever smaller chunks while the input keeps failing. */
async function ddmin<T>(items: T[], fails: (items: T[]) => Promise<boolean>, budget: Budget): Promise<T[]> {
  let current = items;
  let n = 2;
  while (current.length >= 2 && !budget.spent) {
    const size = Math.ceil(current.length / n);
    let reduced = false;
    for (let start = 0; start < current.length && !budget.spent; start += size) {
      const candidate = current.slice(0, start).concat(current.slice(start + size));
      budget.used++;
      if (await fails(candidate)) {
        current = candidate;
        n = Math.max(n - 1, 2);
        reduced = true;
        break;
      }
    }
    if (!reduced) {
      if (n >= current.length) break;
      n = Math.min(n * 2, current.length);
    }
  }
  // A last try at the empty input, which ddmin never tests.
  if (current.length === 1 && !budget.spent) {
    budget.used++;
    if (await fails([])) current = [];
  }
  return current;
}

async function minimizeText(text: string, fails: (text: string) => Promise<boolean>, budget: Budget): Promise<string> {
  const lines = await ddmin(splitKeepingBreaks(text), (ls) => fails(ls.join('')), budget);
  const units = await ddmin(lines.join('').split(''), (us) => fails(us.join('')), budget);
  return units.join('');
}

/** The smallest input found that `fails` still holds for (the input itself if none). */
export async function minimizeInput(input: FuzzInput, fails: (candidate: FuzzInput) => Promise<boolean>, budget: MinimizeBudget): Promise<{ input: FuzzInput; checks: number }> {
  const b = new Budget(budget);
  if (input.kind === 'source') {
    const source = await minimizeText(input.source, (source) => fails({ ...input, source }), b);
    return { input: { ...input, label: `minimized: ${input.label}`, source }, checks: b.used };
  }
  let cells = await ddmin(input.cells, (cs) => fails({ ...input, cells: cs }), b);
  for (let i = 0; i < cells.length && !b.spent; i++) {
    const cell = await minimizeText(cells[i], (text) => fails({ ...input, cells: cells.map((c, j) => (j === i ? text : c)) }), b);
    cells = cells.map((c, j) => (j === i ? cell : c));
  }
  return { input: { ...input, label: `minimized: ${input.label}`, cells }, checks: b.used };
}

export function inputSize(input: FuzzInput): number {
  return input.kind === 'source' ? input.source.length : input.cells.reduce((n, c) => n + c.length, 0);
}
