// The commands that probe and benchmark devices. They load tfjs and its backends, the
// probes and the worker's benchmark code: src/cli/main.ts requires this module only when
// one of them runs, and in dist/ it is a bundle of its own (cliDevices.js, see esbuild.js),
// so `lint` neither parses nor evaluates any of it.
export { runBenchCommand } from './commands/bench';
export { runDetectCommand } from './commands/detect';
export { runDoctorCommand } from './commands/doctor';
