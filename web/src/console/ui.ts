import { h, uid } from '../shared/dom'
import { ApiError } from '../shared/http'
import { shopTime } from '../shared/time-zone'

/** Fired on window when a call shows the session is gone (sessionLost): the shell signs out. */
export const UNAUTHORIZED = 'console:unauthorized'

/**
 * Whether a failure means this tab's session is over: 401 (ended, expired, or the account was
 * disabled), or 403 `csrf_failed` (another sign-in in this browser replaced the cookie), D-16.
 */
export function sessionLost(error: unknown): boolean {
  return error instanceof ApiError && (error.status === 401 || (error.status === 403 && error.code === 'csrf_failed'))
}

/** Waiting time in words: `40 seconds`, `3 minutes`. */
function waitText(seconds: number): string {
  if (seconds < 90) return `${seconds} ${seconds === 1 ? 'second' : 'seconds'}`
  return `${Math.ceil(seconds / 60)} minutes`
}

/** Why a sign-in failed, in words (D-16, D-14). */
export function signInError(error: unknown): string {
  if (error instanceof ApiError && error.code === 'invalid_login') return 'That e-mail and password do not match an active staff account.'
  if (error instanceof ApiError && error.code === 'rate_limited')
    return `Too many sign-in attempts. Wait ${waitText(error.retryAfterSeconds ?? 60)}, then try again.`
  return errorText(error)
}

/** A sentence for a person about a failure. */
export function errorText(error: unknown): string {
  if (error instanceof ApiError) {
    if (error.code === 'rate_limited') return `Too many requests; try again in ${waitText(error.retryAfterSeconds ?? 60)}.`
    if (error.code === 'forbidden') return 'Your role may not do this; ask an admin.'
    // The API speaks of transactions; the console of orders.
    if (error.code === 'step_in_use') return 'Orders are at this step (open or closed), so it cannot be removed.'
    if (error.code === 'last_step') return 'A service needs at least one step, so its only step cannot be removed.'
    return error.detail
  }
  return 'Something went wrong in the console; reload the page and try again.'
}

/** An initially empty alert region for a form's failures. */
export function alertBox(): HTMLParagraphElement {
  return h('p', { class: 'alert', role: 'alert', id: uid('alert') })
}

/**
 * Runs `work` with the button disabled (a double tap does nothing twice), showing a failure in
 * `alert` if there is one; resolves true when it succeeded.
 */
export async function busy(
  button: HTMLButtonElement,
  alert: HTMLElement | null,
  work: () => Promise<void>,
  fail?: (error: unknown) => void
): Promise<boolean> {
  if (button.disabled) return false
  button.disabled = true
  button.setAttribute('aria-busy', 'true')
  if (alert !== null) alert.textContent = ''
  try {
    await work()
    return true
  } catch (error) {
    // A session that ended while signed in: the shell signs out (main.ts).
    if (sessionLost(error)) window.dispatchEvent(new CustomEvent(UNAUTHORIZED, { detail: error }))
    else if (fail !== undefined) fail(error)
    else if (alert !== null) alert.textContent = errorText(error)
    return false
  } finally {
    button.disabled = false
    button.removeAttribute('aria-busy')
  }
}

/** The sentence beside times shown or typed: every time in the console is the shop's (D-51). */
export function zoneNote(): HTMLParagraphElement {
  return h('p', { class: 'hint zone-note' }, `${shopTime.label}.`)
}

/**
 * A wide table that scrolls sideways on a narrow screen; the scrolling box takes keyboard focus
 * (arrow keys scroll it) and has a name of its own, unlike its section's.
 */
export function scrollBox(table: HTMLTableElement, label: string): HTMLDivElement {
  return h('div', { class: 'table-scroll', tabindex: 0, role: 'region', 'aria-label': label }, table)
}

/** A page heading that takes focus when a page is shown, so keyboard and screen reader users land on it. */
export function pageHeading(text: string): HTMLHeadingElement {
  return h('h1', { tabindex: -1, class: 'page-title' }, text)
}

/** A checkbox group for step events (D-41). */
export function eventsFieldset(legend: string, checked: readonly string[] = []): { element: HTMLFieldSetElement; values(): string[] } {
  const boxes = ['email', 'text', 'trak'].map((event) => {
    const id = uid(`event-${event}`)
    const input = h('input', { type: 'checkbox', id, name: 'events', value: event, checked: checked.includes(event) })
    return {
      input,
      element: h(
        'span',
        { class: 'check' },
        input,
        h('label', { for: id }, event === 'trak' ? 'tracking (trak)' : event === 'text' ? 'text message' : 'e-mail')
      )
    }
  })
  return {
    element: h(
      'fieldset',
      { class: 'events' },
      h('legend', {}, legend),
      boxes.map((b) => b.element)
    ),
    values: () => boxes.filter((b) => b.input.checked).map((b) => b.input.value)
  }
}

/** Text of a labelled input, trimmed. */
export function inputText(input: HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement): string {
  return input.value.trim()
}
