import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import BetterSqlite3 from 'better-sqlite3'
import pg from 'pg'
import { wrkVersion } from './loadgen.js'

/** The machine a run was taken on. */
export interface MachineInfo {
  cpu: string
  cores: number
  memoryGiB: number
  os: string
  kernel: string
  node: string
  sqlite: string
  postgres: string | null
  wrk: string
  commit: string
  loadAverage: number[]
}

function read(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8')
  } catch {
    return ''
  }
}

/** The PostgreSQL server version at `url`, or null when none answers. */
export async function postgresVersion(url: string): Promise<string | null> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 })
  try {
    await client.connect()
    const result = await client.query<{ server_version: string }>('show server_version')
    return result.rows[0]?.server_version ?? null
  } catch {
    return null
  } finally {
    await client.end().catch(() => {})
  }
}

export async function machineInfo(postgresUrl: string): Promise<MachineInfo> {
  const cpuinfo = read('/proc/cpuinfo')
  const model = /^model name\s*:\s*(.+)$/m.exec(cpuinfo)?.[1]?.trim() ?? os.cpus()[0]?.model ?? 'unknown'
  const mhz = /^cpu MHz\s*:\s*([\d.]+)$/m.exec(cpuinfo)?.[1]
  const release = /^PRETTY_NAME="?([^"\n]+)"?$/m.exec(read('/etc/os-release'))?.[1] ?? os.type()
  const sqlite = new BetterSqlite3(':memory:')
  const sqliteVersion = (sqlite.prepare('select sqlite_version() as v').get() as { v: string }).v
  sqlite.close()
  const git = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' })
  const dirty = spawnSync('git', ['status', '--porcelain', '--untracked-files=no'], { encoding: 'utf8' })
  return {
    cpu: mhz === undefined ? model : `${model} (${Math.round(Number(mhz))} MHz)`,
    cores: os.cpus().length,
    memoryGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    os: release,
    kernel: os.release(),
    node: process.version,
    sqlite: `${sqliteVersion} (better-sqlite3)`,
    postgres: await postgresVersion(postgresUrl),
    wrk: wrkVersion(),
    commit: git.status === 0 ? `${git.stdout.trim()}${dirty.stdout.trim() === '' ? '' : ' + uncommitted changes'}` : 'unknown',
    loadAverage: os.loadavg().map((n) => Math.round(n * 100) / 100)
  }
}
