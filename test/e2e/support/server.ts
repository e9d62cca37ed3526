import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { systemClock } from '../../../src/common/clock.js'
import { loadConfig } from '../../../src/config.js'
import { type RunningServer, startServer } from '../../../src/http-server.js'
import { ApiKeysService } from '../../../src/modules/api-keys/api-keys.service.js'

/** A real server on a port of its own, with a temporary SQLite database and keys of each role. */
export interface E2eServer {
  readonly server: RunningServer
  readonly url: string
  /** `KEY_ID:SECRET` of each role, as a person would paste them. */
  readonly keys: { admin: string; staff: string; app: string }
  stop(): Promise<void>
}

/** Starts the whole server as `npm start` does (startServer), on port 0 in a temporary folder. */
export async function startE2eServer(): Promise<E2eServer> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'so-e2e-'))
  const admin = `key_e2eadmin:${randomBytes(32).toString('base64url')}`
  const config = loadConfig({
    DATABASE_URL: `sqlite:${path.join(dir, 'e2e.db')}`,
    DATA_DIR: dir,
    HOST: '127.0.0.1',
    PORT: '0',
    BOOTSTRAP_API_KEY: admin,
    // Deterministic timelines: no tracking entries added behind the test's back.
    DISPATCHER: 'off',
    LOG_LEVEL: 'silent'
  })
  const server = await startServer(config)
  const keys = new ApiKeysService(server.database, systemClock)
  const staff = await keys.create('staff', 'e2e front desk')
  const app = await keys.create('app', 'e2e app')
  return {
    server,
    url: server.url,
    keys: { admin, staff: `${staff.id}:${staff.secret}`, app: `${app.id}:${app.secret}` },
    stop: async () => {
      await server.close(2_000)
      fs.rmSync(dir, { recursive: true, force: true })
    }
  }
}
