// The dashboard's own script (htmx aside): copy buttons, the confirmation dialog, focus after htmx
// swaps and a message when an htmx request fails. No inline script anywhere: CSP forbids it.

document.documentElement.classList.add('js');

function say(region, text) {
  if (region) region.textContent = text;
}

document.addEventListener('click', async (event) => {
  const button = event.target instanceof Element ? event.target.closest('[data-copy]') : null;
  if (!button) return;
  const source = document.getElementById(button.dataset.copy);
  if (!source) return;
  const status = button.closest('section')?.querySelector('.copy-status');
  try {
    await navigator.clipboard.writeText(source.textContent.trim());
    say(status, 'Copied to the clipboard.');
  } catch {
    // No clipboard access (plain http on another host, or refused): select the key instead.
    const range = document.createRange();
    range.selectNodeContents(source);
    const selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
    say(status, 'The key is selected: press Ctrl+C (⌘C on a Mac) to copy it.');
  }
});

// htmx asks before requests that carry hx-confirm; the question goes into an accessible modal
// dialog (focus moves to Cancel, Escape cancels, focus returns to the button afterwards).
document.addEventListener('htmx:confirm', (event) => {
  const question = event.detail.question;
  const dialog = document.getElementById('confirm-dialog');
  if (!question || !dialog) return;
  event.preventDefault();
  dialog.querySelector('#confirm-message').textContent = question;
  dialog.querySelector('#confirm-action').textContent = event.detail.elt.dataset.confirmAction || 'Confirm';
  dialog.returnValue = '';
  dialog.addEventListener(
    'close',
    () => {
      if (dialog.returnValue === 'confirm') event.detail.issueRequest(true);
    },
    { once: true },
  );
  dialog.showModal();
});

// After a swap, focus goes to what the new content marks (the new key, a notice, an error), so
// keyboard and screen-reader users land on the result.
document.addEventListener('htmx:afterSettle', () => {
  const target = document.querySelector('[data-focus]');
  if (target) target.focus();
  const flash = document.getElementById('flash');
  if (flash) flash.hidden = true;
});

document.addEventListener('htmx:responseError', (event) => {
  const flash = document.getElementById('flash');
  if (!flash) return;
  const text = event.detail.xhr.responseText;
  flash.textContent = text && text.length < 300 ? text : 'The request failed. Reload the page and try again.';
  flash.hidden = false;
  flash.focus();
});

// On a full page load, focus goes to what the page marks: the first field with an error, or the
// result of a screening, so keyboard and screen-reader users start there.
document.addEventListener('DOMContentLoaded', () => {
  const target = document.querySelector('[data-autofocus]');
  if (target) target.focus();
});
