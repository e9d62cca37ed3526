import { spawn } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import pg from 'pg'
import type { Clock } from '../../common/clock.js'
import { ensureDirectory } from '../../common/directories.js'
import type { Config } from '../../config.js'
import { copySqlite, type RowCounts } from './backup.sqlite-copy.js'

/** What a finished backup is: its final path and the rows it holds (D-91). */
export interface BackupResult extends RowCounts {
  readonly path: string
}

export type BackupSettings = Pick<Config, 'database'>

/** The final names a backup takes; retention (D-92) deletes only these. */
const BACKUP_NAME = /^service-ordering-\d{8}T\d{6}Z\.(db|dump)$/
// Temporary names: hidden, with the pid of the process writing them, so a stale one is told apart.
const TEMPORARY_NAME = /^\.service-ordering-\d{8}T\d{6}Z\.(\d+)\.tmp(-journal|-wal|-shm)?$/
const COUNTED = ['customers', 'orders', 'receipt_lines'] as const

/** A failure said as it is in the one line (D-91): pg_dump missing, a copy that is not sound, no database. */
export class BackupError extends Error {}

function stamp(ms: number): string {
  return new Date(ms)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}Z$/, 'Z')
}

function isAlive(pid: number): boolean {
  if (pid === process.pid) return true
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** Deletes temporary files left by backups that crashed; a live process's are left alone. */
function removeStaleTemporaries(dir: string): void {
  for (const name of fs.readdirSync(dir)) {
    const match = TEMPORARY_NAME.exec(name)
    if (match && !isAlive(Number(match[1]))) fs.rmSync(path.join(dir, name), { force: true })
  }
}

// Synced through the thread pool: a large copy's fsync does not hold the API's event loop (D-92).
async function fsyncPath(file: string): Promise<void> {
  const handle = await fs.promises.open(file, 'r')
  try {
    await handle.sync()
  } finally {
    await handle.close()
  }
}

/** Temp name → synced → final name → directory synced: a crash leaves no final name half written (D-91). */
async function publish(temporary: string, final: string): Promise<void> {
  await fsyncPath(temporary)
  if (fs.existsSync(final)) throw new BackupError(`${final} already exists`)
  fs.renameSync(temporary, final)
  await fsyncPath(path.dirname(final))
}

async function backupSqlite(file: string, temporary: string): Promise<RowCounts> {
  if (file === ':memory:') throw new BackupError('an in-memory SQLite database (sqlite::memory:) cannot be backed up')
  if (!fs.existsSync(file)) throw new BackupError(`there is no SQLite database at ${file} (DATABASE_URL, or DATA_DIR)`)
  const copied = await copySqlite(file, temporary)
  if ('failed' in copied) throw new BackupError(copied.failed)
  return copied.counts
}

function countRows(count: (table: (typeof COUNTED)[number]) => number): RowCounts {
  return { customers: count('customers'), orders: count('orders'), receipt_lines: count('receipt_lines') }
}

/** The pg_dump on PATH, or null. */
function findPgDump(): string | null {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (dir === '') continue
    const candidate = path.join(dir, 'pg_dump')
    try {
      fs.accessSync(candidate, fs.constants.X_OK)
      return candidate
    } catch {}
  }
  return null
}

/**
 * Runs pg_dump with the password in its environment, not on its command line, where any local user
 * could read it (SECURITY.md: DATABASE_URL carries credentials).
 */
function runPgDump(pgDump: string, url: string, args: string[]): Promise<void> {
  const withoutPassword = new URL(url)
  const password = decodeURIComponent(withoutPassword.password)
  withoutPassword.password = ''
  const env = password === '' ? process.env : { ...process.env, PGPASSWORD: password }
  return new Promise((resolve, reject) => {
    const child = spawn(pgDump, [...args, '--dbname', withoutPassword.href], { stdio: ['ignore', 'ignore', 'pipe'], env })
    let stderr = ''
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString()
    })
    child.on('error', reject)
    child.on('close', (code) => {
      if (code === 0) resolve()
      else reject(new BackupError(`pg_dump failed: ${stderr.trim().split('\n')[0] || `exit status ${code}`}`))
    })
  })
}

/**
 * pg_dump --format=custom from a snapshot this connection exports, so the printed counts are those
 * of the dump itself (D-91).
 */
async function backupPostgres(url: string, temporary: string): Promise<RowCounts> {
  const pgDump = findPgDump()
  if (pgDump === null) throw new BackupError('a PostgreSQL backup needs the PostgreSQL client tools (pg_dump) on PATH')
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY')
    const snapshot = (await client.query<{ id: string }>('SELECT pg_export_snapshot() AS id')).rows[0]!.id
    const counts: Record<string, number> = {}
    for (const table of COUNTED) {
      counts[table] = Number((await client.query<{ n: string }>(`SELECT count(*) AS n FROM ${table}`)).rows[0]!.n)
    }
    await runPgDump(pgDump, url, ['--format=custom', `--snapshot=${snapshot}`, '--file', temporary])
    await client.query('COMMIT')
    return countRows((table) => counts[table]!)
  } finally {
    await client.end().catch(() => {})
  }
}

/** Takes one backup into `dir` (D-91): temporary name, synced, verified, renamed. */
export async function takeBackup(settings: BackupSettings, dir: string, clock: Clock): Promise<BackupResult> {
  ensureDirectory(dir)
  removeStaleTemporaries(dir)
  const at = stamp(clock.now())
  const extension = settings.database.kind === 'sqlite' ? 'db' : 'dump'
  const temporary = path.join(dir, `.service-ordering-${at}.${process.pid}.tmp`)
  const final = path.join(dir, `service-ordering-${at}.${extension}`)
  try {
    const counts =
      settings.database.kind === 'sqlite'
        ? await backupSqlite(settings.database.file, temporary)
        : await backupPostgres(settings.database.url, temporary)
    await publish(temporary, final)
    return { path: final, ...counts }
  } finally {
    for (const suffix of ['', '-journal', '-wal', '-shm']) fs.rmSync(`${temporary}${suffix}`, { force: true })
  }
}

/** Keeps the newest `keep` backups in `dir`; older ones (final names only) are deleted (D-92). */
export function pruneBackups(dir: string, keep: number): string[] {
  // The stamp sorts by time; .db and .dump of one moment are both kept or both go.
  const names = fs
    .readdirSync(dir)
    .filter((name) => BACKUP_NAME.test(name))
    .sort()
  const old = names.slice(0, Math.max(0, names.length - keep))
  for (const name of old) fs.rmSync(path.join(dir, name), { force: true })
  return old
}
