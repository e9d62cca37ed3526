import { h, uid } from '../shared/dom'
import { ApiError } from '../shared/http'
import { errorText } from './ui'

type Control = HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement

/** A control the server may name in a problem's `errors[]` (D-20), by JSON pointer or by code. */
export interface ErrorField {
  control: Control
  /** The words that start its message: `Phone` → "Phone must have 7 to 15 digits." */
  label: string
  /** JSON pointers of the request body that mean this control (`/customer/phone`). */
  pointers: readonly string[]
  /** Problem codes without `errors[]` that are about this control (`email_taken`). */
  codes?: Readonly<Record<string, string>>
}

/** Shows a form's failures: each field's message beside its input, the rest in the form's alert. */
export interface FieldErrors {
  /** Empties every message (before a new attempt). */
  clear(): void
  /** Shows a failure and focuses the first control it marked. */
  show(error: unknown): void
  /** Marks one control by hand (a check made before calling the server). */
  mark(control: Control, message: string): void
}

export function fieldErrors(alert: HTMLElement, fields: readonly ErrorField[]): FieldErrors {
  const slots = new Map<Control, HTMLElement>()
  const slot = (control: Control): HTMLElement => {
    let found = slots.get(control)
    if (found === undefined) {
      found = h('p', { class: 'field-error', id: uid('error') })
      const box = control.closest('.field') ?? control.parentElement
      box?.append(found)
      slots.set(control, found)
    }
    return found
  }
  const setMessage = (control: Control, message: string): void => {
    const element = slot(control)
    element.textContent = message
    const described = (control.getAttribute('aria-describedby') ?? '').split(' ').filter((id) => id !== '' && id !== element.id)
    if (message === '') {
      control.removeAttribute('aria-invalid')
      if (described.length > 0) control.setAttribute('aria-describedby', described.join(' '))
      else control.removeAttribute('aria-describedby')
    } else {
      control.setAttribute('aria-invalid', 'true')
      control.setAttribute('aria-describedby', [element.id, ...described].join(' '))
    }
  }
  const sentence = (label: string, message: string) => `${label} ${message.replace(/\.$/, '')}.`
  const clear = (): void => {
    alert.textContent = ''
    for (const control of slots.keys()) setMessage(control, '')
  }
  const mark = (control: Control, message: string): void => {
    setMessage(control, message)
    alert.textContent = 'Check the marked fields.'
    control.focus()
  }
  const show = (error: unknown): void => {
    clear()
    const marked: Control[] = []
    const rest: string[] = []
    if (error instanceof ApiError) {
      for (const fault of error.errors) {
        const match = fields.find((f) => f.pointers.includes(fault.field))
        if (match === undefined) rest.push(`${fault.field.split('/').pop() ?? fault.field} ${fault.message}`)
        else {
          setMessage(match.control, sentence(match.label, fault.message))
          marked.push(match.control)
        }
      }
      if (error.errors.length === 0) {
        const match = fields.find((f) => f.codes?.[error.code] !== undefined)
        if (match !== undefined) {
          setMessage(match.control, match.codes?.[error.code] ?? error.detail)
          marked.push(match.control)
        }
      }
    }
    // The alert region says it in words too, so a screen reader hears it at once.
    alert.textContent =
      marked.length === 0
        ? errorText(error)
        : rest.length === 0
          ? 'Check the marked fields.'
          : `Check the marked fields; also ${rest.join('; ')}.`
    marked[0]?.focus()
  }
  return { clear, show, mark }
}
