import './widgets.css'
import { h, uid } from '../shared/dom'

/**
 * Asks before a change that is hard to undo, in a modal `<dialog>` (focus stays inside it, Escape
 * cancels). Resolves true on the confirming button only; focus goes back where it was.
 */
export function confirmDialog(title: string, text: string, confirmLabel: string): Promise<boolean> {
  const returnTo = document.activeElement instanceof HTMLElement ? document.activeElement : null
  const titleId = uid('confirm-title')
  const textId = uid('confirm-text')
  const yes = h('button', { type: 'button', class: 'primary', value: 'yes' }, confirmLabel)
  const no = h('button', { type: 'button', value: 'no' }, 'Cancel')
  const dialog = h(
    'dialog',
    { class: 'confirm', 'aria-labelledby': titleId, 'aria-describedby': textId },
    h('h2', { id: titleId }, title),
    h('p', { id: textId }, text),
    h('div', { class: 'inline' }, yes, no)
  )
  document.body.append(dialog)
  return new Promise((resolve) => {
    let answer = false
    yes.addEventListener('click', () => {
      answer = true
      dialog.close()
    })
    no.addEventListener('click', () => dialog.close())
    dialog.addEventListener('close', () => {
      dialog.remove()
      returnTo?.focus()
      resolve(answer)
    })
    dialog.showModal()
    no.focus()
  })
}
