// Dispatches a command line to its command. Every failure becomes "error: ..." and an
// exit status: a person running the CLI never sees a stack trace.
import { helpCommandFor, parseArgs } from './args';
import { helpText } from './help';
import type { CliIo } from './io';
import { EXIT_USAGE, runLintCommand } from './commands/lint';
import { runRuleCommand } from './commands/rule';
import { runVirtualCommand } from './commands/run';
import { runServerCommand } from './commands/server';
import { DEVICE_DOCTOR_VERSION } from './version';
import { terminalText } from './formats/terminalText';

/** bench, detect and doctor, loaded on first use: `lint` must not pay for tfjs (./deviceCommands). */
function deviceCommands(): typeof import('./deviceCommands') {
  // A plain require, not import(): esbuild.js turns it into a require of dist/cliDevices.js.
  return require('./deviceCommands') as typeof import('./deviceCommands');
}

async function dispatch(argv: readonly string[], io: CliIo, signal?: AbortSignal): Promise<number> {
  const invocation = parseArgs(argv);
  switch (invocation.command) {
    case 'help':
      io.stdout(helpText(invocation.topic));
      return 0;
    case 'version':
      io.stdout(`device-doctor ${DEVICE_DOCTOR_VERSION}\n`);
      return 0;
    case 'lint':
      return runLintCommand(invocation.options, io);
    case 'doctor':
      return deviceCommands().runDoctorCommand(io, invocation.options);
    case 'detect':
      return deviceCommands().runDetectCommand(invocation.options, io, signal);
    case 'bench':
      return deviceCommands().runBenchCommand(invocation.options, io, signal);
    case 'rule':
      return runRuleCommand(invocation.code, io);
    case 'run':
      return runVirtualCommand(invocation.argv, io, signal);
    case 'server':
      return runServerCommand(io);
    case 'usage-error':
      io.stderr(`error: ${terminalText(invocation.message)}\nRun '${helpCommandFor(invocation.topic)}' for usage.\n`);
      return EXIT_USAGE;
  }
}

/** Runs the CLI and returns its exit status; never throws. */
export async function runCli(argv: readonly string[], io: CliIo, signal?: AbortSignal): Promise<number> {
  try {
    return await dispatch(argv, io, signal);
  } catch (err) {
    io.stderr(`error: ${terminalText(err instanceof Error ? err.message : String(err))}\n`);
    return EXIT_USAGE;
  }
}
