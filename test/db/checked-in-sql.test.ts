import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'
import { generatedSqlFiles } from '../../scripts/sql.js'
import { compileOnly } from '../../src/db/compile-only.js'
import { openDatabase } from '../../src/db/database.js'
import { migrateToLatest } from '../../src/db/migrator.js'
import { ordersListRepository } from '../../src/modules/orders/orders-list.repository.js'
import { createTestDatabase, testDialects } from '../helpers/databases.js'

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')

describe('the SQL checked in beside the repositories (issue 26)', () => {
  it('should be what the repositories compile, for SQLite and PostgreSQL', () => {
    const files = generatedSqlFiles()
    assert.ok(files.size >= 2, 'the generator found no repositories')
    for (const [file, expected] of files) {
      const full = path.join(ROOT, file)
      const actual = fs.existsSync(full) ? fs.readFileSync(full, 'utf8') : null
      assert.equal(actual, expected, `${file} differs from the SQL the code compiles: run \`npm run sql\` and commit the result`)
    }
  })

  it('should hold every statement named in the sources, so no repository is left out of npm run sql', () => {
    const generated = [...generatedSqlFiles().values()].join('\n')
    const sources = fs.readdirSync(path.join(ROOT, 'src'), { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.ts'))
    for (const file of sources) {
      const text = fs.readFileSync(path.join(ROOT, 'src', file), 'utf8')
      // `.prepare<…>('area.name', …)` and `prepare('area.name', …)`; names built from templates are not checked.
      for (const match of text.matchAll(/prepare(?:<[^(]*?>)?\(\s*'([a-zA-Z]+\.[a-zA-Z.0-9]+)'/g)) {
        assert.ok(
          generated.includes(`-- ${match[1]}\n`),
          `${match[1]} (src/${file}) is in no checked-in SQL file: add its repository to scripts/sql.ts`
        )
      }
    }
  })

  it('should leave no stale file in a queries folder', () => {
    const expected = new Set(generatedSqlFiles().keys())
    const folders = new Set([...expected].map((file) => path.dirname(file)))
    for (const folder of folders) {
      for (const name of fs.readdirSync(path.join(ROOT, folder))) {
        const file = path.join(folder, name)
        assert.ok(expected.has(file), `${file} is no longer generated: run \`npm run sql\` and remove it`)
      }
    }
  })
})

describe('the order list statement (D-57, issue 26 point 9)', () => {
  for (const dialect of ['sqlite', 'postgres'] as const) {
    it(`should bind the page size as a parameter on ${dialect}, so every limit runs one statement`, () => {
      const compiler = compileOnly(dialect)
      ordersListRepository(compiler)
      const statements = compiler.statements()
      const list = statements.find(([name]) => name === 'orders.list')
      assert.ok(list !== undefined, 'no statement orders.list was compiled')
      // One statement per combination of filters, whatever the limit: 32 in all.
      assert.equal(statements.filter(([name]) => name.startsWith('orders.list')).length, 32)
      assert.doesNotMatch(list[1], /limit\s+\d/i, 'the limit is written into the SQL text')
      assert.match(list[1], /limit\s+(\?|\$\d+)/i)
    })
  }
})

describe('the order list run with two page sizes (D-57)', async () => {
  for (const dialect of await testDialects()) {
    it(`should run one SQL text for both on ${dialect}`, async () => {
      const test = await createTestDatabase(dialect)
      const database = openDatabase({ database: test.database, sqliteSynchronous: 'NORMAL', databasePoolMax: 2, statementTimeoutMs: 0 })
      try {
        await migrateToLatest(database.db, database.dialect)
        const list = ordersListRepository(database)
        const texts: string[] = []
        const stop = database.queries.add((text) => texts.push(text))
        await list.page({ limit: 3 })
        await list.page({ limit: 101 })
        stop()
        assert.equal(texts.length, 2)
        assert.equal(texts[0], texts[1])
      } finally {
        await database.close()
        await test.drop()
      }
    })
  }
})
