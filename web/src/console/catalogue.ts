import './catalogue.css'
import type { CatalogueService } from '../shared/api-types'
import { field, h, replace } from '../shared/dom'
import { renderService, servicePath } from './catalogue-service'
import { expectedMinutesInput, MINUTES_RULE, readExpectedMinutes } from './catalogue-steps'
import type { Console } from './context'
import { fieldErrors } from './field-errors'
import { alertBox, busy, eventsFieldset, inputText, pageHeading } from './ui'
import { plural } from './words'

/** The catalogue: the services and a form for a new one, or one service to edit (D-47). */
export async function renderCatalogue(c: Console, view: HTMLElement, serviceName?: string): Promise<void> {
  if (serviceName === undefined) await renderServices(c, view)
  else await renderService(c, view, serviceName)
}

async function renderServices(c: Console, view: HTMLElement): Promise<void> {
  const { services } = await c.api.catalogue()
  if (!c.current()) return
  replace(
    view,
    pageHeading('Catalogue'),
    h(
      'div',
      { class: 'two-columns' },
      h(
        'section',
        { class: 'card', 'aria-labelledby': 'services-title' },
        h('h2', { id: 'services-title' }, 'Services'),
        services.length === 0
          ? h('p', { class: 'empty' }, 'No services yet.')
          : h(
              'ul',
              { class: 'services' },
              services.map((service) => serviceLine(service))
            )
      ),
      newServiceForm(c)
    )
  )
}

function serviceLine(service: CatalogueService): HTMLLIElement {
  const timed = service.steps.filter((step) => step.expected_minutes !== null).length
  return h(
    'li',
    {},
    h('a', { href: servicePath(service.service_name) }, service.service_name),
    h('span', { class: 'hint' }, ` · ${plural(service.steps.length, 'step')}`, timed > 0 ? ` · ${timed} with an expected time` : '')
  )
}

function newServiceForm(c: Console): HTMLElement {
  const name = h('input', { type: 'text', name: 'service_name', required: true, maxlength: 100, autocomplete: 'off' })
  const description = h('input', { type: 'text', name: 'description', required: true, maxlength: 500, autocomplete: 'off' })
  const button = h('input', { type: 'text', name: 'button_title', maxlength: 500, autocomplete: 'off' })
  const minutes = expectedMinutesInput(null)
  const events = eventsFieldset('Messages when an order enters step 1')
  const alert = alertBox()
  const save = h('button', { type: 'submit', class: 'primary' }, 'Create service')
  const form = h(
    'form',
    { novalidate: true },
    field('Service name', name),
    field('Step 1 description', description, 'What step 1 is, e.g. “Picked up”.'),
    field('Step 1 button title', button, 'The board button that moves an order on from step 1, e.g. “Start washing”.'),
    field('Step 1 expected minutes (optional)', minutes, 'Orders at step 1 longer than this show as overdue; empty for none.'),
    events.element,
    save,
    alert
  )
  const errors = fieldErrors(alert, [
    {
      control: name,
      label: 'The name',
      pointers: ['/service_name'],
      codes: { service_exists: 'A service with this name exists already.' }
    },
    { control: description, label: 'The description', pointers: ['/description'] },
    { control: button, label: 'The button title', pointers: ['/button_title'] },
    { control: minutes, label: 'Expected minutes', pointers: ['/expected_minutes'] }
  ])
  form.addEventListener('submit', (event) => {
    event.preventDefault()
    errors.clear()
    const expected = readExpectedMinutes(minutes)
    if (inputText(name) === '') return errors.mark(name, 'Give the service a name.')
    if (inputText(description) === '') return errors.mark(description, 'Describe the first step, e.g. “Picked up”.')
    if (expected === undefined) return errors.mark(minutes, MINUTES_RULE)
    void busy(
      save,
      null,
      async () => {
        await c.api.createService({
          service_name: inputText(name),
          description: inputText(description),
          button_title: inputText(button),
          events: events.values(),
          expected_minutes: expected
        })
        c.go(servicePath(inputText(name)), `The service ${inputText(name)} is created.`)
      },
      (error) => errors.show(error)
    )
  })
  return h('section', { class: 'card', 'aria-labelledby': 'new-service-title' }, h('h2', { id: 'new-service-title' }, 'New service'), form)
}
