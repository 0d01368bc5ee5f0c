// Entry point of dist/cli.js (`device-doctor`, `npm start`). Wires the real process to runCli.
import { processIo } from './io';
import { runCli } from './main';
import { useBaselineWasmCompiler } from './wasmTiering';

// `device-doctor lint | head` closes our stdout early; that is not an error worth a trace.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
});

// Ctrl-C stops the probes' tools too: they run in their own process groups, so the
// terminal's SIGINT does not reach them.
const controller = new AbortController();
process.once('SIGINT', () => {
  controller.abort();
  process.exit(130);
});

const argv = process.argv.slice(2);
if (argv[0] === 'lint') useBaselineWasmCompiler();

runCli(argv, processIo(), controller.signal).then(
  (status) => {
    process.exitCode = status;
  },
  () => {
    process.exitCode = 2;
  },
);
