// Code-action requests that VS Code sends while the language client is stopping (every window
// reload: the editor asks for the cursor's actions as the extension host shuts down) were
// rejected by the closing connection, and the extension host logged "provider FAILED" and
// "Starting server failed" (issue 28 item 12). They are answered empty instead: nothing is
// lost, as the window that asked is going away. A failure while the client runs still surfaces.
// No vscode import, so it is unit-tested.

/**
 * Runs `request` when the client is running; otherwise, or when it fails because the client
 * stopped (or the request was cancelled) meanwhile, answers `empty`.
 */
export async function whileRunning<T>(running: () => boolean, cancelled: () => boolean, request: () => Thenable<T> | T, empty: T): Promise<T> {
  if (!running() || cancelled()) return empty;
  try {
    return await request();
  } catch (error) {
    if (!running() || cancelled()) return empty;
    throw error;
  }
}
