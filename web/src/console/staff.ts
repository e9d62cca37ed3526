import { field, h, replace } from '../shared/dom'
import { ApiError } from '../shared/http'
import type { StaffView } from '../shared/staff-types'
import { shopTime } from '../shared/time-zone'
import type { Console } from './context'
import { fieldErrors } from './field-errors'
import { alertBox, busy, errorText, inputText, pageHeading, scrollBox, zoneNote } from './ui'

const ROLE_WORDS = { admin: 'Admin', staff: 'Staff' } as const

/** The Staff page (admins only, D-15): everyone who can sign in, invitations, roles, disabling. */
export async function renderStaff(c: Console, view: HTMLElement): Promise<void> {
  if (c.me.role !== 'admin') {
    replace(
      view,
      pageHeading('Staff'),
      h('p', {}, 'Only admins manage staff accounts. Ask an admin of the shop to invite someone or change a role.')
    )
    return
  }
  const { staff } = await c.api.staff()
  if (!c.current()) return
  const alert = alertBox()
  const rows = h('tbody', {})
  const draw = (people: StaffView[]) =>
    replace(
      rows,
      people.map((person) => row(c, person, alert))
    )
  draw(staff)
  replace(
    view,
    pageHeading('Staff'),
    h(
      'p',
      { class: 'lede' },
      'Everyone who can sign in to this console. Staff run orders, customers and the catalogue; admins also manage this list.'
    ),
    h(
      'div',
      { class: 'staff-layout' },
      h(
        'section',
        { class: 'card', 'aria-labelledby': 'people-title' },
        h('h2', { id: 'people-title' }, 'People'),
        scrollBox(
          h(
            'table',
            { class: 'staff-table' },
            h(
              'thead',
              {},
              h(
                'tr',
                {},
                ['Name', 'E-mail', 'Role', 'Status', 'Since', 'Actions'].map((title) => h('th', { scope: 'col' }, title))
              )
            ),
            rows
          ),
          'Table of staff accounts'
        ),
        alert,
        zoneNote()
      ),
      inviteForm(c, async () => draw((await c.api.staff()).staff))
    )
  )
}

/** Why an update was refused, in words: the last admin cannot stop being one (D-15). */
function updateError(error: unknown, person: StaffView): string {
  if (error instanceof ApiError && error.code === 'last_admin')
    return `${person.name} is the only active admin. Make someone else an admin first, so that someone can still manage staff accounts.`
  return errorText(error)
}

function row(c: Console, person: StaffView, alert: HTMLElement): HTMLTableRowElement {
  const self = person.staff_id === c.me.staff_id
  const otherRole = person.role === 'admin' ? 'staff' : 'admin'
  const roleButton = h(
    'button',
    { type: 'button', class: 'small', 'data-action': 'role', 'aria-label': `Make ${otherRole}: ${person.name}` },
    `Make ${otherRole}`
  )
  const active = person.status === 'active'
  const statusButton = h(
    'button',
    {
      type: 'button',
      class: active ? 'small danger' : 'small',
      'data-action': 'status',
      'aria-label': `${active ? 'Disable' : 'Enable'} ${person.name}`
    },
    active ? 'Disable' : 'Enable'
  )
  const element = h(
    'tr',
    { 'data-staff': person.staff_id },
    h('th', { scope: 'row' }, person.name, self ? h('span', { class: 'you' }, ' (you)') : null),
    h('td', {}, person.email),
    h('td', {}, ROLE_WORDS[person.role]),
    h('td', {}, h('span', { class: `badge ${active ? 'open' : 'closed'}` }, active ? 'Active' : 'Disabled')),
    h('td', { class: 'nowrap' }, h('time', { datetime: person.created_at }, shopTime.formatDate(Date.parse(person.created_at) / 1000))),
    h('td', { class: 'row-actions' }, roleButton, statusButton)
  )
  const change = (button: HTMLButtonElement, changes: { role?: 'admin' | 'staff'; status?: 'active' | 'disabled' }, said: string) =>
    busy(
      button,
      alert,
      async () => {
        const updated = await c.api.updateStaff({ staff_id: person.staff_id, ...changes })
        if (self && updated.role !== 'admin') return demotedSelf()
        const next = row(c, updated, alert)
        element.replaceWith(next)
        next.querySelector<HTMLButtonElement>(`button[data-action="${button.dataset.action}"]`)?.focus()
        c.notify(said)
      },
      (error) => {
        alert.textContent = updateError(error, person)
      }
    )
  roleButton.addEventListener('click', () =>
    change(roleButton, { role: otherRole }, `${person.name} is now ${otherRole === 'admin' ? 'an admin' : 'staff'}.`)
  )
  statusButton.addEventListener('click', () =>
    change(
      statusButton,
      { status: active ? 'disabled' : 'active' },
      active ? `${person.name} is disabled and signed out everywhere.` : `${person.name} can sign in again.`
    )
  )
  return element
}

/** An admin who made themselves staff keeps their session but loses this page: the console reloads as staff. */
function demotedSelf(): void {
  location.hash = '#/board'
  location.reload()
}

function inviteForm(c: Console, reload: () => Promise<void>): HTMLElement {
  const name = h('input', { type: 'text', name: 'name', autocomplete: 'off', required: true, maxlength: 100 })
  const email = h('input', { type: 'email', name: 'email', autocomplete: 'off', required: true, maxlength: 254, spellcheck: 'false' })
  const role = h('select', { name: 'role' }, h('option', { value: 'staff' }, 'Staff'), h('option', { value: 'admin' }, 'Admin'))
  const alert = alertBox()
  const errors = fieldErrors(alert, [
    { control: name, label: 'Name', pointers: ['/name'] },
    { control: email, label: 'E-mail', pointers: ['/email'], codes: { email_taken: 'A staff account already has this e-mail.' } },
    { control: role, label: 'Role', pointers: ['/role'] }
  ])
  const send = h('button', { type: 'submit', class: 'primary' }, 'Send invitation')
  const form = h(
    'form',
    { novalidate: true },
    field('Name', name),
    field('E-mail', email, 'The invitation goes here, with a link to choose a password.'),
    field('Role', role, 'Staff run orders, customers and the catalogue; admins also manage staff accounts.'),
    send,
    alert
  )
  form.addEventListener('submit', (event) => {
    event.preventDefault()
    errors.clear()
    if (inputText(name) === '') return errors.mark(name, 'Give their name.')
    if (!/^[^@\s]+@[^@\s]+$/.test(inputText(email))) return errors.mark(email, 'Give their e-mail address.')
    void busy(
      send,
      null,
      async () => {
        const created = await c.api.createStaff({
          name: inputText(name),
          email: inputText(email),
          role: role.value === 'admin' ? 'admin' : 'staff'
        })
        form.reset()
        await reload()
        c.notify(`Invitation sent: ${created.email} has an e-mail with a link to choose a password (valid for 72 hours).`)
        name.focus()
      },
      (error) => errors.show(error)
    )
  })
  return h(
    'section',
    { class: 'card', 'aria-labelledby': 'invite-title' },
    h('h2', { id: 'invite-title' }, 'Invite someone'),
    h('p', { class: 'hint' }, 'They get an e-mail with a link to choose their password, then sign in with their e-mail.'),
    form
  )
}
