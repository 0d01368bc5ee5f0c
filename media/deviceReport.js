// The device report view's only script (loaded with the page's CSP nonce). It sends button
// clicks to the extension and applies what the extension sends back: a new report body
// (HTML the extension escaped), live memory numbers, the history sparklines (SVG the extension
// built), a short notice. It builds no HTML itself.
// @ts-check
(function () {
  // eslint-disable-next-line no-undef
  const vscode = acquireVsCodeApi();
  const report = document.getElementById('report');
  const notice = document.getElementById('notice');
  let noticeTimer;

  document.addEventListener('click', (event) => {
    const target = event.target instanceof Element ? event.target.closest('button[data-action]') : null;
    if (target instanceof HTMLElement) vscode.postMessage({ type: target.dataset.action });
  });

  function applyMemory(updates) {
    for (const element of document.querySelectorAll('[data-memory-id]')) {
      const update = updates.find((u) => u.id === element.getAttribute('data-memory-id'));
      if (!update) continue;
      if (element instanceof HTMLMeterElement) {
        if (typeof update.total === 'number') element.max = update.total;
        if (typeof update.used === 'number') element.value = update.used;
        element.textContent = update.text;
      } else {
        element.textContent = update.text;
        element.classList.toggle('warn', update.warn === true);
      }
    }
  }

  function applyHistory(updates) {
    for (const element of document.querySelectorAll('[data-history-id]')) {
      const update = updates.find((u) => u.id === element.getAttribute('data-history-id'));
      // The extension built and escaped this SVG (deviceReportHtml.historyUpdates).
      if (update && typeof update.html === 'string') element.innerHTML = update.html;
    }
  }

  function showNotice(text) {
    if (!notice) return;
    notice.textContent = text;
    clearTimeout(noticeTimer);
    noticeTimer = setTimeout(() => { notice.textContent = ''; }, 3000);
  }

  window.addEventListener('message', (event) => {
    const message = event.data;
    if (!message || typeof message.type !== 'string') return;
    if (message.type === 'body' && typeof message.html === 'string' && report) report.innerHTML = message.html;
    else if (message.type === 'memory' && Array.isArray(message.updates)) applyMemory(message.updates);
    else if (message.type === 'history' && Array.isArray(message.updates)) applyHistory(message.updates);
    else if (message.type === 'notice' && typeof message.text === 'string') showNotice(message.text);
  });

  vscode.postMessage({ type: 'ready' });
})();
