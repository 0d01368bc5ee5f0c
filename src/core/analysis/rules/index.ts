// The rules that run, in the order they receive each event. A rule is one file here that
// exports a `Rule` factory (see ../ruleApi.ts); shared/ holds helpers, which are not rules.
// Adding a rule: its file, a line below, its entry in ../catalog.ts, and docs/rules/.
import type { Rule } from '../ruleApi';
import { batchNotMoved } from './batchNotMoved';
import { dataParallel } from './dataParallel';
import { deviceMismatch } from './deviceMismatch';
import { discardedMove } from './discardedMove';
import { loadWithoutMapLocation } from './loadWithoutMapLocation';
import { numpyConversion } from './numpyConversion';
import { unguardedCudaCall } from './unguardedCudaCall';

export const RULE_FACTORIES: readonly Rule[] = [
  deviceMismatch, // DD001
  batchNotMoved, // DD002
  numpyConversion, // DD003, DD010
  discardedMove, // DD004
  unguardedCudaCall, // DD011
  loadWithoutMapLocation, // DD013
  dataParallel, // DD014
];
