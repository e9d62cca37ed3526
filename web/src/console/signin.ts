import { field, h, replace } from '../shared/dom'
import type { ConsoleConfig } from '../shared/staff-types'
import { type SignedIn, startSession } from './session'
import { setupSection } from './setup'
import { signInError } from './ui'

/** A line above the sign-in form: `info` after signing out, `alert` when a session was lost. */
export interface SignInMessage {
  text: string
  tone: 'info' | 'alert'
}

/**
 * The sign-in page: e-mail and password (D-16). While no staff account exists (`setup_needed`), it
 * first says how the first admin is made and offers that form (setup.ts).
 */
export function renderSignIn(
  root: HTMLElement,
  config: ConsoleConfig | null,
  onSignedIn: (session: SignedIn) => void,
  message: SignInMessage | null = null
): void {
  const email = h('input', { type: 'email', name: 'email', autocomplete: 'username', required: true, maxlength: 254, spellcheck: 'false' })
  const password = h('input', { type: 'password', name: 'password', autocomplete: 'current-password', required: true, maxlength: 1024 })
  const alert = h('p', { class: 'alert', role: 'alert' }, message?.tone === 'alert' ? message.text : '')
  const note = h('p', { class: 'note', role: 'status' }, message?.tone === 'info' ? message.text : '')
  const button = h('button', { type: 'submit', class: 'primary' }, 'Sign in')
  const form = h('form', { class: 'signin-form', novalidate: true }, field('E-mail', email), field('Password', password), button, alert)
  form.addEventListener('submit', async (event) => {
    event.preventDefault()
    note.textContent = ''
    if (email.value.trim() === '' || password.value === '') {
      alert.textContent = 'Enter your e-mail and your password.'
      ;(email.value.trim() === '' ? email : password).focus()
      return
    }
    button.disabled = true
    alert.textContent = ''
    try {
      onSignedIn(await startSession(email.value.trim(), password.value))
    } catch (error) {
      alert.textContent = signInError(error)
      button.disabled = false
      password.value = ''
      password.focus()
    }
  })
  const shop = config?.shop_name ?? ''
  document.title = `Sign in · ${shop || 'Staff console'}`
  const setup = config?.setup_needed === true ? setupSection(onSignedIn) : null
  replace(
    root,
    h(
      'main',
      { class: 'signin', id: 'main' },
      h('h1', { class: 'page-title', tabindex: -1 }, shop === '' ? 'Staff console' : `${shop} staff console`),
      h('p', { class: 'lede' }, 'Sign in to run the shop: the board, orders, customers and the catalogue.'),
      config === null
        ? h('p', { class: 'alert', role: 'alert' }, 'The server could not be reached; check the connection and reload the page.')
        : null,
      note,
      setup,
      h(
        'section',
        { class: 'card', 'aria-labelledby': 'signin-title' },
        h('h2', { id: 'signin-title' }, 'Sign in'),
        form,
        h('p', { class: 'hint' }, 'Forgot your password, or no account yet? Ask an admin of the shop to send you an invitation.')
      )
    )
  )
  if (setup === null) email.focus()
  else root.querySelector<HTMLElement>('h1')?.focus()
}
