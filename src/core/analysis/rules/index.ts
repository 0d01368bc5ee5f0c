// The rules that run, in the order they receive each event. A rule is one file here that
// exports a `Rule` factory (see ../ruleApi.ts); shared/ holds helpers, which are not rules.
// Adding a rule: its file, a line below, its entry in ../catalog.ts, and docs/rules/.
import type { Rule } from '../ruleApi';
import { accumulatedGraph } from './accumulatedGraph';
import { batchNotMoved } from './batchNotMoved';
import { dataParallel } from './dataParallel';
import { deviceMismatch } from './deviceMismatch';
import { discardedMove } from './discardedMove';
import { fp16WithoutGradScaler } from './fp16WithoutGradScaler';
import { hardCodedAccelerator } from './hardCodedAccelerator';
import { loadWithoutMapLocation } from './loadWithoutMapLocation';
import { lossWeightOnCpu } from './lossWeightOnCpu';
import { nonBlockingWithoutPinned } from './nonBlockingWithoutPinned';
import { numpyConversion } from './numpyConversion';
import { syncEveryStep } from './syncEveryStep';
import { tensorAttributeNotBuffer } from './tensorAttributeNotBuffer';
import { tensorCreatedInForward } from './tensorCreatedInForward';
import { unguardedCudaCall } from './unguardedCudaCall';
import { unsynchronizedTiming } from './unsynchronizedTiming';

export const RULE_FACTORIES: readonly Rule[] = [
  deviceMismatch, // DD001
  batchNotMoved, // DD002
  numpyConversion, // DD003, DD010
  discardedMove, // DD004
  hardCodedAccelerator, // DD005
  unsynchronizedTiming, // DD006
  syncEveryStep, // DD007
  fp16WithoutGradScaler, // DD008
  accumulatedGraph, // DD009
  unguardedCudaCall, // DD011
  nonBlockingWithoutPinned, // DD012
  loadWithoutMapLocation, // DD013
  dataParallel, // DD014
  tensorCreatedInForward, // DD015
  tensorAttributeNotBuffer, // DD016
  lossWeightOnCpu, // DD017
];
