#!/usr/bin/env node
import { parseArgs } from 'node:util'
import { messageOf } from './common/async.js'
import { systemClock } from './common/clock.js'
import type { Config } from './config.js'
import { type Database, openDatabase } from './db/database.js'
import { migrateToLatest } from './db/migrator.js'
import { ApiKeysService } from './modules/api-keys/index.js'
import { BACKUP_USAGE, backupCommand, restoreSqlite } from './modules/backups/index.js'
import { contactSelect } from './modules/customers/index.js'
import { EXPORT_USAGE, exportCommand } from './modules/exports/index.js'
import { NOTIFICATIONS_USAGE, outboxCommand, runWorker } from './modules/notifications/index.js'
import { trackedHistoryInsert } from './modules/orders/index.js'
import { STAFF_USAGE, staffCommand } from './modules/staff/index.js'
import type { ApiKeyRole } from './platform/principal.js'
import { formatSeedReport, seedDemo } from './seed/demo-seed.js'
import { configOrExit, serve } from './serve-command.js'

const USAGE = `usage: service-ordering <command>

commands:
  serve [--workers N]                         run the API (the default of npm start); --workers N
                                              forks N API processes on one port (PostgreSQL only;
                                              also WORKERS=N)
  migrate                                     bring the database schema up to date
  api-key create --role admin|staff|app --name NAME
                                              make an API key; prints KEY_ID:SECRET once
  api-key list                                list keys (never their secrets)
  api-key revoke KEY_ID                       revoke a key at once
${STAFF_USAGE}  seed --demo                                 add a demo catalogue and customers; prints their
                                              passwords once; running it again adds nothing
${BACKUP_USAGE}  restore FILE                                put a backup in place of the SQLite database (stop
                                              the server first); keeps the replaced one beside it
${EXPORT_USAGE}${NOTIFICATIONS_USAGE}`

/** A usage mistake: printed with the usage, exit status 2. */
class UsageError extends Error {}

/**
 * Refuses words a command does not take beyond its first `allowed` (D-90): `--name front desk`
 * named the key "front" and dropped "desk" without a word.
 */
function noMoreWords(positionals: readonly string[], allowed = 0): void {
  if (positionals.length > allowed) throw new UsageError(`unexpected argument ${positionals[allowed]}`)
}

/** A command that takes no options and no words. */
function noArguments(args: string[]): void {
  parseArgs({ args, options: {}, strict: true })
}

async function withDatabase<T>(config: Config, fn: (database: Database) => Promise<T>): Promise<T> {
  const database = openDatabase(config)
  try {
    await migrateToLatest(database.db, database.dialect)
    return await fn(database)
  } finally {
    await database.close()
  }
}

const ROLES: readonly ApiKeyRole[] = ['admin', 'staff', 'app']

async function apiKeyCommand(config: Config, args: string[]): Promise<void> {
  const [action, ...rest] = args
  const { values, positionals } = parseArgs({
    args: rest,
    options: { role: { type: 'string' }, name: { type: 'string' } },
    allowPositionals: true,
    strict: true
  })
  // Usage is checked before the database is opened (and migrated): a mistake exits 2 with the
  // usage even when the database is away, and touches nothing (D-90).
  noMoreWords(positionals, action === 'revoke' ? 1 : 0)
  if (action === 'create') {
    const role = values.role as ApiKeyRole | undefined
    if (role === undefined || !ROLES.includes(role)) throw new UsageError('--role must be admin, staff or app')
    const name = values.name?.trim() ?? ''
    if (name === '' || name.length > 100) throw new UsageError('--name must be 1 to 100 characters')
    await withDatabase(config, async (database) => {
      const key = await new ApiKeysService(database, systemClock).create(role, name)
      process.stdout.write(`${key.id}:${key.secret}\n`)
    })
  } else if (action === 'list') {
    await withDatabase(config, async (database) => {
      const rows = await new ApiKeysService(database, systemClock).list()
      process.stdout.write('KEY_ID                ROLE   CREATED                   REVOKED                   NAME\n')
      for (const row of rows) {
        const revoked = row.revoked_at === null ? '-' : new Date(row.revoked_at).toISOString()
        process.stdout.write(
          `${row.id.padEnd(21)} ${row.role.padEnd(6)} ${new Date(row.created_at).toISOString().padEnd(25)} ${revoked.padEnd(25)} ${row.name}\n`
        )
      }
    })
  } else if (action === 'revoke') {
    const id = positionals[0]
    if (id === undefined) throw new UsageError('api-key revoke needs a KEY_ID')
    await withDatabase(config, async (database) => {
      if (!(await new ApiKeysService(database, systemClock).revoke(id))) {
        process.stderr.write(`service-ordering: no active API key ${id}\n`)
        process.exitCode = 1
        return
      }
      process.stdout.write(`revoked ${id}\n`)
    })
  } else {
    throw new UsageError('api-key needs create, list or revoke')
  }
}

