// Process tests that run a command and look at its exit status and what it printed start it
// the way the product starts every child: the one process runner (src/node/processRunner.ts),
// no shell, an absolute path or a bare name looked up on PATH without relative entries.
import { startProcess } from '../../src/node/processRunner';

export interface Outcome {
  /** The exit code; null when it died of a signal. */
  status: number | null;
  /** stdout and stderr together, in the order they arrived (what a person at a terminal reads). */
  output: string;
}

/** Runs `command args` to its end; waits as long as the test's timeout allows. Throws only when it cannot start. */
export async function runToEnd(command: string, args: readonly string[], cwd: string, env: NodeJS.ProcessEnv): Promise<Outcome> {
  let output = '';
  const append = (text: string): void => void (output += text);
  const { exitCode, errorCode, errorMessage } = await startProcess(command, args, { cwd, env, onStdout: append, onStderr: append }).ended;
  if (errorCode !== undefined) throw new Error(`${command} could not be started (${errorCode}): ${errorMessage}`);
  return { status: exitCode, output };
}
