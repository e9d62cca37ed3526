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
        err: pino.stdSerializers.err
      }
    },
    destination ?? stdoutLines()
  )
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
