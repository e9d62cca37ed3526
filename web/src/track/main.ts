import './track.css'
import type { TrackingStatus } from '../shared/api-types'
import { h, progress, replace } from '../shared/dom'
import { when } from '../shared/format'
import { ApiError, postJson } from '../shared/http'

// The customers' tracking page (issue 9): /track/<token>. It reads POST /track/<token>/status,
// which answers the service, the current step, the progress bar and the customer's journey (placed,
// steps reached, completed, reopened), nothing else: the server leaves out the shop's own entries.
const REFRESH_MS = 60_000

type JourneyEntry = TrackingStatus['history'][number]

/** What an entry of the journey says to the customer. */
function journeyLabel(entry: JourneyEntry): string {
  switch (entry.type) {
    case 'created':
      return 'Order placed'
    case 'moved':
    case 'updated':
      return `Reached: ${entry.description}`
    case 'closed':
      return 'Completed'
    case 'reopened':
      return 'Reopened'
    default:
      return entry.description
  }
}

/** The step an entry happened at, beside its label: the label of a step reached names it already. */
function journeyDetail(entry: JourneyEntry): string {
  return entry.type === 'moved' || entry.type === 'updated'
    ? `Step ${entry.position_number}`
    : `Step ${entry.position_number}: ${entry.description}`
}

const root = document.getElementById('app')!
const token = decodeURIComponent(location.pathname.replace(/^\/track\//, '').replace(/\/+$/, ''))
let timer: number | undefined

/** Closed when the last closing or reopening in the timeline was a closing. */
function isComplete(status: TrackingStatus): boolean {
  const last = [...status.history].reverse().find((entry) => entry.type === 'closed' || entry.type === 'reopened')
  return last?.type === 'closed'
}

function draw(status: TrackingStatus): void {
  const { position, progress_bar: bar } = status
  const complete = isComplete(status)
  document.title = `${status.service_name}: ${complete ? 'complete' : position.position_description} · Track your order`
  replace(
    root,
    h('p', { class: 'eyebrow' }, 'Your order'),
    h('h1', {}, status.service_name),
    h(
      'section',
      { class: 'now', 'aria-labelledby': 'now-title' },
      h('h2', { id: 'now-title' }, complete ? 'Complete' : 'Where it is now'),
      h(
        'p',
        { class: 'step' },
        h('span', { class: 'step-number' }, `Step ${position.position_number} of ${bar.total_steps}`),
        h('strong', {}, position.position_description)
      ),
      progress(bar.percentage, 'Progress of your order')
    ),
    h(
      'section',
      { class: 'timeline-section', 'aria-labelledby': 'timeline-title' },
      h('h2', { id: 'timeline-title' }, 'What happened so far'),
      h(
        'ol',
        { class: 'timeline' },
        [...status.history]
          .reverse()
          .map((entry) =>
            h(
              'li',
              { 'data-type': entry.type },
              h('time', { datetime: entry.at }, when(entry.at)),
              h('strong', {}, journeyLabel(entry)),
              h('span', {}, journeyDetail(entry))
            )
          )
      )
    ),
    h(
      'p',
      { class: 'updated', role: 'status' },
      `Updated ${new Date().toLocaleTimeString('en-US', { timeStyle: 'short' })}. This page refreshes by itself.`
    )
  )
}

function message(title: string, text: string): void {
  replace(root, h('h1', {}, title), h('p', { class: 'message', role: 'alert' }, text))
}

async function load(): Promise<void> {
  window.clearTimeout(timer)
  try {
    draw(await postJson<TrackingStatus>(`/track/${encodeURIComponent(token)}/status`, undefined))
    timer = window.setTimeout(() => void load(), REFRESH_MS)
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) {
      message('This link does not work', 'The tracking link is not valid, or the shop has replaced it. Ask the shop for a new one.')
      return
    }
    const wait = error instanceof ApiError && error.retryAfterSeconds !== undefined ? error.retryAfterSeconds * 1000 : REFRESH_MS
    if (!root.querySelector('h1')) message('Track your order', 'Your order could not be loaded just now; this page tries again by itself.')
    timer = window.setTimeout(() => void load(), wait)
  }
}

// Refresh at once when the customer comes back to the tab.
document.addEventListener('visibilitychange', () => {
  if (document.visibilityState === 'visible') void load()
})

if (token === '') message('This link does not work', 'The address holds no tracking code. Ask the shop for the link again.')
else {
  root.append(h('p', { class: 'loading' }, 'Loading your order…'))
  void load()
}
