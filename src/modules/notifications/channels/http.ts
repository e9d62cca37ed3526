import { failed, type DeliveryResult } from './channel.js'
import { describeError } from './errors.js'

/**
 * POSTs a JSON text; a 2xx answer is delivered, anything else (redirects included) a retryable
 * failure. `signal` carries the dispatcher's time-out (AbortSignal.timeout). `what` names the
 * receiver in the recorded error; the URL never appears there (D-73).
 */
export async function postJson(
  url: string,
  body: string,
  headers: Record<string, string>,
  signal: AbortSignal,
  what: string
): Promise<DeliveryResult> {
  let response: Response
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'service-ordering', ...headers },
      body,
      redirect: 'manual',
      signal
    })
  } catch (error) {
    return failed(`${what} could not be reached: ${describeError(error)}`)
  }
  // The answer's body is not needed; reading it frees the connection for reuse.
  await response.arrayBuffer().catch(() => undefined)
  return response.ok ? { kind: 'delivered' } : failed(`${what} answered HTTP ${response.status}`)
}
