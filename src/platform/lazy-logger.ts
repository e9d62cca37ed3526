import type { FastifyBaseLogger } from 'fastify'
import type { Bindings, ChildLoggerOptions, LevelWithSilentOrString, Logger } from 'pino'

type Method = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace'

/** Whether the logger can say if a level is on: pino's can, though Fastify's logger type leaves that out. */
function checksLevels(logger: FastifyBaseLogger): logger is FastifyBaseLogger & Pick<Logger, 'isLevelEnabled'> {
  return typeof (logger as Partial<Pick<Logger, 'isLevelEnabled'>>).isLevelEnabled === 'function'
}

/**
 * A request's logger that becomes a real pino child only when a line at an enabled level is
 * written: most requests write nothing, and never pay for the child and its redaction set-up.
 */
class LazyChildLogger implements FastifyBaseLogger {
  private real: FastifyBaseLogger | undefined

  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly bindings: Bindings,
    private readonly options: ChildLoggerOptions | undefined
  ) {}

  private materialise(): FastifyBaseLogger {
    this.real ??= this.parent.child(this.bindings, this.options)
    return this.real
  }

  get level(): LevelWithSilentOrString {
    return this.real?.level ?? this.parent.level
  }

  set level(level: LevelWithSilentOrString) {
    this.materialise().level = level
  }

  private write(method: Method, args: unknown[]): void {
    if (this.real === undefined && checksLevels(this.parent) && !this.parent.isLevelEnabled(method)) return
    ;(this.materialise()[method] as (...a: unknown[]) => void)(...args)
  }

  fatal(...args: unknown[]): void {
    this.write('fatal', args)
  }
  error(...args: unknown[]): void {
    this.write('error', args)
  }
  warn(...args: unknown[]): void {
    this.write('warn', args)
  }
  info(...args: unknown[]): void {
    this.write('info', args)
  }
  debug(...args: unknown[]): void {
    this.write('debug', args)
  }
  trace(...args: unknown[]): void {
    this.write('trace', args)
  }
  silent(): void {}

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.materialise().child(bindings, options)
  }
}

/** Fastify's childLoggerFactory: a lazy child per request. */
export function lazyChildLoggerFactory(logger: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions): FastifyBaseLogger {
  return new LazyChildLogger(logger, bindings, options)
}
