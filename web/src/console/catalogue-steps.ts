import type { CatalogueService, CatalogueStep } from '../shared/api-types'
import { field, h } from '../shared/dom'
import type { Redraw } from './catalogue-service'
import { confirmDialog } from './confirm-dialog'
import type { Console } from './context'
import { fieldErrors } from './field-errors'
import { alertBox, busy, eventsFieldset, inputText } from './ui'

const MAX_MINUTES = 43_200
export const MINUTES_RULE = 'Expected minutes is a whole number from 1 to 43,200, or empty for none.'
const STEPS_HINT =
  'The button title is the board button that moves an order on from the step. An order at a step longer than its expected minutes shows as overdue; leave them empty for none.'

/** The expected minutes of a step (D-48): a whole number, or empty for none. */
export function expectedMinutesInput(value: number | null): HTMLInputElement {
  return h('input', {
    type: 'number',
    name: 'expected_minutes',
    min: 1,
    max: MAX_MINUTES,
    step: 1,
    inputmode: 'numeric',
    class: 'minutes',
    value: value ?? ''
  })
}

/** null for empty (no expected time), the number when it is 1 to 43,200, undefined otherwise. */
export function readExpectedMinutes(input: HTMLInputElement): number | null | undefined {
  const text = input.value.trim()
  // A number input answers "" for text it cannot read, so "abc" is not mistaken for empty.
  if (text === '') return input.validity.badInput ? undefined : null
  const minutes = Number(text)
  return Number.isInteger(minutes) && minutes >= 1 && minutes <= MAX_MINUTES ? minutes : undefined
}

/** The controls of one step's texts, shared by the edit and add forms. */
function stepFields(step: CatalogueStep | null, legend: string) {
  const description = h('input', {
    type: 'text',
    name: 'description',
    required: true,
    maxlength: 500,
    autocomplete: 'off',
    value: step?.description ?? ''
  })
  const button = h('input', { type: 'text', name: 'button_title', maxlength: 500, autocomplete: 'off', value: step?.button_title ?? '' })
  const minutes = expectedMinutesInput(step?.expected_minutes ?? null)
  const events = eventsFieldset(legend, step?.events.map((e) => e.event) ?? [])
  const alert = alertBox()
  const errors = fieldErrors(alert, [
    { control: description, label: 'The description', pointers: ['/description'] },
    { control: button, label: 'The button title', pointers: ['/button_title'] },
    { control: minutes, label: 'Expected minutes', pointers: ['/expected_minutes'] },
    { control: events.element.querySelector('input')!, label: 'The messages', pointers: ['/events'] }
  ])
  const fields = h(
    'div',
    { class: 'step-texts' },
    field('Description', description),
    field('Button title', button),
    field('Expected minutes', minutes),
    events.element
  )
  /** The values to send, or undefined after marking what is wrong. */
  const read = () => {
    errors.clear()
    const expected = readExpectedMinutes(minutes)
    if (inputText(description) === '') return void errors.mark(description, 'Describe the step, e.g. “Washing”.')
    if (expected === undefined) return void errors.mark(minutes, MINUTES_RULE)
    return { description: inputText(description), button_title: inputText(button), events: events.values(), expected_minutes: expected }
  }
  return { fields, alert, errors, read }
}

/** One step's form: its texts, messages and expected time saved together (D-47), or the step removed. */
function stepForm(c: Console, service: CatalogueService, step: CatalogueStep, redraw: Redraw): HTMLLIElement {
  const position = Number(step.position_number)
  const titleId = `step-${position}-edit`
  const { fields, alert, errors, read } = stepFields(step, 'Messages when an order enters this step')
  const save = h('button', { type: 'submit', class: 'primary' }, 'Save step', h('span', { class: 'visually-hidden' }, ` ${position}`))
  const remove = h(
    'button',
    { type: 'button', class: 'danger', disabled: service.steps.length === 1 },
    'Remove step',
    h('span', { class: 'visually-hidden' }, ` ${position}`)
  )
  const form = h(
    'form',
    { class: 'step-form', novalidate: true, 'aria-labelledby': titleId },
    fields,
    h('div', { class: 'inline' }, save, remove),
    alert
  )
  form.addEventListener('submit', (event) => {
    event.preventDefault()
    const values = read()
    if (values === undefined) return
    void busy(
      save,
      null,
      async () => {
        await c.api.updateStep({ service_name: service.service_name, position_number: position, ...values })
        await redraw(`Step ${position} “${values.description}” is saved.`, `#${titleId}`)
      },
      (error) => errors.show(error)
    )
  })
  remove.addEventListener('click', async () => {
    const ok = await confirmDialog(
      `Remove step ${position}, “${step.description}”?`,
      'The steps after it move up by one. A step that orders are at cannot be removed.',
      'Remove the step'
    )
    if (!ok) return
    void busy(remove, alert, async () => {
      await c.api.removeStep(service.service_name, position)
      await redraw(`Step ${position} is removed; the steps after it moved up.`, '#steps-title')
    })
  })
  return h(
    'li',
    { class: 'step', 'data-position': position },
    h('h3', { id: titleId, tabindex: -1 }, `Step ${position}: ${step.description}`),
    form
  )
}

/** Every step as a form of its own, then a form adding one (D-42, D-48). */
export function stepsSection(c: Console, service: CatalogueService, redraw: Redraw): HTMLElement {
  const { fields, alert, errors, read } = stepFields(null, 'Messages when an order enters this step')
  const total = service.steps.length
  const position = h('input', { type: 'number', name: 'position_number', min: 1, max: total + 1, step: 1, class: 'minutes' })
  const add = h('button', { type: 'submit', class: 'primary' }, 'Add step')
  const form = h(
    'form',
    { class: 'add-step', novalidate: true, 'aria-labelledby': 'add-step-title' },
    fields,
    field('Position (optional)', position, `1 to ${total + 1}; empty adds it at the end.`),
    add,
    alert
  )
  form.addEventListener('submit', (event) => {
    event.preventDefault()
    const values = read()
    if (values === undefined) return
    const at = inputText(position)
    if (at !== '' && !(Number.isInteger(Number(at)) && Number(at) >= 1 && Number(at) <= total + 1)) {
      return errors.mark(position, `The position is a whole number from 1 to ${total + 1}, or empty.`)
    }
    void busy(
      add,
      null,
      async () => {
        const added = await c.api.addStep({
          service_name: service.service_name,
          ...values,
          ...(at === '' ? {} : { position_number: Number(at) })
        })
        await redraw(`Step ${added.position} “${added.description}” is added.`, `#step-${added.position}-edit`)
      },
      (error) => errors.show(error)
    )
  })
  return h(
    'section',
    { class: 'card', 'aria-labelledby': 'steps-title' },
    h('h2', { id: 'steps-title', tabindex: -1 }, 'Steps'),
    h('p', { class: 'hint' }, STEPS_HINT),
    h(
      'ol',
      { class: 'step-list' },
      service.steps.map((step) => stepForm(c, service, step, redraw))
    ),
    h('h3', { id: 'add-step-title', class: 'sub' }, 'Add a step'),
    form
  )
}
