import './console.css'
import { h, replace } from '../shared/dom'
import type { ConsoleConfig } from '../shared/staff-types'
import { setShopTimeZone } from '../shared/time-zone'
import { Api } from './api'
import { renderBoard } from './board'
import { renderCatalogue } from './catalogue'
import { type Console, CustomerNames } from './context'
import { renderCustomers } from './customers'
import { renderOrders } from './orders-list'
import { endSession, forgetSession, loadConfig, resumeSession, type SignedIn } from './session'
import { drawShell, type Frame } from './shell'
import { renderSignIn, type SignInMessage } from './signin'
import { renderStaff } from './staff'
import { renderTransaction } from './transaction'
import { errorText, sessionLost, UNAUTHORIZED } from './ui'

const root = document.getElementById('app')!

let config: ConsoleConfig | null = null
let session: { api: Api; names: CustomerNames; me: SignedIn } | null = null
let frame: Frame | null = null
let rendering = 0
let pendingMessage = ''

const SESSION_ENDED = 'Your session has ended (signed out elsewhere, timed out, or the account changed). Sign in again.'

function signIn(me: SignedIn): void {
  const api = new Api(me.csrf_token)
  session = { api, names: new CustomerNames(api), me }
  frame = null
  if (location.hash === '' || location.hash === '#' || location.hash === '#/') location.hash = '#/board'
  else void route()
}

/** Back to sign-in: `ended` when the server already ended the session (a 401), else it is ended there too. */
async function signOut(message: SignInMessage, ended = false): Promise<void> {
  const me = session?.me ?? null
  session = null
  frame = null
  rendering += 1
  if (ended) forgetSession()
  else await endSession(me)
  // The first admin may have been made meanwhile: ask again whether set-up is needed.
  config = await loadConfig().catch(() => config)
  renderSignIn(root, config, signIn, message)
}

/** The shell of a signed-in console, drawn once per sign-in (shell.ts). */
function shell(): Frame {
  if (frame !== null && root.contains(frame.view)) return frame
  const me = session!.me
  frame = drawShell(root, config?.shop_name ?? '', me, () => void signOut({ text: 'You are signed out.', tone: 'info' }))
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
  const { view, links, say, clear } = shell()
  for (const link of links) {
    if (link.getAttribute('href') === active) link.setAttribute('aria-current', 'page')
    else link.removeAttribute('aria-current')
  }
  // A new page starts with an empty status line, or the message its caller left: never a stale one.
  if (pendingMessage === '') clear()
  else say(pendingMessage, 'ok')
  pendingMessage = ''
  const { api, names, me } = session
  const context: Console = {
    api,
    names,
    me,
    notify: (message) => say(message, 'ok'),
    fail: (error, where) => {
      if (sessionLost(error)) return void signOut({ text: SESSION_ENDED, tone: 'alert' }, true)
      const text = errorText(error)
      if (where !== undefined) {
        clear()
        where.textContent = text
      } else say(text, 'error')
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
    else if (section === 'orders') await renderOrders(context, view, rest)
    else if (section === 'customers') await renderCustomers(context, view, rest[0])
    else if (section === 'catalogue') await renderCatalogue(context, view, rest[0])
    else if (section === 'staff') await renderStaff(context, view)
    else
      replace(
        view,
        h('h1', { class: 'page-title', tabindex: -1 }, 'Not found'),
        h('p', {}, 'There is no such page in the console. ', h('a', { href: '#/board' }, 'Go to the board.'))
      )
  } catch (error) {
    if (!context.current()) return
    if (sessionLost(error)) return void signOut({ text: SESSION_ENDED, tone: 'alert' }, true)
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
  if (session !== null) void signOut({ text: SESSION_ENDED, tone: 'alert' }, true)
})

/** Reads the shop's name and time zone, then resumes this tab's session or asks to sign in. */
async function start(): Promise<void> {
  config = await loadConfig().catch(() => null)
  if (config !== null) setShopTimeZone(config.time_zone)
  const stored = await resumeSession()
  if (stored === null) renderSignIn(root, config, signIn)
  else signIn(stored)
}

void start()
