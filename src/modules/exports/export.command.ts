import fs from 'node:fs'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { stringify } from 'csv-stringify/sync'
import { messageOf } from '../../common/async.js'
import { type Clock, systemClock } from '../../common/clock.js'
import type { ExportTable } from '../../common/export-table.js'
import type { Config } from '../../config.js'
import { openDatabase } from '../../db/database.js'
import { migrateToLatest } from '../../db/migrator.js'
import { withReadSnapshot } from '../../db/read-snapshot.js'
import { exportCatalogue } from '../catalogue/index.js'
import { exportCustomers } from '../customers/index.js'
import { exportOrders } from '../orders/index.js'

export const EXPORT_USAGE = `  export [--to DIR]                           write every customer, service, step, item, order,
                                              receipt line and history entry as CSV files (D-94)
                                              from one consistent snapshot into DIR (default
                                              DATA_DIR/exports/service-ordering-YYYYMMDDTHHMMSSZ);
                                              no password hash, card data or token; prints one
                                              JSON line: {"dir","files":{"customers.csv":N,…}}
`

/** `service-ordering-20261127T181500Z`: the default directory's name, in UTC. */
function stampedName(now: number): string {
  return `service-ordering-${new Date(now)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z')}`
}

/** RFC 4180 (D-94): a header row, CRLF line ends, fields quoted only when they need it. */
function toCsv(table: ExportTable): string {
  return stringify([table.columns, ...table.rows], { record_delimiter: '\r\n', cast: { number: String } })
}

/** Reads all tables in one snapshot, writes them into a temporary directory, then renames it into place. */
async function writeExport(config: Config, dir: string): Promise<{ dir: string; files: Record<string, number> }> {
  if (fs.existsSync(dir)) throw new Error(`${dir} already exists`)
  const database = openDatabase(config)
  let tables: ExportTable[]
  try {
    await migrateToLatest(database.db, database.dialect)
    tables = await withReadSnapshot(database, config, async (db) => [
      ...(await exportCustomers(db)),
      ...(await exportCatalogue(db)),
      ...(await exportOrders(db))
    ])
  } finally {
    await database.close()
  }
  fs.mkdirSync(path.dirname(dir), { recursive: true })
  // A crash leaves only the `.partial` directory, never a half-written export under the final name.
  const temporary = `${dir}.partial`
  fs.rmSync(temporary, { recursive: true, force: true })
  fs.mkdirSync(temporary)
  const files: Record<string, number> = {}
  try {
    for (const table of tables) {
      fs.writeFileSync(path.join(temporary, table.file), toCsv(table), { mode: 0o600 })
      files[table.file] = table.rows.length
    }
    fs.renameSync(temporary, dir)
  } catch (error) {
    fs.rmSync(temporary, { recursive: true, force: true })
    throw error
  }
  return { dir, files }
}

/** `service-ordering export [--to DIR]`: one JSON line on success, one line on stderr and exit 1 on failure. */
export async function exportCommand(
  config: Config,
  args: string[],
  usageError: (message: string) => Error,
  clock: Clock = systemClock
): Promise<void> {
  const { values, positionals } = parseArgs({ args, options: { to: { type: 'string' } }, allowPositionals: true, strict: true })
  if (positionals.length > 0) throw usageError(`unexpected argument ${positionals[0]}`)
  if (values.to !== undefined && values.to.trim() === '') throw usageError('--to needs a directory')
  const dir = path.resolve(values.to ?? path.join(config.dataDir, 'exports', stampedName(clock.now())))
  try {
    process.stdout.write(`${JSON.stringify(await writeExport(config, dir))}\n`)
  } catch (error) {
    process.stderr.write(`service-ordering: cannot export into ${dir}: ${messageOf(error).split('\n')[0]}\n`)
    process.exitCode = 1
  }
}
