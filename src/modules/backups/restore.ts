import fs from 'node:fs'
import path from 'node:path'
import BetterSqlite3 from 'better-sqlite3'
import type { Config } from '../../config.js'
import { openDatabase } from '../../db/database.js'
import { MIGRATION_NAMES, migrateToLatest } from '../../db/migrator.js'
import { dataKeyFingerprint, loadCardKey } from '../payments/index.js'

/** A restore that must not happen: one line for stderr, nothing changed (D-93). */
class RestoreRefused extends Error {}

const SQLITE_MAGIC = Buffer.from('SQLite format 3\0', 'latin1')

/** `YYYYMMDDTHHMMSSZ` of a moment, for the name the replaced database is kept under (D-93). */
function stamp(now: Date): string {
  return now
    .toISOString()
    .replace(/\.\d{3}Z$/, 'Z')
    .replace(/[-:]/g, '')
}

function fsyncPath(file: string): void {
  const fd = fs.openSync(file, 'r')
  try {
    fs.fsyncSync(fd)
  } finally {
    fs.closeSync(fd)
  }
}

/** Copies a file and syncs the copy, so a rename after it never exposes a half-written file. */
function copySynced(from: string, to: string): void {
  fs.copyFileSync(from, to, fs.constants.COPYFILE_EXCL)
  fsyncPath(to)
}

/** Refuses a file that is not a whole SQLite database: the header's page count must fit in it. */
function checkHeader(file: string): void {
  let stat: fs.Stats
  try {
    stat = fs.statSync(file)
  } catch {
    throw new RestoreRefused(`${file} cannot be read`)
  }
  if (!stat.isFile()) throw new RestoreRefused(`${file} is not a file`)
  const header = Buffer.alloc(100)
  const fd = fs.openSync(file, 'r')
  let read: number
  try {
    read = fs.readSync(fd, header, 0, 100, 0)
  } finally {
    fs.closeSync(fd)
  }
  if (read < 100 || !header.subarray(0, 16).equals(SQLITE_MAGIC)) throw new RestoreRefused(`${file} is not a SQLite database`)
  const rawPageSize = header.readUInt16BE(16)
  const pageSize = rawPageSize === 1 ? 65_536 : rawPageSize
  const pages = header.readUInt32BE(28)
  if (stat.size < pageSize * pages) throw new RestoreRefused(`${file} is truncated: ${stat.size} bytes of ${pageSize * pages}`)
}

function tableExists(connection: BetterSqlite3.Database, name: string): boolean {
  return connection.prepare("select 1 from sqlite_master where type = 'table' and name = ?").get(name) !== undefined
}

/**
 * Refuses a copy that is not a sound service-ordering database of this version or older, or that
 * was written under another card key (D-93): its cards would stay sealed for good.
 */
function checkCopy(copy: string, file: string, fingerprint: string): void {
  let connection: BetterSqlite3.Database
  try {
    connection = new BetterSqlite3(copy, { fileMustExist: true })
  } catch (error) {
    throw new RestoreRefused(`${file} is not a SQLite database: ${(error as Error).message}`)
  }
  try {
    let integrity: unknown[]
    try {
      integrity = connection.pragma('integrity_check', { simple: false }) as unknown[]
    } catch (error) {
      throw new RestoreRefused(`${file} is not a sound SQLite database: ${(error as Error).message}`)
    }
    const first = integrity[0] as { integrity_check?: string } | undefined
    if (integrity.length !== 1 || first?.integrity_check !== 'ok') throw new RestoreRefused(`${file} fails PRAGMA integrity_check`)
    if (!tableExists(connection, 'kysely_migration'))
      throw new RestoreRefused(`${file} is not a service-ordering database (no kysely_migration table)`)
    const names = connection.prepare('select name from kysely_migration').pluck().all() as string[]
    const unknown = names.filter((name) => !MIGRATION_NAMES.includes(name))
    if (unknown.length > 0) throw new RestoreRefused(`${file} has a schema newer than this version (migration ${unknown[0]})`)
    if (tableExists(connection, 'data_key')) {
      const recorded = connection.prepare('select fingerprint from data_key where id = 1').pluck().get() as string | undefined
      if (recorded !== undefined && recorded !== fingerprint)
        throw new RestoreRefused(`${file} was written under another card key (data key fingerprint ${recorded}, configured ${fingerprint})`)
    }
  } finally {
    connection.close()
  }
}

