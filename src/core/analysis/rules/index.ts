// The rule registry: each rule's catalogue entry (code, name, default severity, summary,
// what it refines; ../catalog.ts, which front ends read without loading any rule) joined
// with its factory here. The record type makes the join complete: a code without a
// factory, or a factory without a code, does not compile. Only enabled rules' factories
// are called (../ruleDispatcher.ts). Adding a rule: its file, its catalogue entry, a row
// below, and docs/rules/.
import { RULES, type RuleCode, type RuleInfo } from '../catalog';
import type { Rule } from '../ruleApi';
import { accumulatedGraph } from './accumulatedGraph';
import { batchNotMoved } from './batchNotMoved';
import { dataParallel } from './dataParallel';
import { dataParallelDeviceIds } from './dataParallelDeviceIds';
import { deviceMismatch } from './deviceMismatch';
import { deviceChoicesDisagree } from './deviceChoicesDisagree';
import { deviceFromIsCuda } from './deviceFromIsCuda';
import { discardedMove } from './discardedMove';
import { fixedDeviceInForward } from './fixedDeviceInForward';
import { fp16WithoutGradScaler } from './fp16WithoutGradScaler';
import { hardCodedAccelerator } from './hardCodedAccelerator';
import { loadWithoutMapLocation } from './loadWithoutMapLocation';
import { lossWeightOnCpu } from './lossWeightOnCpu';
import { moduleCreatedInForward } from './moduleCreatedInForward';
import { moduleListNotRegistered } from './moduleListNotRegistered';
import { nonBlockingWithoutPinned } from './nonBlockingWithoutPinned';
import { numpyOnAccelerator, numpyRequiresGrad } from './numpyConversion';
import { optimizerLoadedBeforeMove } from './optimizerLoadedBeforeMove';
import { syncEveryStep } from './syncEveryStep';
import { tensorAttributeNotBuffer } from './tensorAttributeNotBuffer';
import { tensorCreatedInForward } from './tensorCreatedInForward';
import { unguardedCudaCall } from './unguardedCudaCall';
import { unsynchronizedTiming } from './unsynchronizedTiming';

const FACTORIES: Readonly<Record<RuleCode, Rule>> = {
  DD001: deviceMismatch,
  DD002: batchNotMoved,
  DD003: numpyOnAccelerator,
  DD004: discardedMove,
  DD005: hardCodedAccelerator,
  DD006: unsynchronizedTiming,
  DD007: syncEveryStep,
  DD008: fp16WithoutGradScaler,
  DD009: accumulatedGraph,
  DD010: numpyRequiresGrad,
  DD011: unguardedCudaCall,
  DD012: nonBlockingWithoutPinned,
  DD013: loadWithoutMapLocation,
  DD014: dataParallel,
  DD015: tensorCreatedInForward,
  DD016: tensorAttributeNotBuffer,
  DD017: lossWeightOnCpu,
  DD018: moduleListNotRegistered,
  DD019: moduleCreatedInForward,
  DD020: deviceFromIsCuda,
  DD021: fixedDeviceInForward,
  DD022: optimizerLoadedBeforeMove,
  DD023: dataParallelDeviceIds,
  DD024: deviceChoicesDisagree,
};

export interface RegisteredRule extends RuleInfo {
  factory: Rule;
}

/** Every rule, in catalogue order: the order in which rules receive each event. */
export const RULE_REGISTRY: readonly RegisteredRule[] = RULES.map((info) => ({ ...info, factory: FACTORIES[info.code] }));
