import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type { Clock } from '../../../src/common/clock.js'
import { systemClock } from '../../../src/common/clock.js'
import { loadConfig } from '../../../src/config.js'
import { type RunningServer, startServer } from '../../../src/http-server.js'
import { ApiKeysService } from '../../../src/modules/api-keys/api-keys.service.js'

/** A staff user made through the API, with the password they sign in with (D-15). */
export interface StaffUser {
  readonly staff_id: string
  readonly email: string
  readonly name: string
  readonly role: 'admin' | 'staff'
  readonly password: string
}

/** The wall clock moved by an offset the test sets: orders made "hours ago" without waiting (D-48). */
class ShiftedClock implements Clock {
  private offsetMs = 0
  now(): number {
    return Date.now() + this.offsetMs
  }
  /** From now on the server's "now" is this far from the wall clock (negative: in the past). */
  shift(offsetMs: number): void {
    this.offsetMs = offsetMs
  }
}

/** A real server on a port of its own, with a temporary SQLite database and keys of each role. */
export interface E2eServer {
  readonly server: RunningServer
  readonly url: string
  /** DATA_DIR: the dispatcher writes e-mails under `mail/` (no SMTP_URL). */
  readonly dataDir: string
  readonly clock: ShiftedClock
  /** `KEY_ID:SECRET` of each role, as a person would paste them. */
  readonly keys: { admin: string; staff: string; app: string }
  /** A /v1 call with the admin key; asserts 200 and answers the JSON body. */
  api<T = any>(apiPath: string, body?: unknown): Promise<T>
  /** A staff user with a password, made with the admin key (POST /v1/staff/create). */
  staff(name: string, role?: 'admin' | 'staff'): Promise<StaffUser>
  stop(): Promise<void>
}

export interface E2eOptions {
  /** TIME_ZONE of the shop (D-51); UTC unless told. */
  timeZone?: string
  /** Run the outbox dispatcher in the process: e-mails land in DATA_DIR/mail, `trak` adds history entries. */
  dispatcher?: boolean
}

/** Starts the whole server as `npm start` does (startServer), on port 0 in a temporary folder. */
export async function startE2eServer(options: E2eOptions = {}): Promise<E2eServer> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'so-e2e-'))
  const admin = `key_e2eadmin:${randomBytes(32).toString('base64url')}`
  const config = loadConfig({
    DATABASE_URL: `sqlite:${path.join(dir, 'e2e.db')}`,
    DATA_DIR: dir,
    HOST: '127.0.0.1',
    PORT: '0',
    BOOTSTRAP_API_KEY: admin,
    TIME_ZONE: options.timeZone ?? 'UTC',
    SHOP_NAME: 'Corner Laundry',
    // Off unless asked: deterministic timelines, no tracking entries added behind the test's back.
    DISPATCHER: options.dispatcher === true ? 'on' : 'off',
    LOG_LEVEL: 'silent'
  })
  const clock = new ShiftedClock()
  const server = await startServer(config, { clock })
  const keys = new ApiKeysService(server.database, systemClock)
  const staffKey = await keys.create('staff', 'e2e front desk')
  const appKey = await keys.create('app', 'e2e app')
  const authorization = `Basic ${Buffer.from(admin).toString('base64')}`
  const api = async <T>(apiPath: string, body?: unknown): Promise<T> => {
    const response = await fetch(`${server.url}${apiPath}`, {
      method: 'POST',
      headers: { authorization, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) })
    })
    const text = await response.text()
    assert.equal(response.status, 200, `${apiPath}: ${text}`)
    return JSON.parse(text) as T
  }
  let made = 0
  return {
    server,
    url: server.url,
    dataDir: dir,
    clock,
    keys: { admin, staff: `${staffKey.id}:${staffKey.secret}`, app: `${appKey.id}:${appKey.secret}` },
    api,
    staff: async (name, role = 'staff') => {
      made += 1
      const email = `${name.toLowerCase().replace(/[^a-z]+/g, '.')}.${made}@example.com`
      const password = `pass-word-${made}-${randomBytes(6).toString('hex')}`
      const view = await api<{ staff_id: string }>('/v1/staff/create', { email, name, role, password })
      return { staff_id: view.staff_id, email, name, role, password }
    },
    stop: async () => {
      await server.close(2_000)
      fs.rmSync(dir, { recursive: true, force: true })
    }
  }
}
