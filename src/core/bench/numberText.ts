// Numbers as every benchmark view prints them: a few significant figures in plain decimals.
// One place, so the CLI table, the Markdown export and the panel never disagree on a value.

/**
 * `digits` significant figures, never in exponent notation: an IQR of 7.5e-7 ms beside a
 * median of 0.00638 ms reads as another unit (and broke a column that expects decimals).
 */
export function significant(value: number, digits = 3): string {
  if (value === 0 || !Number.isFinite(value)) return String(value);
  const rounded = Number(value.toPrecision(digits));
  const text = rounded.toString();
  if (!/e-/.test(text)) return text;
  // toString turns to exponents below 1e-6; toFixed keeps the same significant figures.
  const decimals = digits - 1 - Math.floor(Math.log10(Math.abs(rounded)));
  return rounded.toFixed(Math.min(decimals, 100)).replace(/0+$/, '');
}

/** "14 %" from 10 % up, "0.52 %" below: two figures where they matter. */
export function percentText(percent: number): string {
  return percent >= 10 ? `${Math.round(percent)} %` : `${significant(percent, 2)} %`;
}
