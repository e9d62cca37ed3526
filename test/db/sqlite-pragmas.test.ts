import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { after, describe, it } from 'node:test'
import { openSqliteConnection, openSqliteReader } from '../../src/db/sqlite.js'

describe('SQLite connection settings (ARCHITECTURE 9, performance issue)', () => {
  const directory = mkdtempSync(path.join(tmpdir(), 'pragmas-'))
  after(() => rmSync(directory, { recursive: true, force: true }))

  it('should open the writer in WAL mode, durable, with foreign keys, temp data in memory and 8 MiB of page cache', () => {
    const file = path.join(directory, 'writer.db')
    for (const [synchronous, level] of [
      ['FULL', 2],
      ['NORMAL', 1]
    ] as const) {
      const writer = openSqliteConnection(file, synchronous)
      try {
        const value = (pragma: string) => writer.pragma(pragma, { simple: true })
        assert.deepEqual(
          [
            value('journal_mode'),
            value('synchronous'),
            value('foreign_keys'),
            value('temp_store'),
            value('cache_size'),
            value('busy_timeout')
          ],
          ['wal', level, 1, 2, -8000, 5000]
        )
      } finally {
        writer.close()
      }
    }
  })

  it("should leave the reader better-sqlite3's 16 MiB of page cache, which reads use", () => {
    const file = path.join(directory, 'reader.db')
    openSqliteConnection(file, 'FULL').close()
    const reader = openSqliteReader(file)
    try {
      assert.deepEqual([reader.pragma('cache_size', { simple: true }), reader.pragma('busy_timeout', { simple: true })], [-16000, 5000])
    } finally {
      reader.close()
    }
  })
})
