import type { CatalogueService } from '../shared/api-types'
import { field, h, replace } from '../shared/dom'
import { itemsSection } from './catalogue-items'
import { stepsSection } from './catalogue-steps'
import type { Console } from './context'
import { fieldErrors } from './field-errors'
import { alertBox, busy, inputText, pageHeading } from './ui'

/** Draws the service page again, focuses `focus` (a selector) and says `message`. */
export type Redraw = (message: string, focus: string) => Promise<void>

export const servicePath = (name: string) => `#/catalogue/${encodeURIComponent(name)}`

/** One service: its name, its steps and its items, each editable where it is shown (D-47). */
export async function renderService(c: Console, view: HTMLElement, serviceName: string): Promise<void> {
  const { services } = await c.api.catalogue()
  const service = services.find((s) => s.service_name.toLowerCase() === serviceName.toLowerCase())
  if (service === undefined) {
    if (!c.current()) return
    replace(
      view,
      pageHeading('No such service'),
      h('p', {}, `There is no service named “${serviceName}”. `, h('a', { href: '#/catalogue' }, 'Back to the catalogue.'))
    )
    return
  }
  const items = await c.api.items(service.service_name)
  if (!c.current()) return
  const redraw: Redraw = async (message, focus) => {
    await renderService(c, view, service.service_name)
    view.querySelector<HTMLElement>(focus)?.focus()
    c.notify(message)
  }
  replace(
    view,
    h(
      'p',
      { class: 'breadcrumb' },
      h('a', { href: '#/catalogue' }, '← Catalogue'),
      ' · ',
      h('a', { href: `#/board/${encodeURIComponent(service.service_name)}` }, 'Board')
    ),
    pageHeading(service.service_name),
    renameCard(c, service),
    stepsSection(c, service, redraw),
    itemsSection(c, service.service_name, items, redraw)
  )
}

/** The service's name and image title (D-47); orders keep their service under the new name. */
function renameCard(c: Console, service: CatalogueService): HTMLElement {
  const name = h('input', {
    type: 'text',
    name: 'new_name',
    required: true,
    maxlength: 100,
    autocomplete: 'off',
    value: service.service_name
  })
  const image = h('input', { type: 'text', name: 'image_title', maxlength: 100, autocomplete: 'off', value: service.image_title })
  const alert = alertBox()
  const save = h('button', { type: 'submit', class: 'primary' }, 'Save name')
  const form = h(
    'form',
    { class: 'rename inline', novalidate: true, 'aria-labelledby': 'rename-title' },
    field('Service name', name, 'Orders keep this service; links use the new name.'),
    field('Image title', image),
    save,
    alert
  )
  const errors = fieldErrors(alert, [
    { control: name, label: 'The name', pointers: ['/new_name'], codes: { service_exists: 'Another service has this name already.' } },
    { control: image, label: 'The image title', pointers: ['/image_title'] }
  ])
  form.addEventListener('submit', (event) => {
    event.preventDefault()
    errors.clear()
    const newName = inputText(name)
    const newImage = inputText(image)
    if (newName === '') return errors.mark(name, 'Give the service a name.')
    const body = {
      service_name: service.service_name,
      ...(newName === service.service_name ? {} : { new_name: newName }),
      ...(newImage === service.image_title ? {} : { image_title: newImage })
    }
    if (Object.keys(body).length === 1) return c.notify('Nothing has changed.')
    void busy(
      save,
      null,
      async () => {
        const saved = await c.api.updateService(body)
        c.go(servicePath(saved.service_name), `The service is saved as ${saved.service_name}.`)
      },
      (error) => errors.show(error)
    )
  })
  return h('section', { class: 'card', 'aria-labelledby': 'rename-title' }, h('h2', { id: 'rename-title' }, 'Name'), form)
}
