import { h, replace } from '../shared/dom'
import type { SignedIn } from './session'

/** The frame of a signed-in console: navigation, the status line and the page area. */
export interface Frame {
  /** Where pages draw themselves (inside the `main` landmark). */
  readonly view: HTMLElement
  readonly links: readonly HTMLAnchorElement[]
  /** Says something in the status line: `ok` for what just worked, `error` for what did not. */
  say(text: string, tone: 'ok' | 'error'): void
  /** Empties the status line (a new page, or a new error shown beside a form). */
  clear(): void
}

const SECTIONS = [
  { hash: '#/board', label: 'Board', admin: false },
  { hash: '#/orders', label: 'Orders', admin: false },
  { hash: '#/customers', label: 'Customers', admin: false },
  { hash: '#/catalogue', label: 'Catalogue', admin: false },
  { hash: '#/staff', label: 'Staff', admin: true }
] as const

/**
 * Draws the shell once per sign-in: the shop's name, the sections (Staff for admins only), who is
 * signed in with their role, sign-out, a status line and the page.
 */
export function drawShell(root: HTMLElement, shopName: string, me: SignedIn, onSignOut: () => void): Frame {
  const status = h('p', { class: 'status', role: 'status', 'aria-live': 'polite', id: 'status' })
  const view = h('div', { class: 'view' })
  const main = h('main', { id: 'main' }, status, view)
  const links = SECTIONS.filter((s) => !s.admin || me.role === 'admin').map((s) => h('a', { href: s.hash }, s.label))
  let pending = 0
  const clear = (): void => {
    cancelAnimationFrame(pending)
    status.textContent = ''
    status.className = 'status'
  }
  const say = (text: string, tone: 'ok' | 'error'): void => {
    clear()
    // Emptied first and filled on the next frame, so the same message twice is announced twice.
    pending = requestAnimationFrame(() => {
      status.textContent = text
      status.className = `status ${tone}`
    })
  }
  // A success line must never stand above a newer failure: whenever an alert region in the page
  // fills (a form's error, a field's error), the status line empties.
  new MutationObserver((records) => {
    for (const record of records) {
      const target = record.target instanceof Element ? record.target : record.target.parentElement
      const alert = target?.closest('[role="alert"]')
      const added = [...record.addedNodes].some((node) => node instanceof Element && node.matches('[role="alert"]:not(:empty)'))
      if ((alert !== null && alert !== undefined && (alert.textContent ?? '') !== '') || added) {
        if (status.classList.contains('ok')) clear()
        return
      }
    }
  }).observe(view, { subtree: true, childList: true, characterData: true })

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
      h('p', { class: 'brand' }, shopName || 'service-ordering', h('span', {}, ' · staff console')),
      h(
        'nav',
        { 'aria-label': 'Console' },
        h(
          'ul',
          {},
          links.map((link) => h('li', {}, link))
        )
      ),
      h(
        'div',
        { class: 'who' },
        h('p', {}, h('span', { class: 'visually-hidden' }, 'Signed in as '), me.name, ' ', h('span', { class: 'role' }, me.role)),
        h('button', { type: 'button', class: 'sign-out', onclick: onSignOut }, 'Sign out')
      )
    ),
    main
  )
  return { view, links, say, clear }
}
