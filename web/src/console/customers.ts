import type { CustomerListEntry } from '../shared/api-types'
import { field, h, replace, uid } from '../shared/dom'
import type { Console } from './context'
import { newCustomerForm } from './customer-new'
import { renderCustomerPage } from './customer-page'
import { busy, pageHeading, scrollBox } from './ui'

const PAGE_SIZE = 20

// Kept while the tab is open, so coming back from a customer shows the same search and page.
let lastQuery = ''
const browsing: { cursors: Array<string | undefined>; index: number } = { cursors: [undefined], index: 0 }

/** Customers: search, every customer page by page, a new-customer form; or one customer's page. */
export async function renderCustomers(c: Console, view: HTMLElement, customerId?: string): Promise<void> {
  if (customerId === undefined) await renderIndex(c, view)
  else await renderCustomerPage(c, view, customerId)
}

/** A customer's link: their name, or their e-mail while they have none (every link says whose it is). */
const customerLink = (entry: CustomerListEntry) => [
  h('a', { href: `#/customers/${encodeURIComponent(entry.customer_id)}` }, entry.customer_name || entry.customer_email),
  entry.customer_name === '' ? h('span', { class: 'hint' }, ' (no name yet)') : null
]

async function renderIndex(c: Console, view: HTMLElement): Promise<void> {
  const all = await browseSection(c)
  if (!c.current()) return
  replace(view, pageHeading('Customers'), h('div', { class: 'two-columns' }, searchSection(c), newCustomerForm(c)), all)
}

/** D-33: each word matches the start of a name word or of the e-mail, or 3+ digits of the phone. */
function searchSection(c: Console): HTMLElement {
  const input = h('input', { type: 'search', name: 'query', autocomplete: 'off', maxlength: 100, value: lastQuery })
  const count = h('p', { class: 'hint', role: 'status', 'aria-live': 'polite' })
  const results = h('ul', { class: 'hits', id: uid('hits'), 'aria-label': 'Customers found' })
  input.setAttribute('aria-controls', results.id)
  let timer: number | undefined
  let asked = 0

  const search = async (): Promise<void> => {
    const query = input.value.trim()
    lastQuery = query
    const ticket = ++asked
    if (query === '') {
      results.replaceChildren()
      count.textContent = ''
      return
    }
    try {
      const { customer } = await c.api.search(query)
      // Only the newest answer is drawn: typing fast never shows an older query's hits.
      if (ticket !== asked || !c.current()) return
      replace(
        results,
        customer.map((hit) =>
          h(
            'li',
            {},
            h(
              'a',
              { href: `#/customers/${encodeURIComponent(hit.customer_id)}` },
              h('strong', {}, hit.customer_name || '(no name)'),
              h('span', { class: 'email' }, ` ${hit.customer_email}`)
            )
          )
        )
      )
      count.textContent =
        customer.length === 0
          ? 'No customer matches. Try the start of a name, of the e-mail, or some digits of the phone.'
          : `${customer.length} ${customer.length === 1 ? 'customer' : 'customers'} found.`
    } catch (error) {
      if (ticket === asked) c.fail(error, count)
    }
  }
  input.addEventListener('input', () => {
    window.clearTimeout(timer)
    timer = window.setTimeout(() => void search(), 200)
  })
  input.addEventListener('keydown', (event) => {
    // Down arrow moves into the hits; Tab works too.
    if (event.key === 'ArrowDown') {
      results.querySelector<HTMLElement>('a')?.focus()
      event.preventDefault()
    }
  })
  if (lastQuery !== '') void search()
  return h(
    'section',
    { class: 'card', 'aria-labelledby': 'search-title' },
    h('h2', { id: 'search-title' }, 'Find a customer'),
    h(
      'form',
      {
        role: 'search',
        'aria-labelledby': 'search-title',
        onsubmit: (event: Event) => {
          event.preventDefault()
          void search()
        }
      },
      field(
        'Search',
        input,
        'The start of a first or last name (“ada lo”), the start of the e-mail (“ada@”), or 3 or more digits of the phone.'
      )
    ),
    count,
    results
  )
}

/** Every customer, PAGE_SIZE at a time, with Previous and Next (keyset cursors, kept in a stack). */
async function browseSection(c: Console): Promise<HTMLElement> {
  const rows = h('tbody', {})
  const previous = h('button', { type: 'button' }, 'Previous')
  const next = h('button', { type: 'button' }, 'Next')
  const where = h('p', { class: 'page-number', 'aria-live': 'polite' })
  const alert = h('p', { class: 'alert', role: 'alert' })
  let nextCursor: string | null = null

  const show = async (index: number): Promise<void> => {
    const cursor = browsing.cursors[index]
    const page = await c.api.customers({ limit: PAGE_SIZE, ...(cursor === undefined ? {} : { cursor }) })
    browsing.index = index
    nextCursor = page.next_cursor
    replace(rows, page.customers.length === 0 ? emptyRow() : page.customers.map(customerRow))
    previous.disabled = index === 0
    next.disabled = nextCursor === null
    where.textContent = `Page ${index + 1}`
  }
  const turn = (button: HTMLButtonElement, step: 1 | -1) =>
    busy(button, alert, async () => {
      if (step === 1) {
        if (nextCursor === null) return
        browsing.cursors[browsing.index + 1] = nextCursor
        browsing.cursors.length = browsing.index + 2
      }
      await show(browsing.index + step)
      // A button that just became disabled cannot keep the focus: the other one takes it.
      if (button.disabled) (step === 1 ? previous : next).focus()
    })
  previous.addEventListener('click', () => void turn(previous, -1))
  next.addEventListener('click', () => void turn(next, 1))
  await show(browsing.index).catch(async () => {
    // A cursor from an older visit no longer answers: start again at the first page.
    browsing.cursors = [undefined]
    await show(0)
  })
  return h(
    'section',
    { class: 'card', 'aria-labelledby': 'all-customers-title' },
    h('h2', { id: 'all-customers-title' }, 'All customers'),
    scrollBox(
      h(
        'table',
        { class: 'customers' },
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            ['Name', 'E-mail', 'Phone'].map((title) => h('th', { scope: 'col' }, title))
          )
        ),
        rows
      ),
      'Table of customers'
    ),
    h('nav', { class: 'pager', 'aria-label': 'Pages of customers' }, previous, where, next),
    alert
  )
}

function customerRow(entry: CustomerListEntry): HTMLTableRowElement {
  return h('tr', {}, h('th', { scope: 'row' }, customerLink(entry)), h('td', {}, entry.customer_email), h('td', {}, entry.phone || '—'))
}

function emptyRow(): HTMLTableRowElement {
  return h('tr', {}, h('td', { colspan: 3, class: 'empty' }, 'No customers yet: create the first with the form above.'))
}
