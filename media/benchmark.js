// The Matmul Benchmark view's only script (loaded with the page's CSP nonce). It sends button
// clicks to the extension and applies what the extension sends back: a new body (HTML the
// extension rendered and escaped, charts included), the header's buttons, a short notice.
// It builds no HTML itself and draws nothing: the charts are SVG from the extension.
// @ts-check
(function () {
  // eslint-disable-next-line no-undef
  const vscode = acquireVsCodeApi();
  const results = document.getElementById('results');
  const actions = document.getElementById('actions');
  const notice = document.getElementById('notice');
  let noticeTimer;

  document.addEventListener('click', (event) => {
    const target = event.target instanceof Element ? event.target.closest('button[data-action]') : null;
    if (!(target instanceof HTMLButtonElement) || target.disabled) return;
    const message = { type: target.dataset.action };
    if (target.dataset.runId) message.runId = target.dataset.runId;
    vscode.postMessage(message);
  });

  function showNotice(text) {
    if (!notice) return;
    notice.textContent = text;
    clearTimeout(noticeTimer);
    noticeTimer = setTimeout(() => { notice.textContent = ''; }, 4000);
  }

  window.addEventListener('message', (event) => {
    const message = event.data;
    if (!message || typeof message.type !== 'string') return;
    if (message.type === 'body' && typeof message.html === 'string' && results) {
      // Kept by VS Code across a reload: the restored panel shows this run again, even if the
      // history lost it with the window (the run itself is kept, not only its id).
      vscode.setState({ runId: typeof message.runId === 'string' ? message.runId : null, entry: message.entry ?? null });
      results.innerHTML = message.html;
      if (typeof message.actions === 'string' && actions) actions.innerHTML = message.actions;
    } else if (message.type === 'notice' && typeof message.text === 'string') {
      showNotice(message.text);
    }
  });

  vscode.postMessage({ type: 'ready' });
})();
