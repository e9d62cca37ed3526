import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import net from 'node:net'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import { type Database, openDatabase } from '../src/db/database.js'
import { migrateToLatest } from '../src/db/migrator.js'
import { type Child, spawnPinned, waitForHttp } from './processes.js'

/** The repository root (bench/..). */
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
/** Where the bench keeps everything it makes (git-ignored). */
export const BENCH_DIR = path.join(ROOT, '.bench')
const BUILD_DIR = path.join(BENCH_DIR, 'build')

/** The staff/admin credential the server makes sure of at start (BOOTSTRAP_API_KEY). */
export const BOOTSTRAP = { id: 'key_benchadmin', secret: 'bench-admin-secret-0123456789abcdefghijklmnop' }

/**
 * Compiles the server as `npm run build` does, but into .bench/build: the bench measures what
 * `npm start` runs without touching a dist/ others may be using. Returns the entry point.
 */
export function buildServer(log: (line: string) => void): string {
  const tsc = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc')
  const outDir = path.join(BUILD_DIR, 'dist')
  fs.mkdirSync(BUILD_DIR, { recursive: true })
  // dist/version.js reads ../package.json; the copy also marks the build as ES modules. The data
  // files the server reads at start sit beside dist/ as they do in the repository.
  fs.copyFileSync(path.join(ROOT, 'package.json'), path.join(BUILD_DIR, 'package.json'))
  fs.cpSync(path.join(ROOT, 'assets'), path.join(BUILD_DIR, 'assets'), { recursive: true })
  const started = performance.now()
  const result = spawnSync(
    process.execPath,
    [tsc, '-p', path.join(ROOT, 'tsconfig.json'), '--outDir', outDir, '--tsBuildInfoFile', path.join(BUILD_DIR, 'tsbuildinfo')],
    {
      cwd: ROOT,
      encoding: 'utf8'
    }
  )
  const entry = path.join(outDir, 'main.js')
  if (result.status !== 0) {
    if (!fs.existsSync(entry)) throw new Error(`tsc failed:\n${result.stdout}${result.stderr}`)
    log(`warning: tsc reported errors (the build was emitted anyway):\n${result.stdout.split('\n').slice(0, 10).join('\n')}`)
  }
  log(`built the server into ${path.relative(ROOT, outDir)} (${((performance.now() - started) / 1000).toFixed(1)} s)`)
  return entry
}

/** A free TCP port on the loopback interface. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port'))))
    })
  })
}

/** A fresh database for one data set: a new SQLite file, or a new PostgreSQL database. */
export interface BenchDatabase {
  /** DATABASE_URL for the server. */
  url: string
  /** Opens it as the server does (for seeding and checks). */
  open(synchronous: 'FULL' | 'NORMAL'): Database
  /** Deletes the file or drops the database. */
  drop(): Promise<void>
}

function withDatabase(url: string, name: string): string {
  const parsed = new URL(url)
  parsed.pathname = `/${name}`
  return parsed.toString()
}

export async function createDatabase(kind: 'sqlite' | 'postgres', dir: string, label: string, adminUrl: string): Promise<BenchDatabase> {
  const settings = (database: Parameters<typeof openDatabase>[0]['database'], synchronous: 'FULL' | 'NORMAL') =>
    openDatabase({ database, sqliteSynchronous: synchronous, databasePoolMax: 4, statementTimeoutMs: 0 })
  if (kind === 'sqlite') {
    const file = path.join(dir, `${label}.db`)
    const files = [file, `${file}-wal`, `${file}-shm`]
    for (const f of files) fs.rmSync(f, { force: true })
    fs.mkdirSync(dir, { recursive: true })
    return {
      url: `sqlite:${file}`,
      open: (synchronous) => settings({ kind: 'sqlite', file }, synchronous),
      drop: async () => {
        for (const f of files) fs.rmSync(f, { force: true })
      }
    }
  }
  const name = `so_bench_${label.replace(/[^a-z0-9_]/gi, '_').toLowerCase()}`
  const admin = new pg.Client({ connectionString: adminUrl })
  await admin.connect()
  try {
    await admin.query(`drop database if exists ${name}`)
    await admin.query(`create database ${name}`)
  } finally {
    await admin.end()
  }
  const url = withDatabase(adminUrl, name)
  return {
    url,
    open: () => settings({ kind: 'postgres', url }, 'FULL'),
    drop: async () => {
      const client = new pg.Client({ connectionString: adminUrl })
      await client.connect()
      try {
        await client.query(`drop database if exists ${name} with (force)`)
      } finally {
        await client.end()
      }
    }
  }
}

/** Opens, migrates (as the server would at start), runs `work`, closes. */
export async function withOpenDatabase<T>(database: BenchDatabase, work: (db: Database) => Promise<T>): Promise<T> {
  const db = database.open('FULL')
  try {
    await migrateToLatest(db.db, db.dialect)
    return await work(db)
  } finally {
    await db.close()
  }
}

