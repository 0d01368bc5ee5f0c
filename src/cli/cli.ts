// Entry point of dist/cli.js (`device-doctor`, `npm start`). Wires the real process to runCli.
import { runDetectCli } from './detectCommand';
import { processIo } from './io';
import { runCli } from './main';

// `device-doctor lint | head` closes our stdout early; that is not an error worth a trace.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
});

/**
 * `detect` is dispatched here; Ctrl-C stops its tools (they run in their own process
 * groups, so the terminal's SIGINT does not reach them) before the CLI exits.
 */
function runDetect(argv: string[]): Promise<number> {
  const controller = new AbortController();
  process.once('SIGINT', () => {
    controller.abort();
    process.exit(130);
  });
  return runDetectCli(argv, processIo(), controller.signal);
}

const argv = process.argv.slice(2);
const run = argv[0] === 'detect' ? runDetect(argv.slice(1)) : runCli(argv, processIo());
run.then(
  (status) => {
    process.exitCode = status;
  },
  () => {
    process.exitCode = 2;
  },
);
