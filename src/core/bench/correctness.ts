// Is the product right? Every engine's product C = A·B is checked against float64
// arithmetic on the very inputs the engine used, two ways:
// - sampled entries (deterministic seeded picks plus two corners), each recomputed as a
//   float64 dot product: the relative error reported as maxRelError;
// - a row checksum (Freivalds): C·x against A·(B·x) for a seeded vector x, in float64, which
//   sees a wrong entry anywhere in C, not only at the sampled places, in O(n²).
// Relative error is measured against Σ|a_ik·b_kj| (and its checksum analogue), the scale
// rounding errors of a dot product grow with; for the non-negative inputs makeInputs()
// produces it is exactly |c_ij|, the ordinary relative error.
import { Dtype } from './model';

/** mulberry32: a small seeded generator, so inputs and picks are the same on every run. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface MatmulInputs {
  a: Float32Array;
  b: Float32Array;
}

/** Two n×n row-major float32 matrices, uniform in [0, 1) like torch.rand. */
export function makeInputs(size: number, seed: number): MatmulInputs {
  const random = seededRandom(seed);
  const a = new Float32Array(size * size);
  const b = new Float32Array(size * size);
  for (let i = 0; i < a.length; i++) a[i] = random();
  for (let i = 0; i < b.length; i++) b[i] = random();
  return { a, b };
}

export interface EntryPosition {
  row: number;
  col: number;
}

/** `count` distinct positions of an n×n matrix: both corners, then seeded picks. */
export function samplePositions(size: number, count: number, seed: number): EntryPosition[] {
  const total = size * size;
  const wanted = Math.min(Math.max(count, 0), total);
  const random = seededRandom(seed ^ 0x5eed);
  const picked = new Set<number>();
  for (const corner of [0, total - 1]) if (picked.size < wanted) picked.add(corner);
  while (picked.size < wanted) picked.add(Math.floor(random() * total));
  return [...picked].map((index) => ({ row: Math.floor(index / size), col: index % size }));
}

/** c_ij in float64 and the scale Σ|a_ik·b_kj| its rounding error is measured against. */
export function referenceEntry(inputs: MatmulInputs, size: number, row: number, col: number): { value: number; scale: number } {
  let value = 0;
  let scale = 0;
  for (let k = 0; k < size; k++) {
    const product = inputs.a[row * size + k] * inputs.b[k * size + col];
    value += product;
    scale += Math.abs(product);
  }
  return { value, scale };
}

/** |actual − expected| / scale; a NaN or infinite result counts as an infinite error. */
export function relativeError(actual: number, expected: number, scale: number): number {
  if (!Number.isFinite(actual)) return Infinity;
  const difference = Math.abs(actual - expected);
  if (difference === 0) return 0;
  return difference / Math.max(scale, Number.MIN_VALUE);
}

/**
 * Largest relative error a correct product may show. float32: 1e-3 covers a float32
 * dot product's worst-case growth (n·2⁻²⁴ is 5e-4 at n = 8192) and TensorFloat-32, which
 * GPUs may use for float32 matmul (2⁻¹¹ per product); above n = 16777, where n·2⁻²⁴
 * passes 1e-3, it grows as n·2⁻²⁴.
 * float16 and bfloat16 round every output to 11 and 8 significant bits (assuming float32
 * accumulation, as every BLAS does), so 1e-2 and 5e-2.
 * tf32 rounds both inputs of every product to 11 significant bits (2⁻¹¹ each, 2⁻¹⁰ for the
 * product) and accumulates in float32: 2⁻⁹ leaves twice that, or float32's growth when larger.
 */
export function errorThreshold(dtype: Dtype, size: number): number {
  switch (dtype) {
    case 'float32':
      return Math.max(1e-3, size * 2 ** -24);
    case 'tf32':
      return Math.max(2 ** -9, size * 2 ** -24);
    case 'float16':
      return 1e-2;
    case 'bfloat16':
      return 5e-2;
  }
}

export interface ProductCheck {
  passed: boolean;
  /** Largest relative error of the sampled entries. */
  maxRelError: number;
  checkedEntries: number;
  /** Largest relative error of the row checksum C·x against A·(B·x). */
  checksumRelError: number;
  threshold: number;
  /** The worst sampled entry, for the failure message. */
  worst: { row: number; col: number; expected: number; actual: number } | null;
  /** Why the check failed, in one sentence; null when it passed. */
  failure: string | null;
}

export interface ProductCheckInput {
  size: number;
  dtype: Dtype;
  inputs: MatmulInputs;
  /** The engine's product, row-major, converted to float32 or float64 values. */
  product: ArrayLike<number>;
  seed: number;
  samples: number;
}

export function checkProduct(input: ProductCheckInput): ProductCheck {
  const { size, inputs, product } = input;
  if (product.length !== size * size) {
    throw new RangeError(`The product has ${product.length} entries, not ${size}² = ${size * size}.`);
  }
  const threshold = errorThreshold(input.dtype, size);
  let maxRelError = 0;
  let worst: ProductCheck['worst'] = null;
  const positions = samplePositions(size, input.samples, input.seed);
  for (const { row, col } of positions) {
    const { value, scale } = referenceEntry(inputs, size, row, col);
    const actual = product[row * size + col];
    const error = relativeError(actual, value, scale);
    if (worst === null || error > maxRelError) {
      maxRelError = error;
      worst = { row, col, expected: value, actual };
    }
  }
  const checksumRelError = rowChecksumError(input, seededRandom(input.seed ^ 0xc0ffee));
  const failure = describeFailure(maxRelError, checksumRelError, threshold, worst);
  return { passed: failure === null, maxRelError, checkedEntries: positions.length, checksumRelError, threshold, worst, failure };
}

/** Freivalds' check: max over rows of |(C·x)_i − (A·(B·x))_i| / (|A|·(|B|·x))_i, x in [0.5, 1.5). */
function rowChecksumError(input: ProductCheckInput, random: () => number): number {
  const { size, inputs, product } = input;
  const x = Float64Array.from({ length: size }, () => 0.5 + random());
  const bx = new Float64Array(size);
  const absBx = new Float64Array(size);
  for (let k = 0; k < size; k++) {
    let sum = 0;
    let abs = 0;
    for (let j = 0; j < size; j++) {
      const term = inputs.b[k * size + j] * x[j];
      sum += term;
      abs += Math.abs(term);
    }
    bx[k] = sum;
    absBx[k] = abs;
  }
  let worst = 0;
  for (let i = 0; i < size; i++) {
    let expected = 0;
    let scale = 0;
    let actual = 0;
    for (let k = 0; k < size; k++) {
      const a = inputs.a[i * size + k];
      expected += a * bx[k];
      scale += Math.abs(a) * absBx[k];
      actual += product[i * size + k] * x[k];
    }
    const error = relativeError(actual, expected, scale);
    if (!(error <= worst)) worst = error;
  }
  return worst;
}

function describeFailure(maxRelError: number, checksumRelError: number, threshold: number, worst: ProductCheck['worst']): string | null {
  if (maxRelError > threshold && worst) {
    return `Wrong product: entry [${worst.row}, ${worst.col}] is ${worst.actual}, the float64 reference is ${worst.expected} (relative error ${maxRelError.toExponential(2)}, allowed ${threshold.toExponential(1)}).`;
  }
  if (checksumRelError > threshold) {
    return `Wrong product: a row checksum is off by ${checksumRelError.toExponential(2)} relative (allowed ${threshold.toExponential(1)}), so some entry outside the sampled ones is wrong.`;
  }
  return null;
}
