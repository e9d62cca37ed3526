import type { FastifyRequest } from 'fastify'
import { canonicalJson } from '../common/canonical-json.js'
import type { Clock } from '../common/clock.js'
import { decrypt, encrypt, hmac } from '../common/crypto.js'
import type { Database } from '../db/database.js'
import type { Tx } from '../db/statement.js'
import type { Work } from '../db/unit-of-work.js'
import { type IdempotencyStatements, idempotencyStatements } from './idempotency.repository.js'
import { type Principal, principalKey } from './principal.js'
import { Problem, type ProblemDocument, problems } from './problems.js'
import { IDEMPOTENCY_KEY_PATTERN } from './schemas.js'

const DAY_MS = 24 * 60 * 60 * 1000
// The header's own rule, checked here too for requests refused before their headers were
// validated (Fastify validates the body first).
const VALID_KEY = new RegExp(IDEMPOTENCY_KEY_PATTERN)

/** An Idempotency-Key as sent by one credential for one path and body (D-52). */
export interface IdempotencyScope {
  readonly owner: string
  readonly key: string
  /**
   * Method, path and body: what a repeat must match. The body is compared as canonical JSON, so a
   * retry that orders its keys differently is still the same request. Never stored; only its keyed
   * digest is.
   */
  readonly request: string
}

/** Who is calling a use case and, for a write, the idempotency key it was sent with. */
export interface Caller {
  readonly principal: Principal
  readonly idempotency: IdempotencyScope | undefined
}

/** The caller of a request; the key's format was checked by the route's header schema. */
export function callerOf(request: FastifyRequest): Caller {
  const key = request.headers['idempotency-key']
  if (typeof key !== 'string') return { principal: request.principal, idempotency: undefined }
  const query = request.url.indexOf('?')
  const path = query === -1 ? request.url : request.url.slice(0, query)
  return {
    principal: request.principal,
    idempotency: {
      owner: principalKey(request.principal),
      key,
      request: `${request.method} ${path}\n${canonicalJson(request.body ?? null)}`
    }
  }
}

/** Whether the request's operation takes an Idempotency-Key (its header schema names one, schemas.ts). */
export function takesIdempotencyKey(request: FastifyRequest): boolean {
  const headers = request.routeOptions.schema?.headers as { properties?: Record<string, unknown> } | undefined
  return headers?.properties?.['idempotency-key'] !== undefined
}

/** A key as stored: the request reduced to its keyed digest. */
interface Fingerprinted {
  readonly owner: string
  readonly key: string
  readonly fingerprint: string
}

/** A stored failure answered again; never stored a second time. */
class ReplayedProblem extends Problem {}

// Failures worth replaying are the client's own; 429 and 5xx say "try again", so they are not kept.
function isReplayable(error: unknown): error is Problem {
  return (
    error instanceof Problem &&
    !(error instanceof ReplayedProblem) &&
    error.status < 500 &&
    error.code !== 'rate_limited' &&
    error.code !== 'idempotency_key_reused'
  )
}

/**
 * Runs use cases in one database transaction each, honouring Idempotency-Key (D-52). The key row
 * is claimed at the start of the use case's own transaction and holds its answer when it commits,
 * so a concurrent repeat waits for the first and then replays it, and a retried move never
 * advances twice. Keys are kept in the database, so they hold across processes.
 */
export class UseCaseRunner {
  private readonly statements: IdempotencyStatements
  private readonly fingerprintKey: Buffer
  private readonly answerKey: Buffer

  /**
   * `dataKey` (payments/card-key.ts, the same in every process) keys the fingerprints of request
   * bodies: a body may hold a card number and security code (D-34), and a plain SHA-256 of it kept
   * for 24 hours would let anyone reading the table try the few billion card numbers of a known
   * bank until one matched. PCI DSS asks for a keyed hash of card data for that reason.
   */
  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    dataKey: Buffer
  ) {
    this.statements = idempotencyStatements(database)
    this.fingerprintKey = hmac(dataKey, 'service-ordering idempotency fingerprint v1')
    // Answers are kept sealed: one may carry a credential (a tracking link's token, which the
    // database otherwise holds only hashed and sealed, README), and all carry customers' data.
    this.answerKey = hmac(dataKey, 'service-ordering idempotency answer v1')
  }

  /** An answer as kept for 24 hours: sealed with the data key. */
  private seal(answer: unknown): string {
    return encrypt(this.answerKey, JSON.stringify(answer))
  }

  /** A kept answer; one kept in the clear, before answers were sealed, is read as it is. */
  private unseal(stored: string): unknown {
    return JSON.parse(stored.startsWith('v1.') ? decrypt(this.answerKey, stored) : stored) as unknown
  }

  /** Runs `work` in a transaction; with a key, at most once per key, path and body. */
  async run<T>(caller: Caller, work: Work<T>): Promise<T> {
    const idempotency = caller.idempotency
    if (idempotency === undefined) return this.database.unitOfWork.run(work)
    const scope = {
      owner: idempotency.owner,
      key: idempotency.key,
      fingerprint: hmac(this.fingerprintKey, idempotency.request).toString('hex')
    }
    try {
      return await this.database.unitOfWork.run(async (tx) => {
        const replay = await this.claim(tx, scope)
        if (replay !== undefined) return replay as T
        const value = await work(tx)
        await this.statements.overwrite.run({ ...scope, status_code: 200, response: this.seal(value), created_at: this.clock.now() }, tx)
        return value
      })
    } catch (error) {
      if (isReplayable(error)) {
        // The use case rolled back; its failure is recorded on its own so a repeat answers the same.
        await this.database.unitOfWork.run(async (tx) => {
          await this.statements.claim.run(
            { ...scope, status_code: error.status, response: this.seal(error.toDocument()), created_at: this.clock.now() },
            tx
          )
        })
      }
      throw error
    }
  }

  /** Claims the key; returns a stored success to replay, throws a stored failure, or undefined to go on. */
  private async claim(tx: Tx, scope: Fingerprinted): Promise<unknown> {
    const now = this.clock.now()
    const pending = { ...scope, status_code: 0, response: '', created_at: now }
    if ((await this.statements.claim.run(pending, tx)) === 1) return undefined
    const existing = await this.statements.find.first(scope, tx)
    if (existing === undefined || existing.created_at <= now - DAY_MS) {
      await this.statements.overwrite.run(pending, tx)
      return undefined
    }
    if (existing.fingerprint !== scope.fingerprint) throw problems.idempotencyKeyReused()
    if (existing.status_code === 200) return this.unseal(existing.response)
    const document = this.unseal(existing.response) as ProblemDocument
    throw new ReplayedProblem(document.code, document.detail, document.errors)
  }

  /**
   * Whether a request the schemas refused carries a key this credential already sent, within 24
   * hours, with another path or body. D-52 answers such a key 422 whatever the body: a key sent
   * again to another operation is named as reused, not buried under that operation's 400.
   */
  async reusedElsewhere(caller: Caller): Promise<boolean> {
    const idempotency = caller.idempotency
    if (idempotency === undefined || !VALID_KEY.test(idempotency.key)) return false
    const existing = await this.statements.find.first({ owner: idempotency.owner, key: idempotency.key })
    if (existing === undefined || existing.created_at <= this.clock.now() - DAY_MS) return false
    return existing.fingerprint !== hmac(this.fingerprintKey, idempotency.request).toString('hex')
  }

  /** Deletes keys older than 24 hours; run from time to time. */
  async purgeExpired(): Promise<number> {
    const before = this.clock.now() - DAY_MS
    return this.database.unitOfWork.run((tx) => this.statements.purge.run({ before }, tx))
  }
}
