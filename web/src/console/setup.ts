import { field, h } from '../shared/dom'
import { ApiError, postJson } from '../shared/http'
import type { StaffView } from '../shared/staff-types'
import { newIdempotencyKey } from './api'
import { fieldErrors } from './field-errors'
import { type SignedIn, startSession } from './session'
import { signInError } from './ui'

function basicHeader(key: string): string {
  const bytes = new TextEncoder().encode(key)
  let binary = ''
  for (const byte of bytes) binary += String.fromCharCode(byte)
  return `Basic ${btoa(binary)}`
}

/**
 * First run (`setup_needed`, D-15): no staff account exists yet, so the first admin is made with the
 * initial API key the server wrote at its first start. The key goes with that one request only and
 * is kept nowhere; then the new admin signs in with e-mail and password.
 */
export function setupSection(onSignedIn: (session: SignedIn) => void): HTMLElement {
  const key = h('input', { type: 'password', name: 'initial-key', autocomplete: 'off', spellcheck: 'false', required: true })
  const name = h('input', { type: 'text', name: 'name', autocomplete: 'name', required: true, maxlength: 100 })
  const email = h('input', { type: 'email', name: 'email', autocomplete: 'username', required: true, maxlength: 254 })
  const password = h('input', { type: 'password', name: 'new-password', autocomplete: 'new-password', required: true, maxlength: 128 })
  const alert = h('p', { class: 'alert', role: 'alert' })
  const button = h('button', { type: 'submit', class: 'primary' }, 'Set up the first admin')
  const errors = fieldErrors(alert, [
    {
      control: key,
      label: 'The initial API key',
      pointers: [],
      codes: { unauthenticated: 'This key is not accepted: copy the whole line of the file.' }
    },
    { control: name, label: 'Name', pointers: ['/name'] },
    { control: email, label: 'E-mail', pointers: ['/email'], codes: { email_taken: 'A staff account already has this e-mail.' } },
    { control: password, label: 'Password', pointers: ['/password'] }
  ])
  const form = h(
    'form',
    { novalidate: true, class: 'setup-form' },
    field('Initial API key', key, 'The one line in data/initial-api-key. It is used for this request only and not kept.'),
    field('Your name', name),
    field('Your e-mail', email),
    field('Choose a password', password, '8 to 128 characters.'),
    button,
    alert
  )
  form.addEventListener('submit', async (event) => {
    event.preventDefault()
    errors.clear()
    const missing = [key, name, email, password].find((input) => input.value.trim() === '')
    if (missing !== undefined) return errors.mark(missing, 'This is needed.')
    if ([...password.value].length < 8) return errors.mark(password, 'Password must have at least 8 characters.')
    button.disabled = true
    try {
      await postJson<StaffView>(
        '/v1/staff/create',
        { email: email.value.trim(), name: name.value.trim(), role: 'admin', password: password.value },
        { authorization: basicHeader(key.value.trim()), 'idempotency-key': newIdempotencyKey() },
        'omit'
      )
      key.value = ''
      onSignedIn(await startSession(email.value.trim(), password.value))
    } catch (error) {
      if (error instanceof ApiError && (error.code === 'invalid_login' || error.code === 'rate_limited'))
        alert.textContent = signInError(error)
      else if (error instanceof ApiError && error.status === 403)
        errors.mark(key, 'This key may not make staff accounts: use the initial (admin) key.')
      else errors.show(error)
      button.disabled = false
    }
  })
  return h(
    'section',
    { class: 'card setup', 'aria-labelledby': 'setup-title' },
    h('h2', { id: 'setup-title' }, 'First run: set up the first admin'),
    h('p', {}, 'Nobody can sign in yet, because this shop has no staff accounts. The first one is an admin account, made here once:'),
    h(
      'ol',
      {},
      h(
        'li',
        {},
        'On the machine that runs the server, open the file ',
        h('code', {}, 'data/initial-api-key'),
        ' (in the DATA_DIR folder, if that is set). The server wrote it when it first started.'
      ),
      h('li', {}, 'Paste its line below, with your name, e-mail and a password of your choice.'),
      h('li', {}, 'You are then signed in as an admin, and can invite everyone else from the Staff page.')
    ),
    form,
    h(
      'p',
      { class: 'hint' },
      'Or, on that machine: ',
      h('code', {}, 'npm run cli -- staff create --email you@example.com --name "Your Name" --role admin'),
      ' prints a link where you choose your password.'
    )
  )
}
