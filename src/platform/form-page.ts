import { createHash } from 'node:crypto'

// The look of the small self-contained pages behind e-mailed links (D-37 reset, D-15 set
// password): their only style, allowed by hash in each page's Content-Security-Policy.
const STYLE = `
body { font: 16px/1.5 system-ui, sans-serif; margin: 0; background: #f4f5f7; color: #1d2330; }
main { max-width: 24rem; margin: 4rem auto; padding: 2rem; background: #fff; border-radius: 8px; box-shadow: 0 1px 4px rgba(0,0,0,.12); }
h1 { font-size: 1.4rem; margin: 0 0 1rem; }
label { display: block; margin: 1rem 0 .25rem; }
input { box-sizing: border-box; width: 100%; padding: .5rem; font: inherit; border: 1px solid #9aa3b2; border-radius: 4px; }
button { margin-top: 1.5rem; width: 100%; padding: .6rem; font: inherit; color: #fff; background: #2457c5; border: 0; border-radius: 4px; cursor: pointer; }
button:disabled { opacity: .6; cursor: default; }
#message { margin: 1rem 0 0; }
#message.error { color: #b00020; }
a { color: #2457c5; }
`

/** What one page says and where its form goes. */
export interface NewPasswordPage {
  /** The title, also its heading. */
  title: string
  formId: string
  submitLabel: string
  /** Where the form posts `{token, password}`, relative to the page (PUBLIC_URL may have a path). */
  endpoint: string
  /** Said when the address holds no token. */
  noToken: string
  /** Said when the password could not be set and the answer says nothing better. */
  failed: string
  /** Said once the password is set. */
  done: string
  /** A link shown after `done`, relative to the page. */
  doneLink?: { href: string; text: string }
}

/** The page's script: reads the token from the address, checks the two passwords, posts them as JSON. */
function scriptOf(page: NewPasswordPage): string {
  const text = JSON.stringify
  const link =
    page.doneLink === undefined
      ? ''
      : `
          var link = document.createElement('a');
          link.href = ${text(page.doneLink.href)};
          link.textContent = ${text(page.doneLink.text)};
          message.appendChild(link);`
  return `
(function () {
  var form = document.getElementById(${text(page.formId)});
  var button = document.getElementById('submit');
  var message = document.getElementById('message');
  var token = new URLSearchParams(location.search).get('token') || '';
  // Keep the token out of the address bar and the history once it has been read.
  if (location.search) history.replaceState(null, '', location.pathname);
  function show(text, error) {
    message.textContent = text;
    message.className = error ? 'error' : '';
  }
  if (!token) {
    form.hidden = true;
    show(${text(page.noToken)}, true);
    return;
  }
  form.addEventListener('submit', function (event) {
    event.preventDefault();
    var password = form.elements.password.value;
    var length = Array.from(password).length;
    if (length < 8 || length > 128) return show('The password must have 8 to 128 characters.', true);
    if (password !== form.elements.repeat.value) return show('The two passwords are not the same.', true);
    button.disabled = true;
    show('Saving...', false);
    fetch(${text(page.endpoint).replace(/"/g, "'")}, {
      method: 'POST',
      credentials: 'omit',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: token, password: password })
    })
      .then(function (response) {
        return response.json().then(function (body) { return { ok: response.ok, body: body }; });
      })
      .then(function (result) {
        if (result.ok) {
          form.hidden = true;
          show(${text(page.done)}, false);${link}
        } else {
          button.disabled = false;
          show(result.body && result.body.detail ? result.body.detail : ${text(page.failed)}, true);
        }
      }, function () {
        button.disabled = false;
        show('The server could not be reached; try again.', true);
      });
  });
})();
`
}

/**
 * A page asking for a new password twice, with the token of its address (D-37, D-15): a labelled
 * form, a live status line, nothing loaded from elsewhere, and the headers that keep it so: only
 * its own style and script run (by hash), it calls only this origin, it is never framed or cached,
 * and the token in its address never leaves as a Referer.
 */
export function newPasswordPage(page: NewPasswordPage): { html: string; headers: Readonly<Record<string, string>> } {
  const script = scriptOf(page)
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${page.title}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
<h1>${page.title}</h1>
<form id="${page.formId}" novalidate>
<label for="password">New password (8 to 128 characters)</label>
<input id="password" name="password" type="password" autocomplete="new-password" required minlength="8" maxlength="128">
<label for="repeat">The same password again</label>
<input id="repeat" name="repeat" type="password" autocomplete="new-password" required minlength="8" maxlength="128">
<button id="submit" type="submit">${page.submitLabel}</button>
</form>
<p id="message" role="status"></p>
</main>
<script>${script}</script>
</body>
</html>
`
  return { html, headers: headersOf(script) }
}

function sha256Source(text: string): string {
  return `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`
}

function headersOf(script: string): Readonly<Record<string, string>> {
  return {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    'referrer-policy': 'no-referrer',
    'x-frame-options': 'DENY',
    'content-security-policy': [
      "default-src 'none'",
      `style-src ${sha256Source(STYLE)}`,
      `script-src ${sha256Source(script)}`,
      "connect-src 'self'",
      "form-action 'none'",
      "frame-ancestors 'none'",
      "base-uri 'none'"
    ].join('; ')
  }
}
