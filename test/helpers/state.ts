import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { STATUS_CODES } from 'node:http'
import type { LightMyRequestResponse } from 'fastify'
import { sql } from 'kysely'
import { PROBLEM_STATUS, type ProblemCode } from '../../src/platform/problems.js'
import type { TestApp } from './app.js'

/** Per table: its row count and a digest of its whole content. */
export type Snapshot = Map<string, { rows: number; digest: string }>

// The migrators' own bookkeeping never changes under a request.
const IGNORED = /^(kysely_migration|kysely_migration_lock|sqlite_.*)$/

/** The application's tables, read from the database's catalogue (so a new module's tables count too). */
export async function tableNames(t: TestApp): Promise<string[]> {
  const rows =
    t.dialect === 'sqlite'
      ? (await sql<{ name: string }>`select name from sqlite_master where type = 'table'`.execute(t.database.db)).rows
      : (await sql<{ name: string }>`select tablename as name from pg_tables where schemaname = current_schema()`.execute(t.database.db))
          .rows
  return rows
    .map((row) => row.name)
    .filter((name) => !IGNORED.test(name))
    .sort()
}

/**
 * Every row of every table, as a count and a digest per table. On PostgreSQL one query digests
 * them all (rows as text, sorted); on SQLite the rows are read and digested here.
 */
export async function snapshot(t: TestApp, tables: readonly string[]): Promise<Snapshot> {
  const result: Snapshot = new Map()
  if (t.dialect === 'postgres') {
    const parts = tables.map(
      (table) =>
        sql`select ${table}::text as name, count(*)::int as rows, md5(coalesce(string_agg(x::text, '|' order by x::text), '')) as digest from ${sql.table(table)} x`
    )
    const union = sql.join(parts, sql` union all `)
    const { rows } = await sql<{ name: string; rows: number; digest: string }>`${union}`.execute(t.database.db)
    for (const row of rows) result.set(row.name, { rows: Number(row.rows), digest: row.digest })
    return result
  }
  for (const table of tables) {
    const { rows } = await sql<Record<string, unknown>>`select * from ${sql.table(table)}`.execute(t.database.db)
    const lines = rows
      .map((row) => JSON.stringify(row, (_key, value: unknown) => (Buffer.isBuffer(value) ? value.toString('hex') : value)))
      .sort()
    result.set(table, { rows: rows.length, digest: createHash('sha256').update(lines.join('\n')).digest('hex') })
  }
  return result
}

/** The tables whose content differs between two snapshots (`except` left out), with their counts. */
export function changedTables(before: Snapshot, after: Snapshot, except: readonly string[] = []): string[] {
  const changed: string[] = []
  for (const [table, was] of before) {
    if (except.includes(table)) continue
    const now = after.get(table)
    if (now === undefined || now.digest !== was.digest) changed.push(`${table} (${was.rows} → ${now?.rows ?? 'gone'} rows)`)
  }
  return changed
}

/**
 * The invariants every answer keeps whatever it was sent (issue 8): never a 5xx; an error is an
 * RFC 9457 problem document whose code belongs to its status (D-20, D-21), with no stack or SQL;
 * a success is JSON. `context` describes the request for the failure message.
 */
export function assertSound(response: LightMyRequestResponse, context: string): void {
  const where = `${context} → ${response.statusCode} ${response.body.slice(0, 300)}`
  assert.ok(response.statusCode < 500, `a 5xx answer: ${where}`)
  assert.equal(response.headers['x-content-type-options'], 'nosniff', where)
  if (response.statusCode < 400) {
    assert.equal(response.statusCode, 200, where)
    assert.equal(response.headers['content-type'], 'application/json; charset=utf-8', where)
    JSON.parse(response.body)
    return
  }
  assert.equal(response.headers['content-type'], 'application/problem+json; charset=utf-8', where)
  const body = JSON.parse(response.body) as Record<string, unknown>
  const code = body.code as ProblemCode
  assert.ok(typeof code === 'string' && code in PROBLEM_STATUS, `unknown code: ${where}`)
  assert.equal(PROBLEM_STATUS[code], response.statusCode, where)
  assert.equal(body.status, response.statusCode, where)
  assert.equal(body.type, `/problems/${code}`, where)
  assert.equal(body.title, STATUS_CODES[response.statusCode], where)
  assert.ok(typeof body.detail === 'string' && body.detail.length > 0, where)
  const keys = Object.keys(body)
    .filter((key) => key !== 'errors')
    .sort()
  assert.deepEqual(keys, ['code', 'detail', 'status', 'title', 'type'], where)
  if (body.errors !== undefined) {
    assert.ok(Array.isArray(body.errors) && body.errors.length > 0, where)
    for (const error of body.errors as Array<Record<string, unknown>>) {
      assert.deepEqual(Object.keys(error).sort(), ['field', 'message'], where)
      assert.ok(typeof error.field === 'string' && (error.field === '' || error.field.startsWith('/')), where)
      assert.equal(typeof error.message, 'string', where)
    }
  }
  assert.ok(!/\bat .+\.(ts|js):\d+/.test(response.body), `a stack trace: ${where}`)
  assert.ok(!/\b(select|insert|update|delete)\b.+\b(from|into|set)\b/i.test(String(body.detail)), `SQL in the detail: ${where}`)
}
