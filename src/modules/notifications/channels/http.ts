import { type DeliveryResult, failed } from './channel.js'
import { describeError } from './errors.js'

/** Where a channel POSTs: the URL without credentials, and the headers that carry them instead. */
export interface HttpTarget {
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
}

/**
 * A receiver URL as fetch can use it. fetch refuses a URL with `user:password@` ("Request cannot
 * be constructed from a URL that includes credentials"), while an SMS gateway or webhook URL often
 * carries them: they are sent as HTTP Basic credentials (RFC 7617), as curl and browsers do.
 */
export function httpTarget(raw: string): HttpTarget {
  const url = new URL(raw)
  if (url.username === '' && url.password === '') return { url: raw, headers: {} }
  const credentials = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`
  url.username = ''
  url.password = ''
  return { url: url.href, headers: { authorization: `Basic ${Buffer.from(credentials, 'utf8').toString('base64')}` } }
}

/**
 * POSTs a JSON text; a 2xx answer is delivered, anything else (redirects included) a retryable
 * failure. `signal` carries the dispatcher's time-out (AbortSignal.timeout). `what` names the
 * receiver in the recorded error; the URL never appears there (D-73).
 */
export async function postJson(
  target: HttpTarget,
  body: string,
  headers: Record<string, string>,
  signal: AbortSignal,
  what: string
): Promise<DeliveryResult> {
  let response: Response
  try {
    response = await fetch(target.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'service-ordering', ...target.headers, ...headers },
      body,
      redirect: 'manual',
      signal
    })
  } catch (error) {
    return failed(`${what} could not be reached: ${describeError(error)}`)
  }
  // The answer's body is not needed; reading it frees the connection for reuse.
  await response.arrayBuffer().catch(() => undefined)
  if (response.ok) return { kind: 'delivered' }
  const error = `${what} answered HTTP ${response.status}`
  const asked = response.headers.get('retry-after')
  return asked === null ? failed(error) : { kind: 'failed', error, retryAfter: asked }
}

/** A Retry-After value (RFC 9110: seconds, or an HTTP date) as milliseconds from `now`; undefined when absent or unreadable. */
export function retryAfter(value: string | null, now: number): number | undefined {
  if (value === null) return undefined
  const text = value.trim()
  if (/^\d{1,9}$/.test(text)) return Number(text) * 1000
  const at = Date.parse(text)
  return Number.isNaN(at) || !/[a-z]/i.test(text) ? undefined : Math.max(0, at - now)
}
