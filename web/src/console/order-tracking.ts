import { h, replace, uid } from '../shared/dom'
import type { Console } from './context'
import { alertBox, busy } from './ui'

/** The customer's tracking link: shown, copied, or replaced (the old one stops working). */
export function trackingCard(c: Console, transactionId: string): HTMLElement {
  const alert = alertBox()
  const output = h('div', { class: 'tracking-output' })
  const show = (url: string) => {
    const id = uid('tracking')
    const input = h('input', { id, type: 'text', readonly: true, value: url, class: 'tracking-url' })
    const copy = h('button', { type: 'button', class: 'small' }, 'Copy')
    copy.addEventListener('click', async () => {
      input.select()
      try {
        await navigator.clipboard.writeText(url)
        c.notify('The tracking link is copied.')
      } catch {
        c.notify('Select the link and copy it (Ctrl+C).')
      }
    })
    replace(
      output,
      h('label', { for: id }, 'Tracking link for the customer'),
      h('div', { class: 'inline' }, input, copy, h('a', { href: url, target: '_blank', rel: 'noopener noreferrer' }, 'Open'))
    )
  }
  const get = h('button', { type: 'button' }, 'Get tracking link')
  get.addEventListener('click', () => busy(get, alert, async () => show((await c.api.trackingLink(transactionId)).tracking_url)))
  const renew = h('button', { type: 'button' }, 'Replace link')
  renew.addEventListener('click', () =>
    busy(renew, alert, async () => {
      show((await c.api.renewTrackingLink(transactionId)).tracking_url)
      c.notify('A new tracking link replaces the old one; the old link no longer works.')
    })
  )
  return h(
    'section',
    { class: 'card', 'aria-labelledby': 'tracking-title' },
    h('h2', { id: 'tracking-title' }, 'Tracking page'),
    h('p', { class: 'hint' }, 'A link for the customer: the service, the progress and the timeline, nothing else about them.'),
    h('div', { class: 'inline' }, get, renew),
    output,
    alert
  )
}
