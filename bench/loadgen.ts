import { spawn, spawnSync } from 'node:child_process'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const LUA_SCRIPT = path.join(path.dirname(fileURLToPath(import.meta.url)), 'lua', 'cycle.lua')

/** What one load run measured. Latencies in milliseconds. */
export interface LoadResult {
  requests: number
  seconds: number
  rps: number
  p50: number
  p90: number
  p99: number
  p999: number
  max: number
  mean: number
  /** Requests handed to the connections (cursor advance of the request list). */
  sent: number
  /** Responses per status, when counted. */
  statuses: Record<string, number>
  /** Responses that were expected non-2xx outcomes (409 of a spent move). */
  expected: number
  /** Unexpected non-2xx responses, socket errors and timeouts. */
  errors: number
  socketErrors: number
  timeouts: number
}

export interface LoadOptions {
  url: string
  requestFile: string
  /** Index of the first request of the file to send. */
  start: number
  connections: number
  seconds: number
  /** The file holds several requests to cycle through (else wrk repeats its one request without Lua). */
  dynamic: boolean
  countStatuses: boolean
  expectedStatuses: readonly number[]
  /** The core the load generator is pinned to, or null. */
  cpu: number | null
  timeoutSeconds?: number
}

function which(command: string): string | null {
  const result = spawnSync('sh', ['-c', `command -v ${command}`], { encoding: 'utf8' })
  return result.status === 0 ? result.stdout.trim() : null
}

/**
 * Makes sure wrk is installed: Debian's package through apt-get (as root, or with password-less
 * sudo), with `apt-get update` first if the package list does not know it yet.
 */
export function ensureWrk(log: (line: string) => void): string {
  const found = which('wrk')
  if (found !== null) return found
  const root = process.getuid?.() === 0
  const prefix = root ? [] : which('sudo') !== null ? ['sudo', '-n'] : null
  if (prefix === null || which('apt-get') === null) {
    throw new Error('wrk is not installed and cannot be installed here (needs apt-get as root); install it: apt-get install -y wrk')
  }
  const apt = (args: string[]) => {
    const [command, ...rest] = [...prefix, 'apt-get', ...args]
    return spawnSync(command!, rest, { stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } })
  }
  log('wrk not found: installing it with apt-get (Debian package wrk)')
  if (apt(['install', '-y', '-q', 'wrk']).status !== 0) {
    apt(['update', '-q'])
    if (apt(['install', '-y', '-q', 'wrk']).status !== 0) throw new Error('apt-get install -y wrk failed')
  }
  const installed = which('wrk')
  if (installed === null) throw new Error('wrk still not found after apt-get install')
  return installed
}

/** wrk's version line. */
export function wrkVersion(): string {
  const result = spawnSync('wrk', ['--version'], { encoding: 'utf8' })
  return `${result.stdout}${result.stderr}`.split('\n')[0]!.trim()
}

interface RawResult {
  requests: number
  duration_us: number
  p50_us: number
  p90_us: number
  p99_us: number
  p999_us: number
  max_us: number
  mean_us: number
  sent: number
  non2xx: number
  socket_errors: number
  timeouts: number
  statuses: Record<string, number>
}

/** Runs wrk once with bench/lua/cycle.lua, one thread (it gets one core), and returns what it measured. */
export function runLoad(options: LoadOptions): Promise<LoadResult> {
  const wrkArgs = [
    '-t1',
    `-c${options.connections}`,
    `-d${options.seconds}s`,
    `--timeout`,
    `${options.timeoutSeconds ?? 10}s`,
    '--latency',
    '-s',
    LUA_SCRIPT,
    options.url,
    '--',
    options.requestFile,
    String(options.start),
    '1'
  ]
  const [command, args] = options.cpu === null ? ['wrk', wrkArgs] : ['taskset', ['-c', String(options.cpu), 'wrk', ...wrkArgs]]
  return new Promise((resolve, reject) => {
    const child = spawn(command as string, args as string[], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, BENCH_DYNAMIC: options.dynamic ? '1' : '0', BENCH_COUNT_STATUSES: options.countStatuses ? '1' : '0' }
    })
    let out = ''
    let err = ''
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()))
    child.on('error', reject)
    child.on('close', (code) => {
      const line = out.split('\n').find((l) => l.startsWith('BENCH_RESULT '))
      if (code !== 0 || line === undefined) {
        reject(new Error(`wrk failed (exit ${code}): ${err.trim() || out.trim()}`))
        return
      }
      const raw = JSON.parse(line.slice('BENCH_RESULT '.length)) as RawResult
      const seconds = raw.duration_us / 1e6
      let expected = 0
      let unexpected = raw.non2xx
      if (options.countStatuses) {
        unexpected = 0
        for (const [status, count] of Object.entries(raw.statuses)) {
          const code = Number(status)
          if (code >= 200 && code < 300) continue
          if (options.expectedStatuses.includes(code)) expected += count
          else unexpected += count
        }
      }
      resolve({
        requests: raw.requests,
        seconds,
        rps: raw.requests / seconds,
        p50: raw.p50_us / 1000,
        p90: raw.p90_us / 1000,
        p99: raw.p99_us / 1000,
        p999: raw.p999_us / 1000,
        max: raw.max_us / 1000,
        mean: raw.mean_us / 1000,
        sent: raw.sent,
        statuses: raw.statuses,
        expected,
        errors: unexpected + raw.socket_errors + raw.timeouts,
        socketErrors: raw.socket_errors,
        timeouts: raw.timeouts
      })
    })
  })
}

/** Several request files under load at once, one unpinned wrk each, statuses counted; advances each cursor. */
export async function runLoads(
  url: string,
  loads: { name: string; file: string; cursor: number; expectedStatuses: readonly number[] }[],
  connections: number,
  seconds: number
): Promise<Map<string, LoadResult>> {
  const results = await Promise.all(
    loads.map(async (load) => {
      const options = { url, requestFile: load.file, start: load.cursor, connections, seconds, dynamic: true, countStatuses: true }
      const result = await runLoad({ ...options, expectedStatuses: load.expectedStatuses, cpu: null })
      load.cursor += result.sent
      return [load.name, result] as const
    })
  )
  return new Map(results)
}
