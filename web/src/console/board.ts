import './board.css'
import type { BoardResponse } from '../shared/api-types'
import { field, h, replace } from '../shared/dom'
import { shopTime } from '../shared/time-zone'
import { boardColumns } from './board-columns'
import { moveOrder } from './board-move'
import type { Console } from './context'
import { pageHeading } from './ui'
import { plural } from './words'

const FILTER_DELAY_MS = 300

/** The Orders page listing a service's closed orders (D-57). */
const closedOrdersPath = (service: string) => `#/orders/closed/${encodeURIComponent(service)}`

/**
 * The board: one column per step of a service, each scrolling on its own, from one board call
 * (the cards come sorted, overdue first). A filter narrows it by code or customer; the move
 * buttons work from the keyboard and keep focus on the column being worked through.
 */
export async function renderBoard(c: Console, view: HTMLElement, requested?: string): Promise<void> {
  const { services } = await c.api.catalogue()
  if (!c.current()) return
  if (services.length === 0) {
    replace(
      view,
      pageHeading('Board'),
      h('p', {}, 'There are no services yet. ', h('a', { href: '#/catalogue' }, 'Create one in the catalogue.'))
    )
    return
  }
  const names = services.map((s) => s.service_name)
  const selected = requested === undefined ? names[0]! : names.find((name) => name.toLowerCase() === requested.toLowerCase())
  if (selected === undefined) {
    replace(
      view,
      pageHeading('Board'),
      h('p', { class: 'alert', role: 'alert' }, `There is no service named “${requested}”. `),
      h('a', { href: '#/board' }, 'Show the first service.')
    )
    return
  }

  const select = h(
    'select',
    { name: 'service' },
    names.map((name) => h('option', { value: name, selected: name === selected }, name))
  )
  select.addEventListener('change', () => c.go(`#/board/${encodeURIComponent(select.value)}`))
  const filter = h('input', { type: 'search', name: 'filter', autocomplete: 'off', maxlength: 100, class: 'board-filter' })
  const refreshButton = h('button', { type: 'button' }, 'Refresh')
  const summary = h('p', { class: 'board-total' })
  const columns = h('div', { class: 'board' })
  replace(
    view,
    h(
      'div',
      { class: 'page-head' },
      pageHeading(`Board: ${selected}`),
      h('div', { class: 'toolbar' }, field('Service', select), field('Find by order code or customer', filter), refreshButton)
    ),
    summary,
    columns
  )

  let asked = 0

  /** One board call, then the columns drawn at once; column scroll positions are kept. */
  const refresh = async (): Promise<BoardResponse | null> => {
    const ticket = ++asked
    const text = filter.value.trim()
    columns.setAttribute('aria-busy', 'true')
    const answer = await c.api.board(selected, text).finally(() => columns.removeAttribute('aria-busy'))
    // A slower answer to an older filter never overwrites a newer one.
    if (!c.current() || ticket !== asked) return null
    const scrolled = new Map(
      [...columns.querySelectorAll<HTMLElement>('.column')].map((col) => [
        col.dataset.position,
        col.querySelector('.cards')?.scrollTop ?? 0
      ])
    )
    columns.replaceChildren(boardColumns(answer, text !== ''))
    for (const col of columns.querySelectorAll<HTMLElement>('.column')) {
      const list = col.querySelector('.cards')
      if (list !== null) list.scrollTop = scrolled.get(col.dataset.position) ?? 0
    }
    drawSummary(answer, text)
    return answer
  }

  const drawSummary = (answer: BoardResponse, text: string) => {
    const open = answer.steps.reduce((sum, step) => sum + step.open_count, 0)
    const overdue = answer.steps.reduce((sum, step) => sum + step.orders.filter((o) => o.overdue).length, 0)
    replace(
      summary,
      text === '' ? plural(open, 'open order') : `${plural(open, 'open order')} ${open === 1 ? 'matches' : 'match'} “${text}”`,
      overdue > 0 ? h('span', { class: 'overdue-count' }, ` · ${overdue} overdue`) : null,
      ' · ',
      h('a', { href: closedOrdersPath(answer.service_name) }, `Closed (${answer.closed_count})`),
      // One time zone, said plainly: the pickups on the cards are shop time (D-51).
      h('span', { class: 'zone' }, ` · ${shopTime.label}`)
    )
  }

  let timer: ReturnType<typeof setTimeout> | undefined
  filter.addEventListener('input', () => {
    clearTimeout(timer)
    timer = setTimeout(async () => {
      try {
        const answer = await refresh()
        if (answer === null) return
        const text = filter.value.trim()
        const shown = answer.steps.reduce((sum, step) => sum + step.orders.length, 0)
        c.notify(
          text === ''
            ? `Showing all ${plural(shown, 'open order')}.`
            : shown === 0
              ? `No open orders match “${text}”.`
              : `${plural(shown, 'order')} ${shown === 1 ? 'matches' : 'match'} “${text}”.`
        )
      } catch (error) {
        c.fail(error)
      }
    }, FILTER_DELAY_MS)
  })

  // One listener for every move button: the board may hold hundreds of cards.
  columns.addEventListener('click', async (event) => {
    const button = (event.target as Element).closest<HTMLButtonElement>('button.move')
    if (button === null || button.disabled) return
    const { transaction: id = '', customer = '', code = '', position = '0' } = button.dataset
    button.disabled = true
    // Where focus goes next: the card below (or above) in the same column, then the moved card.
    const cardElement = button.closest('li')
    const neighbour = (cardElement?.nextElementSibling ?? cardElement?.previousElementSibling) as HTMLElement | null
    const message = await moveOrder(c, {
      transaction_id: id,
      transaction_code: code,
      customer_id: customer,
      position_number: Number(position)
    })
    try {
      await refresh()
      if (!c.current()) return
      const cardOf = (tid: string | undefined) =>
        tid === undefined ? null : columns.querySelector<HTMLElement>(`li[data-transaction="${CSS.escape(tid)}"]`)
      const next = cardOf(neighbour?.dataset.transaction) ?? cardOf(id)
      const heading = columns.querySelector<HTMLElement>(`.column[data-position="${CSS.escape(position)}"] h2`)
      const target = next?.querySelector<HTMLElement>('button.move') ?? heading
      target?.focus()
      const where = next === null ? '' : ` Focus is on order #${next.dataset.code}.`
      if (message !== null) c.notify(`${message}${where}`)
    } catch (error) {
      c.fail(error)
    } finally {
      if (button.isConnected) button.disabled = false
    }
  })

  refreshButton.addEventListener('click', async () => {
    refreshButton.disabled = true
    try {
      if ((await refresh()) !== null) c.notify('The board is up to date.')
    } catch (error) {
      c.fail(error)
    } finally {
      refreshButton.disabled = false
    }
  })
  await refresh()
}