export interface ServerOptions {
  entry: string
  databaseUrl: string
  port: number
  cpu: number | null
  logLevel: string
  synchronous: 'FULL' | 'NORMAL'
  dataDir: string
  logFile: string
  workers?: number
  redisUrl?: string | null
  /** After `npm start`'s own flags, so a later one of the same name wins. */
  nodeFlags?: readonly string[]
}

/** The Node flags of package.json's `start` script: the bench runs the API exactly as it is started, from one copy. */
export function npmStartFlags(startScript: string): string[] {
  const match = /\bnode((?:\s+--[^\s]+)*)\s+dist\/main\.js\b/.exec(startScript)
  if (match === null) throw new Error(`cannot find "node … dist/main.js" in the start script: ${startScript}`)
  return match[1]!
    .trim()
    .split(/\s+/)
    .filter((flag) => flag !== '')
}

const START_FLAGS = npmStartFlags(
  (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start
)

/** Starts the API as `npm start` does, pinned to a core, and waits until it is ready. */
export async function startApiServer(options: ServerOptions): Promise<Child> {
  const child = spawnPinned({
    name: 'api server',
    command: process.execPath,
    args: [...START_FLAGS, ...(options.nodeFlags ?? []), options.entry],
    cpu: options.cpu,
    logFile: options.logFile,
    cwd: ROOT,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      PORT: String(options.port),
      HOST: '127.0.0.1',
      DATABASE_URL: options.databaseUrl,
      DATA_DIR: options.dataDir,
      BOOTSTRAP_API_KEY: `${BOOTSTRAP.id}:${BOOTSTRAP.secret}`,
      LOG_LEVEL: options.logLevel,
      DISPATCHER: 'off',
      SQLITE_SYNCHRONOUS: options.synchronous,
      WORKERS: String(options.workers ?? 1),
      ...(options.redisUrl ? { REDIS_URL: options.redisUrl } : {}),
      // As `npm start` sets it; MALLOC_ARENA_MAX=0 leaves glibc's default.
      ...(process.env.MALLOC_ARENA_MAX === '0' ? {} : { MALLOC_ARENA_MAX: process.env.MALLOC_ARENA_MAX ?? '2' })
    }
  })
  try {
    await waitForHttp(`http://127.0.0.1:${options.port}/readyz`, child)
    // /readyz answers once the first API process listens; give the others (node:cluster) time to.
    if ((options.workers ?? 1) > 1) await new Promise((resolve) => setTimeout(resolve, 3000))
  } catch (error) {
    await child.stop(1000)
    throw new Error(`${(error as Error).message}; its log: ${options.logFile}\n${tail(options.logFile)}`)
  }
  return child
}

/**
 * Starts one of the bench's own servers (bench/NAME.ts, run through tsx) pinned to a core, and
 * waits until `ready` answers; a server that does not is stopped, its log's tail in the error.
 */
async function startBenchServer(
  name: 'baseline' | 'reference',
  options: {
    port: number
    cpu: number | null
    logFile: string
    env?: NodeJS.ProcessEnv
    ready: string
    init?: RequestInit
    nodeFlags?: readonly string[]
  }
): Promise<Child> {
  const child = spawnPinned({
    name,
    command: process.execPath,
    args: [...(options.nodeFlags ?? []), '--import', 'tsx', path.join(ROOT, 'bench', `${name}.ts`)],
    cpu: options.cpu,
    logFile: options.logFile,
    cwd: ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, PORT: String(options.port), ...options.env }
  })
  try {
    await waitForHttp(`http://127.0.0.1:${options.port}${options.ready}`, child, 30_000, options.init)
  } catch (error) {
    await child.stop(1000)
    throw new Error(`${(error as Error).message}; its log: ${options.logFile}\n${tail(options.logFile)}`)
  }
  return child
}

/** Starts bench/reference.ts (the full view by hand-prepared SQL) on the seeded database, pinned to a core. */
export function startReference(
  port: number,
  databaseUrl: string,
  cpu: number | null,
  logFile: string,
  nodeFlags?: readonly string[]
): Promise<Child> {
  return startBenchServer('reference', { port, cpu, logFile, env: { DATABASE_URL: databaseUrl }, ready: '/healthz', nodeFlags })
}

/** Starts bench/baseline.ts pinned to a core. */
export function startBaseline(port: number, cpu: number | null, logFile: string): Promise<Child> {
  return startBenchServer('baseline', { port, cpu, logFile, ready: '/v1/ping', init: { method: 'POST' } })
}

function tail(file: string, lines = 15): string {
  try {
    return fs.readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n')
  } catch {
    return ''
  }
}
