import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import pg from 'pg'
import type { DatabaseConfig } from '../../src/config.js'

export type DialectName = 'sqlite' | 'postgres'

const DEFAULT_PG = 'postgres://postgres@127.0.0.1:5432/postgres'

let probed: Promise<string | null> | undefined

/**
 * The PostgreSQL server tests may create databases on: TEST_DATABASE_URL, else a server answering
 * on 127.0.0.1:5432 (user postgres, trust auth), else none (SQLite only). Probed once per process;
 * the test runner sets TEST_POSTGRES=off after finding none so files do not probe again.
 */
export function postgresAdminUrl(): Promise<string | null> {
  probed ??= (async () => {
    if (process.env.TEST_POSTGRES === 'off') return null
    const url = process.env.TEST_DATABASE_URL ?? DEFAULT_PG
    // The runner found PostgreSQL (TEST_POSTGRES=on): try harder, and fail rather than drop it.
    const required = process.env.TEST_POSTGRES === 'on'
    let lastError: unknown
    for (let attempt = 0; attempt < (required ? 5 : 1); attempt++) {
      const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: required ? 10_000 : 2000 })
      try {
        await client.connect()
        await client.query('select 1')
        return url
      } catch (error) {
        lastError = error
        if (required) await new Promise((resolve) => setTimeout(resolve, 1000))
      } finally {
        await client.end().catch(() => {})
      }
    }
    if (required) throw new Error(`PostgreSQL answered the test runner but not this test file: ${String(lastError)}`)
    return null
  })()
  return probed
}

/** The dialects this run covers: SQLite always, PostgreSQL when a server is reachable. */
export async function testDialects(): Promise<DialectName[]> {
  return (await postgresAdminUrl()) === null ? ['sqlite'] : ['sqlite', 'postgres']
}

/** A fresh, empty database and data directory for one test file, and how to remove them. */
export interface TestDatabase {
  database: DatabaseConfig
  dataDir: string
  drop(): Promise<void>
}

async function adminQuery(adminUrl: string, text: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl })
  await client.connect()
  try {
    await client.query(text)
  } finally {
    await client.end()
  }
}

export async function createTestDatabase(dialect: DialectName): Promise<TestDatabase> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'so-test-'))
  if (dialect === 'sqlite') {
    return {
      database: { kind: 'sqlite', file: path.join(dataDir, 'test.db') },
      dataDir,
      drop: async () => fs.rmSync(dataDir, { recursive: true, force: true })
    }
  }
  const adminUrl = await postgresAdminUrl()
  if (adminUrl === null) throw new Error('PostgreSQL is not reachable')
  const name = `so_test_${randomBytes(6).toString('hex')}`
  await adminQuery(adminUrl, `create database ${name}`)
  const url = new URL(adminUrl)
  url.pathname = `/${name}`
  return {
    database: { kind: 'postgres', url: url.toString() },
    dataDir,
    drop: async () => {
      await adminQuery(adminUrl, `drop database if exists ${name} with (force)`)
      fs.rmSync(dataDir, { recursive: true, force: true })
    }
  }
}
