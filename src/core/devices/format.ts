// Human text for memory: the status bar's "20.0/140.4 GiB" and the doctor summary.

const GIB = 1024 ** 3;

/** "20.0 GiB"; "?" when unknown. */
export function formatBytes(bytes: number | null): string {
  return bytes === null ? '?' : `${(bytes / GIB).toFixed(1)} GiB`;
}

/** "20.0/140.4 GiB", "9.8/16 GiB" (a whole total drops its ".0"). */
export function formatMemory(usedBytes: number | null, totalBytes: number | null): string {
  const used = usedBytes === null ? '?' : (usedBytes / GIB).toFixed(1);
  return `${used}/${formatTotal(totalBytes)} GiB`;
}

function formatTotal(totalBytes: number | null): string {
  if (totalBytes === null) return '?';
  return totalBytes % GIB === 0 ? String(totalBytes / GIB) : (totalBytes / GIB).toFixed(1);
}
