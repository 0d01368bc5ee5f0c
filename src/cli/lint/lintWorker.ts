// One thread of a `lint` run (lintThreads.ts): checks the file each message names and answers
// with its outcome. Started from dist/lintWorker.js beside the CLI's bundle.
import { parentPort, workerData } from 'worker_threads';
import { AnalysisCache } from './analysisCache';
import { FileLinter } from './lintFiles';
import type { LintThreadAnswer, LintThreadData } from './lintThreads';

const { files, settings, cache } = workerData as LintThreadData;
const linter = new FileLinter(files, { ...settings, fix: false, cache: cache && new AnalysisCache(cache.folder, cache.tool) });

parentPort!.on('message', (index: number) => {
  void linter.lint(files[index]).then((outcome) => parentPort!.postMessage({ index, outcome } satisfies LintThreadAnswer));
});
