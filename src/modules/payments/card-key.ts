import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import type { Config } from '../../config.js'

/**
 * The 32-byte key card numbers are sealed with (D-02, D-34): CARD_ENCRYPTION_KEY, or outside
 * production a key generated once into `<dataDir>/card-key` (mode 0600). Losing that file makes
 * stored cards unreadable, so it is created exclusively and never overwritten.
 */
export function loadCardKey(config: Pick<Config, 'cardEncryptionKey' | 'production' | 'dataDir'>): Buffer {
  if (config.cardEncryptionKey !== null) return config.cardEncryptionKey
  if (config.production) throw new Error('CARD_ENCRYPTION_KEY must be set when NODE_ENV=production')
  const file = path.join(config.dataDir, 'card-key')
  fs.mkdirSync(config.dataDir, { recursive: true })
  try {
    fs.writeFileSync(file, `${randomBytes(32).toString('base64')}\n`, { flag: 'wx', mode: 0o600 })
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
  }
  const key = Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'base64')
  if (key.length !== 32) throw new Error(`${file} does not hold a 32-byte base64 key`)
  return key
}
