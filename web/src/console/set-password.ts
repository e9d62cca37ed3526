import { field, h, replace } from '../shared/dom'
import { ApiError } from '../shared/http'
import { fieldErrors } from './field-errors'
import { setPassword } from './session'

/** Whether this is the invitation's page: `/console/set-password?token=…` (D-15). */
export function isSetPasswordPage(): boolean {
  return /\/set-password\/?$/.test(location.pathname)
}

/** An invited staff member chooses a password with the token of their e-mail, then signs in. */
export function renderSetPassword(root: HTMLElement, shopName: string): void {
  const token = new URLSearchParams(location.search).get('token') ?? ''
  const password = h('input', { type: 'password', name: 'new-password', autocomplete: 'new-password', required: true, maxlength: 128 })
  const again = h('input', { type: 'password', name: 'repeat-password', autocomplete: 'new-password', required: true, maxlength: 128 })
  const alert = h('p', { class: 'alert', role: 'alert' })
  const button = h('button', { type: 'submit', class: 'primary' }, 'Set my password')
  const errors = fieldErrors(alert, [{ control: password, label: 'Password', pointers: ['/password'] }])
  const form = h(
    'form',
    { novalidate: true },
    field('New password', password, '8 to 128 characters.'),
    field('Repeat the password', again),
    button,
    alert
  )
  const section = h(
    'section',
    { class: 'card', 'aria-labelledby': 'set-password-title' },
    h('h2', { id: 'set-password-title' }, 'Your password'),
    form
  )
  form.addEventListener('submit', async (event) => {
    event.preventDefault()
    errors.clear()
    if ([...password.value].length < 8) return errors.mark(password, 'Password must have at least 8 characters.')
    if (again.value !== password.value) return errors.mark(again, 'The two passwords differ.')
    button.disabled = true
    try {
      await setPassword(token, password.value)
      replace(
        section,
        h('h2', { id: 'set-password-title', tabindex: -1 }, 'Your password is set'),
        h(
          'p',
          { role: 'status' },
          'You can sign in now with your e-mail and this password. ',
          h('a', { href: '/console/' }, 'Go to sign-in')
        )
      )
      section.querySelector<HTMLElement>('h2')?.focus()
    } catch (error) {
      if (error instanceof ApiError && error.code === 'invalid_token') {
        alert.textContent = 'This link has expired or was used already: ask an admin of the shop to invite you again.'
      } else errors.show(error)
      button.disabled = false
    }
  })
  document.title = `Set your password · ${shopName || 'Staff console'}`
  replace(
    root,
    h(
      'main',
      { class: 'signin', id: 'main' },
      h('h1', { class: 'page-title', tabindex: -1 }, shopName === '' ? 'Staff console' : `${shopName} staff console`),
      h('p', { class: 'lede' }, 'Welcome. Choose the password you will sign in with.'),
      token === ''
        ? h('p', { class: 'alert', role: 'alert' }, 'This link has no token: open the whole link from your invitation e-mail.')
        : null,
      section
    )
  )
  password.focus()
}
