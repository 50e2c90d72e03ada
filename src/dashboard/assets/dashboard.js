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

// Importing monitors from a CSV: a chosen file is read into the form's textarea (FileReader), so
// the form stays a plain urlencoded post carrying its CSRF field, as it is without JavaScript. The
// file input has no name (never sent) and is shown only here, where something reads it.
function showCsvFileFields() {
  for (const field of document.querySelectorAll('[data-csv-import] [data-csv-file]')) field.hidden = false;
}
document.addEventListener('DOMContentLoaded', showCsvFileFields);
document.addEventListener('htmx:afterSettle', showCsvFileFields);

function megabytes(bytes) {
  return `${(bytes / (1024 * 1024)).toFixed(1).replace(/\.0$/, '')} MB`;
}

/** The file field's message: what was read, or (shown as an error) why nothing will be sent. */
function sayCsv(status, text, problem = false) {
  say(status, text);
  status?.classList.toggle('field-error', problem);
}

/** The bytes the form will post: its fields urlencoded, each line break sent as CR LF. */
function postedBytes(form) {
  const encoded = new URLSearchParams(new FormData(form)).toString();
  const text = form.querySelector('textarea[name="csv"]').value;
  return encoded.length + (text.match(/(?<!\r)\n/g)?.length ?? 0) * 3;
}

document.addEventListener('change', (event) => {
  const input = event.target;
  const form =
    input instanceof HTMLInputElement && input.type === 'file' ? input.closest('[data-csv-import]') : null;
  const file = form ? input.files[0] : undefined;
  if (!file) return;
  const status = form.querySelector('#import-file-status');
  const limit = Number(form.dataset.bodyLimit);
  // Refused before reading: the server would refuse the post anyway, after the upload.
  if (file.size > limit) {
    say(
      status,
      `${file.name} is ${megabytes(file.size)}, more than the ${megabytes(limit)} this form takes: import it through the API.`,
    );
    input.value = '';
    return;
  }
  form.dataset.reading = 'yes';
  sayCsv(status, `Reading ${file.name}…`);
  const reader = new FileReader();
  reader.addEventListener('load', () => {
    const textarea = form.querySelector('textarea[name="csv"]');
    textarea.value = reader.result;
    textarea.removeAttribute('aria-invalid');
    const rows = reader.result.split(/\r?\n/).filter((line) => line.trim() !== '').length - 1;
    say(
      status,
      `${file.name}: ${rows === 1 ? '1 row' : `${Math.max(rows, 0)} rows`} below the header, read into the text below. Import when ready.`,
    );
    delete form.dataset.reading;
  });
  reader.addEventListener('error', () => {
    sayCsv(status, `${file.name} could not be read. Paste its text instead.`, true);
    delete form.dataset.reading;
  });
  reader.readAsText(file);
});

// Caught on the way down (capture), before htmx's own listener on the form sees the submit: a file
// still being read, or a text over the limit, is not posted.
document.addEventListener(
  'submit',
  (event) => {
    const form = event.target instanceof Element ? event.target.closest('[data-csv-import]') : null;
    if (!form) return;
    const status = form.querySelector('#import-file-status');
    const limit = Number(form.dataset.bodyLimit);
    let problem;
    if (form.dataset.reading) problem = 'The file is still being read; import once it is.';
    else if (postedBytes(form) > limit)
      problem = `The text is more than the ${megabytes(limit)} this form takes: import it through the API.`;
    if (!problem) return;
    event.preventDefault();
    event.stopPropagation();
    sayCsv(status, problem, true);
  },
  true,
);
