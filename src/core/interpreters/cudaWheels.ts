// Which of PyTorch's CUDA wheel indexes a driver can run, and the pip command that installs
// from it. The driver's "CUDA Version" (nvidia-smi) is the newest CUDA runtime it supports; a
// wheel built for a newer CUDA fails with "driver too old", so the newest index not above the
// driver's version is the one to use.
//
// Source of the facts: the install matrix at https://pytorch.org/get-started/locally/ and
// https://pytorch.org/get-started/previous-versions/ (the `--index-url
// https://download.pytorch.org/whl/cuXYZ` lines): torch 2.5 ships cu118/cu121/cu124, 2.6
// cu118/cu124/cu126, 2.7 cu118/cu126/cu128, 2.8 cu126/cu128/cu129, 2.9 cu126/cu128/cu130.
// Keep the list newest first; add an index here when PyTorch publishes one.
import { compareVersions } from '../devices/versions';

export interface CudaWheelIndex {
  /** The CUDA version the wheels are built for. */
  cuda: string;
  /** The index's folder under download.pytorch.org/whl/. */
  tag: string;
}

export const CUDA_WHEEL_INDEXES: readonly CudaWheelIndex[] = [
  { cuda: '13.0', tag: 'cu130' },
  { cuda: '12.9', tag: 'cu129' },
  { cuda: '12.8', tag: 'cu128' },
  { cuda: '12.6', tag: 'cu126' },
  { cuda: '12.4', tag: 'cu124' },
  { cuda: '12.1', tag: 'cu121' },
  { cuda: '11.8', tag: 'cu118' },
];

export const WHEEL_INDEX_BASE = 'https://download.pytorch.org/whl/';

/** The newest index whose CUDA the driver supports, or null for a driver older than all of them (or an unreadable version). */
export function wheelIndexForDriver(driverCudaVersion: string): CudaWheelIndex | null {
  if (!/^\d+(\.\d+)*$/.test(driverCudaVersion.trim())) return null;
  return CUDA_WHEEL_INDEXES.find((index) => compareVersions(index.cuda, driverCudaVersion.trim()) <= 0) ?? null;
}

/**
 * The command that puts a CUDA build of PyTorch into `interpreter`. --force-reinstall because a
 * CPU-only torch already satisfies "torch" and pip would otherwise keep it.
 */
export function cudaPipCommand(interpreter: string, index: CudaWheelIndex, replacing: boolean): string {
  const python = /\s/.test(interpreter) ? `"${interpreter}"` : interpreter;
  return `${python} -m pip install ${replacing ? '--force-reinstall ' : ''}torch --index-url ${WHEEL_INDEX_BASE}${index.tag}`;
}

/** The oldest CUDA any index is built for: a driver below it must be updated first. */
export function oldestWheelCuda(): string {
  return CUDA_WHEEL_INDEXES[CUDA_WHEEL_INDEXES.length - 1].cuda;
}
