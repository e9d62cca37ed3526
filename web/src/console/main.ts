import './console.css'
import { h, replace } from '../shared/dom'
import { ApiError } from '../shared/http'
import { Api } from './api'
import { renderBoard } from './board'
import { renderCatalogue } from './catalogue'
import { type Console, CustomerNames } from './context'
import { renderCustomers } from './customers'
import { forgetKey, storedKey } from './session'
import { renderSignIn } from './signin'
import { renderTransaction } from './transaction'
import { errorText, UNAUTHORIZED } from './ui'

const root = document.getElementById('app')!

let session: { api: Api; names: CustomerNames } | null = null
let rendering = 0

const SECTIONS = [
  { hash: '#/board', label: 'Board' },
  { hash: '#/customers', label: 'Customers' },
  { hash: '#/catalogue', label: 'Catalogue' }
] as const

function signIn(api: Api): void {
  session = { api, names: new CustomerNames(api) }
  if (location.hash === '' || location.hash === '#' || location.hash === '#/') location.hash = '#/board'
  else void route()
}

function signOut(message = ''): void {
  forgetKey()
  session = null
  frame = null
  rendering += 1
  renderSignIn(root, signIn, message)
}

let frame: { view: HTMLElement; status: HTMLElement; links: HTMLAnchorElement[] } | null = null
let pendingMessage = ''

/** The shell of a signed-in console, drawn once per sign-in: navigation, sign-out, a status line and the page. */
function shell(): NonNullable<typeof frame> {
  if (frame !== null && root.contains(frame.view)) return frame
  const status = h('p', { class: 'status', role: 'status', 'aria-live': 'polite', id: 'status' })
  const view = h('main', { id: 'main', class: 'view' })
  const links = SECTIONS.map((s) => h('a', { href: s.hash }, s.label))
  const signOutButton = h('button', { type: 'button', class: 'sign-out', onclick: () => signOut('You are signed out.') }, 'Sign out')
  replace(
    root,
    h(
      'a',
      {
        class: 'skip',
        href: '#main',
        onclick: (event: Event) => {
          event.preventDefault()
          view.querySelector<HTMLElement>('h1')?.focus()
        }
      },
      'Skip to content'
    ),
    h(
      'header',
      { class: 'top' },
      h('p', { class: 'brand' }, 'service-ordering', h('span', {}, ' · staff console')),
      h(
        'nav',
        { 'aria-label': 'Console' },
        h(
          'ul',
          {},
          links.map((link) => h('li', {}, link))
        )
      ),
      signOutButton
    ),
    status,
    view
  )
  frame = { view, status, links }
  return frame
}

/** Draws the page the address names (`#/board/Wash`, `#/transaction/trx_…`, …). */
async function route(): Promise<void> {
  if (session === null) return
  const ticket = ++rendering
  const [section = 'board', ...rest] = location.hash
    .replace(/^#\/?/, '')
    .split('/')
    .map((part) => {
      try {
        return decodeURIComponent(part)
      } catch {
        return part
      }
    })
  const active = section === 'transaction' ? '#/board' : `#/${section}`
  const { view, status, links } = shell()
  for (const link of links) {
    if (link.getAttribute('href') === active) link.setAttribute('aria-current', 'page')
    else link.removeAttribute('aria-current')
  }
  status.textContent = pendingMessage
  pendingMessage = ''
  const { api, names } = session
  const context: Console = {
    api,
    names,
    notify: (message) => {
      status.textContent = ''
      // Emptied first, so the same message twice is announced twice.
      requestAnimationFrame(() => (status.textContent = message))
    },
    fail: (error, where) => {
      if (error instanceof ApiError && error.status === 401) return signOut('Your key is no longer accepted; sign in again.')
      const text = errorText(error)
      if (where !== undefined) where.textContent = text
      else status.textContent = text
    },
    go: (hash, message = '') => {
      pendingMessage = message
      if (location.hash === hash) void route()
      else location.hash = hash
    },
    current: () => ticket === rendering && session !== null
  }
  replace(view, h('p', { class: 'loading' }, 'Loading…'))
  try {
    if (section === 'board') await renderBoard(context, view, rest[0])
    else if (section === 'transaction' && rest[0] !== undefined) await renderTransaction(context, view, rest[0])
    else if (section === 'customers') await renderCustomers(context, view, rest[0])
    else if (section === 'catalogue') await renderCatalogue(context, view, rest[0])
    else
      replace(
        view,
        h('h1', { class: 'page-title', tabindex: -1 }, 'Not found'),
        h('p', {}, 'There is no such page in the console. ', h('a', { href: '#/board' }, 'Go to the board.'))
      )
  } catch (error) {
    if (!context.current()) return
    if (error instanceof ApiError && error.status === 401) return signOut('Your key is no longer accepted; sign in again.')
    replace(
      view,
      h('h1', { class: 'page-title', tabindex: -1 }, 'This page could not be shown'),
      h('p', { class: 'alert', role: 'alert' }, errorText(error))
    )
  }
  if (context.current()) view.querySelector<HTMLElement>('h1')?.focus({ preventScroll: true })
}

window.addEventListener('hashchange', () => void route())
window.addEventListener(UNAUTHORIZED, () => {
  if (session !== null) signOut('Your key is no longer accepted; sign in again.')
})

const key = storedKey()
if (key === null) renderSignIn(root, signIn)
else signIn(new Api(key))
