// The interpreter's PyTorch version as rules compare it: "2.6.0+cu124", "2.7.0a0", "1.13.1".
/** Whether `version` is at least major.minor; undefined when it is unknown or unreadable (then a rule assumes nothing). */
export function torchAtLeast(version: string | undefined, major: number, minor: number): boolean | undefined {
  const m = version ? /^\s*(\d+)\.(\d+)/.exec(version) : null;
  if (!m) return undefined;
  const [have, haveMinor] = [Number(m[1]), Number(m[2])];
  return have > major || (have === major && haveMinor >= minor);
}
