import { field, h, replace } from '../shared/dom'
import { ApiError } from '../shared/http'
import { Api } from './api'
import { storeKey } from './session'

/**
 * The sign-in page: a staff API key, checked with a staff-only read (service statistics) before
 * it is kept in this tab's sessionStorage.
 */
export function renderSignIn(root: HTMLElement, onSignedIn: (api: Api) => void, message = ''): void {
  const key = h('input', {
    type: 'password',
    name: 'key',
    autocomplete: 'off',
    spellcheck: 'false',
    required: true,
    placeholder: 'KEY_ID:SECRET'
  })
  const alert = h('p', { class: 'alert', role: 'alert' }, message)
  const button = h('button', { type: 'submit', class: 'primary' }, 'Sign in')
  const form = h(
    'form',
    { class: 'card signin-form', novalidate: true },
    field('Staff API key', key, 'From `npm run cli -- api-key create --role staff`. Kept in this browser tab only, until you sign out.'),
    button,
    alert
  )
  form.addEventListener('submit', async (event) => {
    event.preventDefault()
    const value = key.value.trim()
    if (!/^[^:\s]+:\S+$/.test(value)) {
      alert.textContent = 'A staff API key looks like KEY_ID:SECRET.'
      key.focus()
      return
    }
    button.disabled = true
    alert.textContent = ''
    const api = new Api(value)
    try {
      await api.stats()
      storeKey(value)
      onSignedIn(api)
    } catch (error) {
      alert.textContent =
        error instanceof ApiError && error.status === 401
          ? 'This key is not accepted: check it, or ask for a new one.'
          : error instanceof ApiError && error.status === 403
            ? 'This key may not use the console: it needs a staff or admin key, not an app key.'
            : error instanceof ApiError
              ? error.detail
              : 'The server could not be reached.'
      button.disabled = false
      key.focus()
    }
  })
  replace(
    root,
    h(
      'main',
      { class: 'signin', id: 'main' },
      h('h1', { class: 'page-title', tabindex: -1 }, 'Staff console'),
      h('p', { class: 'lede' }, 'Sign in to run the shop: the board, orders, customers and the catalogue.'),
      form
    )
  )
  key.focus()
}
