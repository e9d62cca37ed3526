import path from 'node:path'
import { parseArgs } from 'node:util'
import { messageOf } from '../../common/async.js'
import { systemClock } from '../../common/clock.js'
import type { Config } from '../../config.js'
import { BackupError, takeBackup } from './backup.js'

export const BACKUP_USAGE = `  backup [--to DIR]                           copy the database now (D-91) into DIR (default
                                              BACKUP_DIR, else DATA_DIR/backups) as
                                              service-ordering-YYYYMMDDTHHMMSSZ.db (.dump on
                                              PostgreSQL, needs pg_dump); prints one JSON line:
                                              {"path","customers","orders","receipt_lines"}
`

/** Where `backup` writes without --to (D-91). */
function defaultBackupDir(config: Pick<Config, 'backupDir' | 'dataDir'>): string {
  return config.backupDir ?? path.join(config.dataDir, 'backups')
}

/** `service-ordering backup [--to DIR]`: one JSON line on success, one line on stderr and exit 1 on failure. */
export async function backupCommand(config: Config, args: string[], usageError: (message: string) => Error): Promise<void> {
  const { values, positionals } = parseArgs({ args, options: { to: { type: 'string' } }, allowPositionals: true, strict: true })
  if (positionals.length > 0) throw usageError(`unexpected argument ${positionals[0]}`)
  if (values.to !== undefined && values.to.trim() === '') throw usageError('--to needs a directory')
  const dir = path.resolve(values.to ?? defaultBackupDir(config))
  try {
    const result = await takeBackup(config, dir, systemClock)
    process.stdout.write(`${JSON.stringify(result)}\n`)
  } catch (error) {
    const message = error instanceof BackupError ? error.message : `cannot back up into ${dir}: ${messageOf(error)}`
    process.stderr.write(`service-ordering: ${message.split('\n')[0]}\n`)
    process.exitCode = 1
  }
}
