import pino, { type DestinationStream, type Logger } from 'pino'
import type { LogLevel } from '../config.js'

// Anything that may carry a credential, card data or a reset token, wherever it appears (D-73).
const REDACT = [
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.authorization',
  'authorization',
  'password',
  'token',
  'secret',
  '*.password',
  '*.token',
  '*.secret',
  '*.cc_number',
  '*.cc_cvv',
  '*.creditcard',
  '*.*.creditcard',
  'body',
  '*.body'
]

interface RequestLike {
  method?: string
  url?: string
  id?: string
  ip?: string
}

/**
 * JSON logs with credentials, card data and tokens redacted (D-73). URLs are logged without their
 * query string, where a reset token could travel.
 */
export function createLogger(level: LogLevel, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service: 'service-ordering' },
      redact: { paths: REDACT, censor: '[redacted]' },
      serializers: {
        req: (req: RequestLike) => ({
          method: req.method,
          path: typeof req.url === 'string' ? req.url.split('?')[0] : undefined,
          ip: req.ip
        }),
        err: errorWithoutStack
      }
    },
    destination ?? stdoutLines()
  )
}

/** Where the error was thrown: the first frame of its stack, without the rest of the trace. */
function firstFrame(stack: unknown): string | undefined {
  if (typeof stack !== 'string') return undefined
  return /\n\s+at (?:.*\()?(.+?)\)?\n/.exec(`${stack}\n`)?.[1]
}

/**
 * An error as logged: its type, code, message and where it was thrown, never the whole stack trace
 * (D-73), so a flood of failures (a database away under load) stays one short line each.
 */
function errorWithoutStack(error: unknown): Record<string, unknown> {
  if (!(error instanceof Error)) return { type: typeof error, message: String(error) }
  const code = (error as { code?: unknown }).code
  const cause = error.cause instanceof Error ? errorWithoutStack(error.cause) : undefined
  return { type: error.name, message: error.message, code, at: firstFrame(error.stack), cause }
}

/**
 * Standard output, one synchronous write per line. Pino's default writes asynchronously and flushes
 * synchronously at exit, and that flush retries a broken pipe for ever: with its reader gone (a
 * closed `| head`, a dead log shipper) a SIGTERM stopped serving but never exited (D-72). Written
 * synchronously, a broken pipe fails the write at once and pino stops logging to it; a slow reader
 * holds the writer back instead of log lines piling up in memory.
 */
function stdoutLines(): DestinationStream {
  return pino.destination({ dest: 1, sync: true })
}
