import { type ChildProcess, spawn, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'

/** A child process the bench started: the API server or the baseline. */
export interface Child {
  readonly name: string
  readonly pid: number
  readonly process: ChildProcess
  /** SIGTERM, then SIGKILL after `graceMs`; resolves when it has exited. */
  stop(graceMs?: number): Promise<number | null>
}

export interface SpawnOptions {
  name: string
  command: string
  args: string[]
  env: NodeJS.ProcessEnv
  /** Core to pin the process (and all its threads) to, or null. */
  cpu: number | null
  /** File receiving stdout and stderr. */
  logFile: string
  cwd?: string
}

/** Starts a process, pinned with taskset (which execs it: the pid is the process's own). */
export function spawnPinned(options: SpawnOptions): Child {
  fs.mkdirSync(path.dirname(options.logFile), { recursive: true })
  const log = fs.openSync(options.logFile, 'a')
  const [command, args] =
    options.cpu === null ? [options.command, options.args] : ['taskset', ['-c', String(options.cpu), options.command, ...options.args]]
  const child = spawn(command, args, { env: options.env, stdio: ['ignore', log, log], cwd: options.cwd })
  fs.closeSync(log)
  if (child.pid === undefined) throw new Error(`could not start ${options.name}`)
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  return {
    name: options.name,
    pid: child.pid,
    process: child,
    async stop(graceMs = 15_000) {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode
      child.kill('SIGTERM')
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs)
      try {
        return await exited
      } finally {
        clearTimeout(timer)
      }
    }
  }
}

/** Waits until `url` answers 200, or throws after `timeoutMs` (or when the process exits). */
export async function waitForHttp(url: string, child: Child, timeoutMs = 60_000, init?: RequestInit): Promise<void> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    if (child.process.exitCode !== null) throw new Error(`${child.name} exited with code ${child.process.exitCode} before answering`)
    try {
      const response = await fetch(url, { ...init, signal: AbortSignal.timeout(2000) })
      await response.arrayBuffer()
      if (response.ok) return
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${child.name} did not answer ${url} within ${timeoutMs} ms`)
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
}

/** Resident set size of a process in bytes (VmRSS), or null when it is gone. */
export function rssOf(pid: number): number | null {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8')
    const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(status)
    return match === null ? null : Number(match[1]) * 1024
  } catch {
    return null
  }
}

/** The pids of a process's children, grandchildren and so on (cluster workers under their primary). */
export function descendants(pid: number): number[] {
  let children: number[] = []
  try {
    for (const task of fs.readdirSync(`/proc/${pid}/task`)) {
      const text = fs.readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim()
      if (text !== '') children.push(...text.split(/\s+/).map(Number))
    }
  } catch {
    return []
  }
  children = [...new Set(children)]
  return [...children, ...children.flatMap((child) => descendants(child))]
}

/** RSS of a process and all its descendants together, in bytes (0 when gone). */
export function rssOfTree(pid: number): number {
  return [pid, ...descendants(pid)].reduce((sum, p) => sum + (rssOf(p) ?? 0), 0)
}

/** Samples a process's RSS while running; `peak` is the largest sample since the last reset. */
export class RssSampler {
  peak = 0
  private timer: NodeJS.Timeout | undefined

  constructor(
    private readonly pid: number,
    private readonly everyMs = 200,
    /** Counts the process's descendants too (`--workers`: the primary and its API processes). */
    private readonly tree = false
  ) {}

  start(): void {
    this.peak = 0
    this.sample()
    this.timer = setInterval(() => this.sample(), this.everyMs)
  }

  stop(): number {
    if (this.timer !== undefined) clearInterval(this.timer)
    this.timer = undefined
    this.sample()
    return this.peak
  }

  private sample(): void {
    const rss = this.tree ? rssOfTree(this.pid) || null : rssOf(this.pid)
    if (rss !== null && rss > this.peak) this.peak = rss
  }
}

const CLOCK_TICKS = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100

/**
 * CPU seconds (user + system) a process has used, or 0 when it is gone; with `children`, also
 * those of its children that have exited (how the load generator's time is counted).
 */
export function cpuSecondsOf(pid: number | 'self', children = false): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8')
    // Fields after the command name, which is in parentheses and may contain spaces.
    const fields = stat
      .slice(stat.lastIndexOf(')') + 2)
      .split(' ')
      .map(Number)
    const own = fields[11]! + fields[12]!
    return (children ? own + fields[13]! + fields[14]! : own) / CLOCK_TICKS
  } catch {
    return 0
  }
}

/** Busy and steal CPU seconds of the whole machine, all cores. */
export function machineCpuSeconds(): { busy: number; steal: number } {
  const line = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0]!
  const [, user, nice, system, , , irq, softirq, steal] = line.trim().split(/\s+/).map(Number) as number[]
  return { busy: (user! + nice! + system! + irq! + softirq!) / CLOCK_TICKS, steal: (steal ?? 0) / CLOCK_TICKS }
}

/**
 * How busy the machine was with other work during a run: its busy CPU seconds minus those of the
 * processes named (the servers), this process and its exited children (the load generator), per
 * second of the run, in cores.
 * Other engineers' test suites on a shared machine show up here.
 */
export class ForeignLoad {
  private machine = machineCpuSeconds()
  private ours = 0
  private started = performance.now()

  constructor(private readonly pids: () => number[]) {}

  begin(): void {
    this.machine = machineCpuSeconds()
    this.ours = this.ourSeconds()
    this.started = performance.now()
  }

  /** Other work in cores (0 to the number of cores), and steal. */
  end(): { cores: number; steal: number } {
    const machine = machineCpuSeconds()
    const seconds = (performance.now() - this.started) / 1000
    const ours = this.ourSeconds() - this.ours
    const busy = machine.busy - this.machine.busy
    return { cores: Math.max(0, (busy - ours) / seconds), steal: (machine.steal - this.machine.steal) / seconds }
  }

  // This process, its exited children (each load run), and the servers still running.
  private ourSeconds(): number {
    return this.pids().reduce((sum, pid) => sum + cpuSecondsOf(pid), 0) + cpuSecondsOf('self', true)
  }
}