/**
 * Takes the live database for this process alone, or refuses (D-93). Leaving WAL mode needs the
 * only connection: every open one (a server, a worker) holds a shared lock on the file all along.
 * In rollback mode the exclusive transaction then keeps a starting server out until the swap is done.
 */
function takeLive(live: string): BetterSqlite3.Database {
  const connection = new BetterSqlite3(live, { fileMustExist: true, timeout: 0 })
  try {
    let mode: unknown
    try {
      mode = connection.pragma('journal_mode = DELETE', { simple: true })
    } catch {
      mode = 'busy'
    }
    if (mode !== 'delete') throw new RestoreRefused(`${live} is open in another process (a server or worker): stop it first`)
    try {
      connection.exec('begin exclusive')
    } catch {
      throw new RestoreRefused(`${live} is open in another process (a server or worker): stop it first`)
    }
    return connection
  } catch (error) {
    connection.close()
    throw error
  }
}

/**
 * `service-ordering restore FILE` on SQLite (D-93): checks FILE, keeps the live database beside
 * it as `<file>.replaced-YYYYMMDDTHHMMSSZ`, puts FILE in its place and migrates it. Returns the line
 * to print; throws RestoreRefused with nothing changed.
 */
export async function restoreSqlite(config: Config, file: string, now = new Date()): Promise<string> {
  if (config.database.kind !== 'sqlite' || config.database.file === ':memory:') {
    throw new RestoreRefused('restore works on a SQLite database file: on PostgreSQL restore the .dump with pg_restore')
  }
  const live = config.database.file
  const source = path.resolve(file)
  if (source === live) throw new RestoreRefused(`${file} is the live database itself`)
  checkHeader(source)
  // loadCardKey would generate a new key here: its fingerprint matches no backup, and the file would stay.
  if (config.cardEncryptionKey === null && !fs.existsSync(path.join(config.dataDir, 'card-key'))) {
    throw new RestoreRefused(`no card key: set CARD_ENCRYPTION_KEY or put back ${path.join(config.dataDir, 'card-key')} first`)
  }
  const fingerprint = dataKeyFingerprint(loadCardKey(config))
  fs.mkdirSync(path.dirname(live), { recursive: true })
  const staged = `${live}.restore-${process.pid}.tmp`
  const kept = `${live}.replaced-${stamp(now)}`
  let lock: BetterSqlite3.Database | null = null
  try {
    copySynced(source, staged)
    checkCopy(staged, file, fingerprint)
    if (fs.existsSync(live)) {
      lock = takeLive(live)
      copySynced(live, kept)
      for (const suffix of ['-wal', '-shm']) fs.rmSync(`${live}${suffix}`, { force: true })
    }
    fs.renameSync(staged, live)
    fsyncPath(path.dirname(live))
  } finally {
    lock?.close()
    for (const suffix of ['', '-wal', '-shm']) fs.rmSync(`${staged}${suffix}`, { force: true })
  }
  const database = openDatabase(config)
  let applied: string[]
  try {
    applied = await migrateToLatest(database.db, database.dialect)
  } finally {
    await database.close()
  }
  const migrated = applied.length === 0 ? 'schema up to date' : `applied ${applied.join(', ')}`
  const keptNote = lock === null ? 'there was no database to keep' : `the replaced database is kept as ${kept}`
  return `restored ${file} into ${live} (${migrated}); ${keptNote}\n`
}
