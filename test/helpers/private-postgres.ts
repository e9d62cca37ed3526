import { execFile, execFileSync } from 'node:child_process'
import fs from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'

/**
 * Issue 25: a throwaway PostgreSQL cluster of one test (initdb into a temporary directory, pg_ctl
 * on a free port), so the test can restart and stop it without touching the shared server on 5432
 * that other test files use at the same time.
 */

const run = promisify(execFile)

/** Where initdb and pg_ctl are: PG_BIN, else Debian's PostgreSQL 15. */
const PG_BIN = process.env.PG_BIN ?? '/usr/lib/postgresql/15/bin'

const isRoot = process.getuid?.() === 0

/** The uid and gid of the `postgres` OS user, or null when there is none. */
function postgresUser(): { uid: number; gid: number } | null {
  try {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim())
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim())
    return Number.isInteger(uid) && Number.isInteger(gid) ? { uid, gid } : null
  } catch {
    return null
  }
}

/** Why no private cluster can be made on this machine, or null when one can. */
export function privateClusterUnavailable(): string | null {
  for (const tool of ['initdb', 'pg_ctl']) {
    if (!fs.existsSync(path.join(PG_BIN, tool))) return `PostgreSQL's ${tool} is not in ${PG_BIN} (set PG_BIN)`
  }
  // initdb refuses to run as root: the cluster then belongs to the postgres user.
  if (isRoot && postgresUser() === null) return 'running as root and there is no postgres OS user to own a private cluster'
  if (isRoot && !fs.existsSync('/usr/sbin/runuser') && !fs.existsSync('/sbin/runuser')) return 'running as root and runuser is missing'
  return null
}

/** A free TCP port on the loopback interface. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port'))))
    })
  })
}

export type StopMode = 'smart' | 'fast' | 'immediate'

/** One private cluster: trust authentication for the postgres role, on 127.0.0.1 only. */
export class PrivateCluster {
  private constructor(
    private readonly dir: string,
    readonly port: number
  ) {}

  private get dataDir(): string {
    return path.join(this.dir, 'data')
  }

  /** Makes the cluster (initdb) and starts it. */
  static async create(): Promise<PrivateCluster> {
    const reason = privateClusterUnavailable()
    if (reason !== null) throw new Error(reason)
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'so-pg-'))
    const owner = isRoot ? postgresUser() : null
    if (owner !== null) fs.chownSync(dir, owner.uid, owner.gid)
    const cluster = new PrivateCluster(dir, await freePort())
    try {
      await cluster.tool('initdb', ['-D', cluster.dataDir, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--no-locale', '--no-sync'])
      // Appended by root keeps the file's owner; a small server, its socket in its own directory.
      fs.appendFileSync(
        path.join(cluster.dataDir, 'postgresql.conf'),
        [
          `port = ${cluster.port}`,
          "listen_addresses = '127.0.0.1'",
          `unix_socket_directories = '${dir}'`,
          'max_connections = 40',
          'shared_buffers = 16MB',
          "log_min_messages = 'warning'",
          ''
        ].join('\n')
      )
      await cluster.start()
      return cluster
    } catch (error) {
      fs.rmSync(dir, { recursive: true, force: true })
      throw error
    }
  }

  /** DATABASE_URL of a database of this cluster. */
  url(database = 'postgres'): string {
    return `postgres://postgres@127.0.0.1:${this.port}/${database}`
  }

  /** Starts the server and waits until it accepts connections. */
  async start(): Promise<void> {
    await this.tool('pg_ctl', ['-D', this.dataDir, '-l', path.join(this.dir, 'server.log'), '-w', '-t', '120', 'start'])
  }

  /** Stops the server: `fast` ends every session (57P01), `immediate` is a crash and WAL recovery at the next start. */
  async stop(mode: StopMode = 'fast'): Promise<void> {
    await this.tool('pg_ctl', ['-D', this.dataDir, '-m', mode, '-w', '-t', '120', 'stop'])
  }

  /** Stops and starts again, as `pg_ctlcluster … restart` does. */
  async restart(mode: StopMode = 'fast'): Promise<void> {
    await this.tool('pg_ctl', ['-D', this.dataDir, '-l', path.join(this.dir, 'server.log'), '-m', mode, '-w', '-t', '120', 'restart'])
  }

  /** Stops the server if it runs and deletes every file of the cluster. */
  async destroy(): Promise<void> {
    await this.stop('immediate').catch(() => {})
    fs.rmSync(this.dir, { recursive: true, force: true })
  }

  /** The server's log, for a failure message. */
  log(): string {
    try {
      return fs.readFileSync(path.join(this.dir, 'server.log'), 'utf8').split('\n').slice(-20).join('\n')
    } catch {
      return ''
    }
  }

  private async tool(name: string, args: string[]): Promise<void> {
    const binary = path.join(PG_BIN, name)
    const [command, argv] = isRoot ? ['runuser', ['-u', 'postgres', '--', binary, ...args]] : [binary, args]
    try {
      await run(command, argv, { cwd: this.dir, timeout: 180_000 })
    } catch (error) {
      const failure = error as { stdout?: string; stderr?: string; message: string }
      throw new Error(`${name} ${args.join(' ')} failed: ${failure.message}\n${failure.stdout ?? ''}${failure.stderr ?? ''}\n${this.log()}`)
    }
  }
}
