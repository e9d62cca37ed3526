// Anything URL-shaped is dropped from error texts: a gateway URL may carry a token or credentials (D-73).
const URLS = /\b[a-z][a-z0-9+.-]*:\/\/\S+/gi
const MAX_LENGTH = 500

/** An error as one short line for `last_error` and logs: message and cause, never a URL. */
export function describeError(error: unknown): string {
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) {
    return 'delivery timed out'
  }
  let text = error instanceof Error ? error.message : String(error)
  const cause = error instanceof Error ? (error as { cause?: unknown }).cause : undefined
  if (cause instanceof Error && cause.message !== '' && !text.includes(cause.message)) text += `: ${cause.message}`
  const code = (error as { code?: unknown } | null)?.code
  if (typeof code === 'string' && !text.includes(code)) text += ` (${code})`
  return text.replace(URLS, '[url]').replace(/\s+/g, ' ').slice(0, MAX_LENGTH)
}
