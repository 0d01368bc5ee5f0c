// The benchmark core's public API: pure statistics, the result model, request planning,
// the correctness check, comparison and export. No processes, no editor.
export * from './model';
export * from './statistics';
export * from './plan';
export * from './footprint';
export * from './peaks';
export * from './timeBudget';
export * from './correctness';
export * from './outcomes';
export * from './result';
export * from './compare';
export * from './sweep';
export * from './export';
export * from './cpuPeak';
export * from './gpuPeaks';
export * from './diagnosis';
