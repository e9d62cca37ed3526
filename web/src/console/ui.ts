import { h, uid } from '../shared/dom'
import { ApiError } from '../shared/http'

/** Fired on window when a call answers 401: the key is no longer accepted. */
export const UNAUTHORIZED = 'console:unauthorized'

/** A sentence for a person about a failure. */
export function errorText(error: unknown): string {
  if (error instanceof ApiError) {
    if (error.code === 'rate_limited') return `Too many requests; try again in ${error.retryAfterSeconds ?? 60} seconds.`
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
    // A key revoked while signed in: the shell signs out (main.ts).
    if (error instanceof ApiError && error.status === 401) window.dispatchEvent(new CustomEvent(UNAUTHORIZED))
    else if (fail !== undefined) fail(error)
    else if (alert !== null) alert.textContent = errorText(error)
    return false
  } finally {
    button.disabled = false
    button.removeAttribute('aria-busy')
  }
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
