import fs from 'node:fs'
import path from 'node:path'
import type { Clock } from '../../common/clock.js'
import { sha256Hex } from '../../common/crypto.js'
import { ensureDirectory } from '../../common/directories.js'
import { newKeyId, newSecret } from '../../common/ids.js'
import type { Database } from '../../db/database.js'
import { type ApiKeySummary, apiKeysRepository } from './api-keys.repository.js'
import type { ApiKeyRole } from './api-keys.table.js'

// Any fixed number; names the advisory lock that keeps two starts from both making a start-up key.
const START_UP_KEY_LOCK = 7_301_001

/** A key as created: the only moment its secret exists outside the caller's hands. */
export interface CreatedApiKey {
  id: string
  secret: string
  role: ApiKeyRole
  name: string
}

/** Creating, listing and revoking API keys (D-10, D-90), and the start-up keys of D-02 and D-03. */
export class ApiKeysService {
  private readonly repo

  constructor(
    private readonly database: Database,
    private readonly clock: Clock
  ) {
    this.repo = apiKeysRepository(database)
  }

  /** Makes a new key; its secret is returned once and stored only as SHA-256. */
  async create(role: ApiKeyRole, name: string): Promise<CreatedApiKey> {
    const key = { id: newKeyId(), secret: newSecret(), role, name }
    await this.database.unitOfWork.run((tx) =>
      this.repo.insert(tx, { id: key.id, name, role, secret_hash: sha256Hex(key.secret), created_at: this.clock.now() })
    )
    return key
  }

  list(): Promise<ApiKeySummary[]> {
    return this.database.unitOfWork.run((tx) => this.repo.list(tx))
  }

  /** Revokes a key at once; false when there is no such active key. */
  revoke(id: string): Promise<boolean> {
    return this.database.unitOfWork.run((tx) => this.repo.revoke(tx, id, this.clock.now()))
  }

  /** D-02 BOOTSTRAP_API_KEY: an admin key with exactly this id and secret exists afterwards. */
  async ensureBootstrapKey(id: string, secret: string): Promise<void> {
    const secretHash = sha256Hex(secret)
    await this.database.unitOfWork.run(async (tx) => {
      // Several API processes started at once with the same BOOTSTRAP_API_KEY (replicas of one
      // deployment) all found no key and all inserted it: on PostgreSQL all but one failed to
      // start with a unique violation. The start-up lock makes them take turns (D-02, D-04).
      await this.database.dialect.lockForTransaction(tx, START_UP_KEY_LOCK)
      const existing = await this.repo.find(tx, id)
      if (existing === undefined) {
        await this.repo.insert(tx, { id, name: 'bootstrap', role: 'admin', secret_hash: secretHash, created_at: this.clock.now() })
      } else if (existing.role !== 'admin' || existing.secret_hash !== secretHash || existing.revoked_at !== null) {
        await this.repo.overwrite(tx, id, 'admin', secretHash)
      }
    })
  }

  /**
   * D-03: on a database without any API key, creates an admin key and writes `KEY_ID:SECRET` to
   * `<dataDir>/initial-api-key` (mode 0600). Returns the file's path when it wrote one.
   */
  async ensureInitialKey(dataDir: string): Promise<string | null> {
    const file = path.join(dataDir, 'initial-api-key')
    let written = false
    try {
      return await this.database.unitOfWork.run(async (tx) => {
        await this.database.dialect.lockForTransaction(tx, START_UP_KEY_LOCK)
        if ((await this.repo.count(tx)) > 0) return null
        const key = { id: newKeyId(), secret: newSecret() }
        await this.repo.insert(tx, {
          id: key.id,
          name: 'initial',
          role: 'admin',
          secret_hash: sha256Hex(key.secret),
          created_at: this.clock.now()
        })
        // Written before the commit: a key whose secret nobody was given must never exist.
        ensureDirectory(dataDir)
        fs.writeFileSync(file, `${key.id}:${key.secret}\n`, { mode: 0o600 })
        fs.chmodSync(file, 0o600)
        written = true
        return file
      })
    } catch (error) {
      if (written) fs.rmSync(file, { force: true })
      throw error
    }
  }
}
