/** What `h` accepts as children: nodes, text, and nothing (skipped). */
export type Child = Node | string | number | null | undefined | false
type Handler = (event: Event) => void
/** Attributes by name; `on…` names take event handlers; false, null and undefined leave one out. */
export type Attrs = Record<string, string | number | boolean | null | undefined | Handler>

/**
 * Builds an element: `h('button', { type: 'button', onclick: go }, 'Move on')`. Text always goes in
 * as text nodes, never as HTML, so nothing from the API can inject markup.
 */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: Array<Child | Child[]>
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag)
  for (const [name, value] of Object.entries(attrs)) {
    if (typeof value === 'function') element.addEventListener(name.slice(2).toLowerCase(), value)
    else if (value === true) element.setAttribute(name, '')
    else if (value !== false && value !== null && value !== undefined) element.setAttribute(name, String(value))
  }
  append(element, children)
  return element
}

/** Appends children (flattened) to a parent. */
function append(parent: Node, children: Array<Child | Child[]>): void {
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue
    parent.appendChild(typeof child === 'object' ? child : document.createTextNode(String(child)))
  }
}

/** Replaces everything inside an element. */
export function replace(parent: Element, ...children: Array<Child | Child[]>): void {
  parent.replaceChildren()
  append(parent, children)
}

/** A short random id for labels and descriptions. */
let sequence = 0
export function uid(prefix: string): string {
  sequence += 1
  return `${prefix}-${sequence}`
}

/** A labelled form field: the label, then the control, stacked. */
export function field(label: string, control: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement, hint?: string): HTMLDivElement {
  if (control.id === '') control.id = uid('field')
  const hintElement = hint === undefined ? null : h('small', { id: `${control.id}-hint`, class: 'hint' }, hint)
  if (hintElement !== null) control.setAttribute('aria-describedby', hintElement.id)
  return h('div', { class: 'field' }, h('label', { for: control.id }, label), control, hintElement)
}

/** A native progress bar with its text, for a percentage from 0 to 100. */
export function progress(percentage: number, label: string): HTMLDivElement {
  const rounded = Math.round(percentage)
  const bar = h('progress', { max: 100, value: rounded, 'aria-label': label }, `${rounded}%`)
  return h('div', { class: 'progress' }, bar, h('span', { class: 'progress-text', 'aria-hidden': 'true' }, `${rounded}%`))
}
