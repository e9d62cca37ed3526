import { createHash } from 'node:crypto'

// The page's only style and script; the Content-Security-Policy allows exactly these by hash.
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
`

const SCRIPT = `
(function () {
  var form = document.getElementById('reset');
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
    show('This link holds no reset token. Ask for a new password reset e-mail.', true);
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
    fetch('reset-password', {
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
          show('Your password has been changed. You can sign in with it now.', false);
        } else {
          button.disabled = false;
          show(result.body && result.body.detail ? result.body.detail : 'The password could not be changed.', true);
        }
      }, function () {
        button.disabled = false;
        show('The server could not be reached; try again.', true);
      });
  });
})();
`

/** The D-37 page: a form that sets a new password with the token of the reset link. Self-contained. */
export const RESET_PAGE_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>Choose a new password</title>
<style>${STYLE}</style>
</head>
<body>
<main>
<h1>Choose a new password</h1>
<form id="reset" novalidate>
<label for="password">New password (8 to 128 characters)</label>
<input id="password" name="password" type="password" autocomplete="new-password" required minlength="8" maxlength="128">
<label for="repeat">The same password again</label>
<input id="repeat" name="repeat" type="password" autocomplete="new-password" required minlength="8" maxlength="128">
<button id="submit" type="submit">Set password</button>
</form>
<p id="message" role="status"></p>
</main>
<script>${SCRIPT}</script>
</body>
</html>
`

function sha256Source(text: string): string {
  return `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`
}

/**
 * Headers of the page: nothing but its own inline style and script may run, it may only call this
 * origin, it is never framed or cached, and the token in its address never leaves as a Referer.
 */
export const RESET_PAGE_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'content-security-policy': [
    "default-src 'none'",
    `style-src ${sha256Source(STYLE)}`,
    `script-src ${sha256Source(SCRIPT)}`,
    "connect-src 'self'",
    "form-action 'none'",
    "frame-ancestors 'none'",
    "base-uri 'none'"
  ].join('; ')
}
