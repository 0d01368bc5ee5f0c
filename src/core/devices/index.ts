// The device core's public API: pure parsers and decisions over tool outputs. The
// worker runs the tools and hands their outputs here.
export * from './report';
export * from './toolRun';
export * from './nvidiaSmi';
export * from './nvidiaMonitor';
export * from './nvidiaFailure';
export * from './amd';
export * from './amdSmi';
export * from './apple';
export * from './host';
export * from './torchProbe';
export * from './diagnosis';
export * from './gpuMapping';
export * from './select';
export * from './accelerators';
export * from './assemble';
export * from './buildReport';
export * from './format';
export * from './summary';
export * from './versions';
export * from './gpuApps';
export * from './gpuProcesses';
export * from './procFiles';
export * from './sampleHistory';
