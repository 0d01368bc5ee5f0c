// A log channel that stays quiet once it is closed. When the window reloads, VS Code disposes
// the extension's subscriptions (the output channel among them) while the worker may still be
// stopping; its "worker stopped" line would then throw "Channel has been closed" into the
// extension host's log. After dispose(), writes are dropped: the window is going away anyway.
// No vscode import, so it is unit-tested with a plain object.

const WRITES = new Set(['trace', 'debug', 'info', 'warn', 'error', 'append', 'appendLine', 'replace', 'clear', 'show', 'hide']);

export function closedSafe<T extends { dispose(): void }>(channel: T): T {
  let closed = false;
  return new Proxy(channel, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (typeof value !== 'function') return value;
      if (property === 'dispose') {
        return () => {
          closed = true;
          (value as () => void).call(target);
        };
      }
      if (typeof property === 'string' && WRITES.has(property)) {
        return (...args: unknown[]) => {
          if (closed) return undefined;
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      }
      return (value as (...a: unknown[]) => unknown).bind(target);
    },
  });
}
