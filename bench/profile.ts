import fs from 'node:fs'
import { SourceMap } from 'node:module'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

/** A V8 .cpuprofile as `node --cpu-prof` writes it. */
interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number }; children?: number[] }[]
  /** Microseconds on the monotonic clock (the one process.hrtime reads). */
  startTime: number
  samples: number[]
  timeDeltas: number[]
}

export interface ProfileLine {
  name: string
  where: string
  ms: number
  /** Share of the busy (non-idle) time. */
  share: number
}

export interface ProfileSummary {
  file: string
  totalMs: number
  idleShare: number
  busyMs: number
  /** Functions by self time. */
  self: ProfileLine[]
  /** Functions of the app (src/) by inclusive time: time with the function on the stack. */
  inclusive: ProfileLine[]
  /** Self time grouped by package (node_modules), Node internals, the app, GC. */
  categories: ProfileLine[]
}

const sourceMaps = new Map<string, SourceMap | null>()

/** `src/…ts:line` for a frame of the compiled app, through its source map. */
function original(url: string, line: number, column: number): string | null {
  if (!url.startsWith('file://')) return null
  const file = fileURLToPath(url)
  let map = sourceMaps.get(file)
  if (map === undefined) {
    try {
      map = new SourceMap(JSON.parse(fs.readFileSync(`${file}.map`, 'utf8')))
    } catch {
      map = null
    }
    sourceMaps.set(file, map)
  }
  if (map === null) return null
  const entry = map.findEntry(line, column) as { originalSource?: string; originalLine?: number }
  if (entry.originalSource === undefined) return null
  const source = entry.originalSource.replace(/^.*?\/src\//, 'src/')
  return `${source}:${(entry.originalLine ?? 0) + 1}`
}

function packageOf(url: string): string | null {
  const match = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)
  return match === null ? null : match[1]!
}

function category(url: string, name: string): string {
  if (name === '(garbage collector)') return 'GC'
  if (name === '(program)') return 'V8/native (program)'
  if (url === '') return 'native/builtins'
  const pkg = packageOf(url)
  if (pkg !== null) return pkg
  if (url.startsWith('node:')) {
    const module = url.slice(5).replace(/^internal\//, '')
    const top = module.split('/')[0]!
    return `node:${top}`
  }
  if (/\/(src|dist)\//.test(url)) return 'app (src/)'
  return 'other'
}

function where(url: string, line: number, column: number): string {
  const mapped = original(url, line, column)
  if (mapped !== null) return mapped
  const pkg = packageOf(url)
  if (pkg !== null) return `${pkg}/${url.slice(url.indexOf(`node_modules/${pkg}/`) + `node_modules/${pkg}/`.length)}:${line + 1}`
  if (url.startsWith('node:')) return `${url}:${line + 1}`
  return url === '' ? '' : `${path.basename(url)}:${line + 1}`
}

/**
 * Self and inclusive time per function and per package of a .cpuprofile. With `fromMicros` (a
 * `process.hrtime` reading in microseconds), samples taken before it (start-up, warm-up) are left out.
 */
export function summarizeProfile(file: string, options: { top?: number; fromMicros?: number } = {}): ProfileSummary {
  const top = options.top ?? 25
  const from = options.fromMicros ?? 0
  const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as CpuProfile
  const byId = new Map(profile.nodes.map((node) => [node.id, node]))
  const parent = new Map<number, number>()
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id)

  const selfMs = new Map<number, number>()
  let totalMs = 0
  let idleMs = 0
  let at = profile.startTime
  profile.samples.forEach((id, i) => {
    const delta = profile.timeDeltas[i] ?? 0
    at += delta
    if (at < from) return
    const ms = delta / 1000
    totalMs += ms
    if (byId.get(id)!.callFrame.functionName === '(idle)') idleMs += ms
    else selfMs.set(id, (selfMs.get(id) ?? 0) + ms)
  })
  const busyMs = totalMs - idleMs

  const keyOf = (id: number) => {
    const frame = byId.get(id)!.callFrame
    return `${frame.functionName || '(anonymous)'}\u0000${where(frame.url, frame.lineNumber, frame.columnNumber)}`
  }
  const self = new Map<string, number>()
  const categories = new Map<string, number>()
  const inclusive = new Map<string, number>()
  for (const [id, ms] of selfMs) {
    const frame = byId.get(id)!.callFrame
    self.set(keyOf(id), (self.get(keyOf(id)) ?? 0) + ms)
    const cat = category(frame.url, frame.functionName)
    categories.set(cat, (categories.get(cat) ?? 0) + ms)
    // Inclusive: each app function on this sample's stack, once.
    const seen = new Set<string>()
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const f = byId.get(at)!.callFrame
      if (category(f.url, f.functionName) !== 'app (src/)') continue
      const key = keyOf(at)
      if (seen.has(key)) continue
      seen.add(key)
      inclusive.set(key, (inclusive.get(key) ?? 0) + ms)
    }
  }
  const lines = (map: Map<string, number>, limit: number): ProfileLine[] =>
    [...map.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, limit)
      .map(([key, ms]) => {
        const [name, at = ''] = key.split('\u0000')
        return { name: name!, where: at, ms, share: busyMs === 0 ? 0 : ms / busyMs }
      })
  return {
    file,
    totalMs,
    idleShare: totalMs === 0 ? 0 : idleMs / totalMs,
    busyMs,
    self: lines(self, top),
    inclusive: lines(inclusive, top),
    categories: lines(categories, 15)
  }
}

const pct = (share: number) => `${(share * 100).toFixed(1)}%`

/** A profile summary as markdown tables. */
export function profileMarkdown(title: string, summary: ProfileSummary): string {
  const out: string[] = []
  out.push(`#### ${title}`, '')
  out.push(
    `Profile \`${path.basename(summary.file)}\`: ${(summary.totalMs / 1000).toFixed(1)} s sampled, ${pct(summary.idleShare)} idle (waiting for I/O or the database); shares below are of the busy time.`,
    ''
  )
  out.push('| where the time goes (self time by package) | share |', '|---|---:|')
  for (const line of summary.categories) out.push(`| ${line.name} | ${pct(line.share)} |`)
  out.push('', '| top functions by self time | at | share |', '|---|---|---:|')
  for (const line of summary.self.slice(0, 15)) out.push(`| \`${line.name}\` | ${line.where} | ${pct(line.share)} |`)
  out.push('', '| app functions by inclusive time | at | share |', '|---|---|---:|')
  for (const line of summary.inclusive.slice(0, 12)) out.push(`| \`${line.name}\` | ${line.where} | ${pct(line.share)} |`)
  out.push('')
  return out.join('\n')
}

// `tsx bench/profile.ts FILE.cpuprofile…`: print the summary of profiles taken by hand.
const isMain = process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)
if (isMain) {
  for (const file of process.argv.slice(2)) console.log(profileMarkdown(path.basename(file), summarizeProfile(file)))
}
