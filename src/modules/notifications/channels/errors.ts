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

// The SMTP commands whose refusal is about this message (its recipient or its content), not about
// our settings: a refused MAIL FROM or AUTH is a MAIL_FROM or SMTP_URL to fix, and is retried.
const MESSAGE_COMMANDS = new Set(['RCPT TO', 'DATA'])

/**
 * True when an SMTP server refused this message for good: a 5xx reply (nodemailer's `permanent`,
 * RFC 5321) to RCPT TO or DATA. Sending the same message again would be refused again.
 */
export function isPermanentSmtpRefusal(error: unknown): boolean {
  const { permanent, command } = (error ?? {}) as { permanent?: unknown; command?: unknown }
  return permanent === true && typeof command === 'string' && MESSAGE_COMMANDS.has(command)
}
