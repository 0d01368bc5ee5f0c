// The part of the `vscode` module's events that editor-glue tests stand in for: an
// EventEmitter whose `event` subscribes and returns a disposable, as vscode.EventEmitter does.
type Listener<T> = (event: T) => void;

export class EventEmitter<T> {
  private listeners = new Set<Listener<T>>();
  event = (listener: Listener<T>) => {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  };
  fire(event: T): void {
    for (const listener of [...this.listeners]) listener(event);
  }
  dispose(): void {
    this.listeners.clear();
  }
}
