export * from './model';
export * from './trust';
export * from './conda';
export * from './capability';
export * from './cudaWheels';
export * from './usable';
