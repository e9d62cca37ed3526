// The backups module: `service-ordering backup` and scheduled backups (D-91, D-92), `restore` (D-93).
export { BACKUP_USAGE, backupCommand } from './backup.command.js'
export { type BackupMetrics, registerBackupMetrics, startBackupSchedule } from './backup.schedule.js'
export { restoreSqlite } from './restore.js'