/**
 * A reader that stops early (`api-key list | head -1`) closes the pipe: what is left to print has
 * nowhere to go, which is no failure of the command, so it ends quietly instead of with a stack
 * trace. Not for `serve` and `worker`: their log is written to fd 1 by the logger (logger.ts).
 */
function endQuietlyOnClosedPipe(): void {
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0)
    throw error
  })
}

async function main(argv: string[]): Promise<void> {
  const [command = 'serve', ...args] = argv
  if (command !== 'serve' && command !== 'worker') endQuietlyOnClosedPipe()
  if (command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(USAGE)
    return
  }
  if (command === 'serve') {
    // Issue 10: --workers N overrides WORKERS and is checked by the same rule (config.ts); the
    // environment's WORKERS is not read at all then (WORKERS=2 with --workers 1 was refused on SQLite).
    const { values } = parseArgs({ args, options: { workers: { type: 'string' } }, strict: true })
    return serve(configOrExit(values.workers === undefined ? process.env : { ...process.env, WORKERS: values.workers }))
  }
  const config = configOrExit()
  switch (command) {
    case 'migrate': {
      noArguments(args)
      const database = openDatabase(config)
      try {
        const names = await migrateToLatest(database.db, database.dialect)
        process.stdout.write(names.length === 0 ? 'schema is up to date\n' : `applied ${names.join(', ')}\n`)
      } finally {
        await database.close()
      }
      return
    }
    case 'api-key':
      return apiKeyCommand(config, args)
    case 'staff':
      return staffCommand(config, args, (message) => new UsageError(message))
    case 'seed': {
      // D-90: only the demo seed exists; the flag says so explicitly.
      const { values } = parseArgs({ args, options: { demo: { type: 'boolean' } }, strict: true })
      if (values.demo !== true) throw new UsageError('seed needs --demo')
      return withDatabase(config, async (database) => {
        process.stdout.write(formatSeedReport(await seedDemo(database, systemClock)))
      })
    }
    case 'worker':
      noArguments(args)
      return runWorker(config, { contact: contactSelect, trackedEntry: trackedHistoryInsert })
    case 'restore': {
      const { positionals } = parseArgs({ args, options: {}, allowPositionals: true, strict: true })
      noMoreWords(positionals, 1)
      const file = positionals[0]
      if (file === undefined) throw new UsageError('restore needs a FILE')
      // D-93: a refusal throws; main's handler prints its one line and exits 1.
      process.stdout.write(await restoreSqlite(config, file))
      return
    }
    case 'backup':
      return backupCommand(config, args, (message) => new UsageError(message))
    case 'export':
      return exportCommand(config, args, (message) => new UsageError(message))
    case 'outbox':
      return outboxCommand(config, args, (message) => new UsageError(message))
    default:
      throw new UsageError(`unknown command ${command}`)
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  if (error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
    process.stderr.write(`service-ordering: ${(error as Error).message}\n\n${USAGE}`)
    process.exit(2)
  }
  process.stderr.write(`service-ordering: ${messageOf(error)}\n`)
  process.exit(1)
})
