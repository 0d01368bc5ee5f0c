// Entry point of dist/cli.js (`device-doctor`, `npm start`). Wires the real process to runCli.
import { processIo } from './io';
import { runCli } from './main';

// `device-doctor lint | head` closes our stdout early; that is not an error worth a trace.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
});

runCli(process.argv.slice(2), processIo()).then(
  (status) => {
    process.exitCode = status;
  },
  () => {
    process.exitCode = 2;
  },
);
