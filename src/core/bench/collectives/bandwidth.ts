// nccl-tests' bandwidths (its doc/PERFORMANCE.md): the algorithm bandwidth is the bytes of
// the operation over its time; the bus bandwidth scales it by how much each rank's link must
// carry, so that it reads against the hardware's link speed whatever the number of ranks.
// The one copy of these formulas Device Doctor trusts: collectives.py prints its own for
// people reading it under torchrun, and the reader recomputes them here.

export const COLLECTIVES = ['all-reduce', 'all-gather', 'broadcast', 'send-recv'] as const;
export type Collective = (typeof COLLECTIVES)[number];

export function isCollective(name: string): name is Collective {
  return (COLLECTIVES as readonly string[]).includes(name);
}

/**
 * busbw / algbw for `ranks` ranks: an all-reduce (ring: reduce-scatter then all-gather)
 * sends 2(n−1)/n of the data over each link, an all-gather (n−1)/n; a broadcast and a
 * point-to-point send move each byte once.
 */
export function busFactor(collective: Collective, ranks: number): number {
  if (!Number.isInteger(ranks) || ranks < 1) throw new RangeError(`ranks must be a whole number >= 1, not ${ranks}`);
  switch (collective) {
    case 'all-reduce':
      return (2 * (ranks - 1)) / ranks;
    case 'all-gather':
      return (ranks - 1) / ranks;
    case 'broadcast':
    case 'send-recv':
      return 1;
  }
}

/** GB/s (1e9 bytes, as nccl-tests prints) of `bytes` in `seconds`; null when the time is not positive. */
export function algorithmBandwidth(bytes: number, seconds: number): number | null {
  return seconds > 0 && Number.isFinite(seconds) ? bytes / seconds / 1e9 : null;
}

export function busBandwidth(collective: Collective, ranks: number, bytes: number, seconds: number): number | null {
  const algbw = algorithmBandwidth(bytes, seconds);
  return algbw === null ? null : algbw * busFactor(collective, ranks);
}
