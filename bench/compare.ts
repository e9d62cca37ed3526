import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { sql } from 'kysely'
import type { Database } from '../src/db/database.js'
import { BENCH_DIR, type BenchDatabase, ROOT } from './environment.js'
import type { Scenario } from './scenarios.js'

/**
 * `--compare REV`: the server as of a git revision, built once into .bench/compare/<commit>/dist.
 * It lives inside the repository so that it loads this checkout's node_modules: a revision with
 * other dependencies or migrations than the working tree cannot be compared this way.
 */
export function buildRevision(
  revision: string,
  log: (line: string) => void
): { revision: string; entry: string; commit: string; migrations: string[] } {
  const git = (args: string[]) => {
    const result = spawnSync('git', args, { cwd: ROOT, maxBuffer: 256 * 2 ** 20 })
    if (result.status !== 0) throw new Error(`git ${args.join(' ')} failed: ${String(result.stderr).trim()}`)
    return result.stdout
  }
  const commit = String(git(['rev-parse', '--verify', '--quiet', `${revision}^{commit}`])).trim()
  const migrations = String(git(['ls-tree', '--name-only', commit, 'src/db/migrations/']))
    .split('\n')
    .filter((file) => file.endsWith('.ts'))
    .map((file) => path.basename(file, '.ts'))
  const dir = path.join(BENCH_DIR, 'compare', commit.slice(0, 12))
  const entry = path.join(dir, 'dist', 'main.js')
  if (fs.existsSync(entry)) return { revision, entry, commit, migrations }
  fs.rmSync(dir, { recursive: true, force: true })
  fs.mkdirSync(dir, { recursive: true })
  // Data files the server reads at start (the ZIP directory), where the revision has them.
  const assets = String(git(['ls-tree', '--name-only', commit, 'assets'])).trim() === '' ? [] : ['assets']
  const archive = git(['archive', '--format=tar', commit, 'src', 'tsconfig.json', 'package.json', ...assets])
  const untar = spawnSync('tar', ['-x', '-C', dir], { input: archive })
  if (untar.status !== 0) throw new Error(`could not unpack ${revision}: ${String(untar.stderr).trim()}`)
  const tsc = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc')
  const result = spawnSync(process.execPath, [tsc, '-p', path.join(dir, 'tsconfig.json'), '--outDir', path.join(dir, 'dist')], {
    cwd: dir,
    encoding: 'utf8'
  })
  if (!fs.existsSync(entry)) throw new Error(`tsc failed for ${revision}:\n${result.stdout}${result.stderr}`)
  log(`built ${revision} (${commit.slice(0, 12)}) into ${path.relative(ROOT, path.join(dir, 'dist'))}`)
  return { revision, entry, commit, migrations }
}

/**
 * Starts the older build on the database this build migrated. Its migrator refuses a database that
 * records migrations it does not know, so their records are hidden while it starts and put back
 * after; the tables they made are only more than it reads.
 */
/** Opens the database without migrating it (migrating would apply the hidden migrations again). */
async function withDatabase<T>(database: BenchDatabase, work: (db: Database) => Promise<T>): Promise<T> {
  const db = database.open('FULL')
  try {
    return await work(db)
  } finally {
    await db.close()
  }
}

export async function startOnNewerSchema<T>(database: BenchDatabase, known: readonly string[], start: () => Promise<T>): Promise<T> {
  type Row = { name: string; timestamp: string }
  const hidden = await withDatabase(database, async (db) => {
    const { rows } = await sql<Row>`select name, timestamp from kysely_migration`.execute(db.db)
    const newer = rows.filter((row) => !known.includes(row.name))
    for (const row of newer) await sql`delete from kysely_migration where name = ${row.name}`.execute(db.db)
    return newer
  })
  try {
    return await start()
  } finally {
    await withDatabase(database, async (db) => {
      for (const row of hidden)
        await sql`insert into kysely_migration (name, timestamp) values (${row.name}, ${row.timestamp})`.execute(db.db)
    })
  }
}

/** Each API scenario followed by its twin `name@REV`, sent to the build of REV; not a target of its own. */
export function withTwins(scenarios: readonly Scenario[], revision: string | null): Scenario[] {
  return scenarios.flatMap((scenario) =>
    revision === null || scenario.target !== 'api'
      ? [scenario]
      : [
          scenario,
          {
            ...scenario,
            name: `${scenario.name}@${revision}`,
            title: `${scenario.title}, built from ${revision}`,
            kind: 'compare' as const,
            target: 'compare' as const
          }
        ]
  )
}

/** A round's runs with each twin moved before its original: every other round, so neither build always runs second. */
export function twinsFirst<T extends { scenario: Pick<Scenario, 'kind'> }>(targets: readonly T[]): T[] {
  const ordered = [...targets]
  for (let i = 1; i < ordered.length; i++) {
    if (ordered[i]!.scenario.kind === 'compare') [ordered[i - 1], ordered[i]] = [ordered[i]!, ordered[i - 1]!]
  }
  return ordered
}
