import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { ensureDirectory } from '../../common/directories.js'
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
  ensureDirectory(config.dataDir)
  if (!fs.existsSync(file)) createKeyFile(file)
  const key = Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'base64')
  if (key.length !== 32) throw new Error(`${file} does not hold a 32-byte base64 key`)
  return key
}

/**
 * Writes a new key to a file of its own, synced, then links it in as `file` unless one is there.
 * A link is created whole or not at all, so processes starting together (D-04) never read a key
 * file another one has created but not written yet; the first link wins and the others use it.
 */
function createKeyFile(file: string): void {
  const temporary = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`
  const fd = fs.openSync(temporary, 'wx', 0o600)
  try {
    fs.writeSync(fd, `${randomBytes(32).toString('base64')}\n`)
    fs.fsyncSync(fd)
  } finally {
    fs.closeSync(fd)
  }
  try {
    fs.linkSync(temporary, file)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
  } finally {
    fs.rmSync(temporary, { force: true })
  }
}
