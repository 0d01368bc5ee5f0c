// The real CPython as the judge of "is this Python?": one long-lived interpreter reads
// JSON-encoded sources, one per line, and answers `ok` or `error <json message>` for each,
// so thousands of checks cost a pipe round trip each, not a process start.
import { ChildProcess, spawn } from 'child_process';

export type ParseVerdict = { ok: true } | { ok: false; error: string; crashed?: boolean };

/** Anything that can say whether sources are Python: the real interpreter, or a fake in self-checks. */
export interface PythonOracle {
  parseMany(sources: readonly string[]): Promise<ParseVerdict[]>;
}

export const DEFAULT_PYTHON = process.env.FUZZ_PYTHON || '/usr/bin/python3';

// The source travels as a JSON string (lone surrogates survive as \udXXX escapes) and is
// parsed as the UTF-8 bytes a saved file would hold: a source that cannot be encoded
// (a lone surrogate) is not a Python file. ast.parse on bytes honours a BOM and a coding
// cookie like the interpreter does on a file. Warnings (invalid escapes) are silenced.
const SCRIPT = String.raw`
import ast, json, sys, warnings
warnings.simplefilter("ignore")
sys.setrecursionlimit(100000)
inp = sys.stdin.buffer
out = sys.stdout
while True:
    line = inp.readline()
    if not line:
        break
    try:
        ast.parse(json.loads(line).encode("utf-8"))
        out.write("ok\n")
    except KeyboardInterrupt:
        raise
    except BaseException as e:
        out.write("error " + json.dumps(type(e).__name__ + ": " + str(e)[:300]) + "\n")
    out.flush()
`;

interface Pending {
  source: string;
  resolve: (verdict: ParseVerdict) => void;
}

export class CPythonParser implements PythonOracle {
  private child: ChildProcess | undefined;
  private buffer = '';
  private pending: Pending[] = [];
  private stderrTail = '';
  private closing = false;
  /** Sources judged so far, and interpreter crashes (each crash restarts it). */
  checks = 0;
  crashes = 0;

  private constructor(readonly python: string) {}

  /** Starts the interpreter and checks that it tells Python from non-Python. */
  static async start(python = DEFAULT_PYTHON): Promise<CPythonParser> {
    const parser = new CPythonParser(python);
    const [good, bad] = await parser.parseMany(['x = (1,\n     2)\n', 'x = (1,\n']);
    if (!good.ok || bad.ok) {
      await parser.close();
      throw new Error(`${python} cannot judge Python: ${JSON.stringify([good, bad])} ${parser.stderrTail}`);
    }
    parser.checks = 0;
    return parser;
  }

  parse(source: string): Promise<ParseVerdict> {
    return new Promise((resolve) => {
      const job = { source, resolve };
      this.pending.push(job);
      this.send(job);
    });
  }

  parseMany(sources: readonly string[]): Promise<ParseVerdict[]> {
    return Promise.all(sources.map((s) => this.parse(s)));
  }

  async close(): Promise<void> {
    this.closing = true;
    const child = this.child;
    this.child = undefined;
    if (!child || child.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.stdin?.end();
      setTimeout(() => child.kill('SIGKILL'), 2000).unref();
    });
  }

  private ensureChild(): ChildProcess {
    if (this.child) return this.child;
    if (this.closing) throw new Error('CPythonParser is closed');
    const child = spawn(this.python, ['-I', '-c', SCRIPT], { stdio: ['pipe', 'pipe', 'pipe'] });
    child.stdout!.setEncoding('utf8');
    child.stdout!.on('data', (chunk: string) => this.onData(chunk));
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (chunk: string) => {
      this.stderrTail = (this.stderrTail + chunk).slice(-2000);
    });
    child.stdin!.on('error', () => undefined); // EPIPE when it dies; 'exit' handles the rest
    child.on('error', (error) => this.onExit(child, `could not run ${this.python}: ${error.message}`));
    child.on('exit', (code, signal) => this.onExit(child, `${this.python} exited (${signal ?? code})`));
    this.child = child;
    return child;
  }

  private send(job: Pending): void {
    this.ensureChild().stdin!.write(JSON.stringify(job.source) + '\n');
  }

  private onData(chunk: string): void {
    this.buffer += chunk;
    let newline: number;
    while ((newline = this.buffer.indexOf('\n')) >= 0) {
      const line = this.buffer.slice(0, newline);
      this.buffer = this.buffer.slice(newline + 1);
      const job = this.pending.shift();
      if (!job) continue;
      this.checks++;
      job.resolve(line === 'ok' ? { ok: true } : { ok: false, error: line.startsWith('error ') ? (JSON.parse(line.slice(6)) as string) : line });
    }
  }

  /** The source being parsed when it died is answered "crashed"; the rest go to a fresh interpreter. */
  private onExit(child: ChildProcess, why: string): void {
    if (this.child !== child && this.child !== undefined) return;
    this.child = undefined;
    this.buffer = '';
    const [first, ...rest] = this.pending;
    this.pending = [];
    if (!first) return;
    if (this.closing) {
      for (const job of [first, ...rest]) job.resolve({ ok: false, error: why, crashed: true });
      return;
    }
    this.crashes++;
    if (this.crashes > 50) {
      for (const job of [first, ...rest]) job.resolve({ ok: false, error: `${why}; giving up after 50 crashes: ${this.stderrTail}`, crashed: true });
      return;
    }
    first.resolve({ ok: false, error: `${why}: ${this.stderrTail.slice(-300)}`, crashed: true });
    for (const job of rest) {
      this.pending.push(job);
      this.send(job);
    }
  }
}
