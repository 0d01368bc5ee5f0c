// Sizes as nccl-tests' -b/-e take them, in binary units: the collective table and the P2P
// matrix, in the CLI and the editor.
const KIB = 1024;

/** 1 MiB, 512 KiB, 1 GiB. */
export function sizeText(bytes: number): string {
  const units: [number, string][] = [[KIB ** 3, 'GiB'], [KIB ** 2, 'MiB'], [KIB, 'KiB']];
  for (const [unit, name] of units) if (bytes >= unit) return `${Number((bytes / unit).toPrecision(4))} ${name}`;
  return `${bytes} B`;
}
