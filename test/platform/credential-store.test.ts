import assert from 'node:assert/strict'
import { after, before, it } from 'node:test'
import { hashPassword } from '../../src/common/crypto.js'
import { type Database, openDatabase } from '../../src/db/database.js'
import { ApiKeysService } from '../../src/modules/api-keys/api-keys.service.js'
import { basic, describeEachDialect, type TestApp } from '../helpers/app.js'
import { problem } from '../helpers/assertions.js'
import { createCustomer } from '../helpers/factories.js'

/**
 * Stored credentials are kept between requests until the database changes (app.ts, issue 7), on
 * SQLite. Whatever another connection commits (the CLI, another process: here a second connection)
 * must be seen by the next request, as when every request read the row. Reads of one event-loop turn
 * share a snapshot (src/db/sqlite.ts, SqliteReadSnapshot), so each change is followed by one turn:
 * a client's request, sent after it saw the change, never arrives in the turn of the commit.
 */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve))

describeEachDialect('stored credentials kept until the database changes (D-10, D-13, issue 7)', (t: TestApp) => {
  let other: Database
  let keys: ApiKeysService

  before(() => {
    other = openDatabase(t.config)
    keys = new ApiKeysService(other, t.clock)
  })
  after(() => other.close())

  const newKey = async (name: string) => {
    const key = await keys.create('staff', name)
    await nextTurn()
    return key
  }
  const stats = (authorization: string) => t.post('/v1/service/stats', undefined, { auth: authorization })
  const keyReads = (queries: string[]) => queries.filter((q) => /from "api_keys"/.test(q)).length
  const loginReads = (queries: string[]) => queries.filter((q) => /from "customers" where "email"/.test(q)).length

  it('should refuse a key at the first request after another connection revoked it', async () => {
    const key = await newKey('kept then revoked')
    const authorization = basic(key.id, key.secret)
    assert.equal((await stats(authorization)).statusCode, 200)
    assert.equal((await stats(authorization)).statusCode, 200)
    assert.equal(await keys.revoke(key.id), true)
    await nextTurn()
    problem(await stats(authorization), 'unauthenticated')
  })

  it('should read the key once while nothing changes on SQLite, and on every request on PostgreSQL', async () => {
    const key = await newKey('read once')
    const authorization = basic(key.id, key.secret)
    const first = await t.countQueries(() => stats(authorization))
    const second = await t.countQueries(() => stats(authorization))
    assert.equal(first.result.statusCode, 200)
    assert.equal(second.result.statusCode, 200)
    assert.equal(keyReads(first.queries), 1)
    assert.equal(keyReads(second.queries), t.dialect === 'sqlite' ? 0 : 1)
  })

  it('should still refuse a wrong secret for a key it keeps', async () => {
    const key = await newKey('wrong secret')
    assert.equal((await stats(basic(key.id, key.secret))).statusCode, 200)
    assert.equal((await stats(basic(key.id, `${key.secret}x`))).statusCode, 401)
    assert.equal((await stats(basic(key.id, key.secret))).statusCode, 200)
  })

  it('should see a password set or changed by another connection at the next request', async () => {
    const customer = await createCustomer(t, { password: 'first-password-1' })
    const owner = (password: string) => t.post(`/v1/customer/${customer.id}`, undefined, { auth: basic(customer.email, password) })
    assert.equal((await owner('first-password-1')).statusCode, 200)
    const kept = await t.countQueries(() => owner('first-password-1'))
    assert.equal(kept.result.statusCode, 200)
    assert.equal(loginReads(kept.queries), t.dialect === 'sqlite' ? 0 : 1)

    const changed = await hashPassword('second-password-2')
    await other.db.updateTable('customers').set({ password_hash: changed }).where('id', '=', customer.id).execute()
    await nextTurn()
    assert.equal((await owner('first-password-1')).statusCode, 401)
    assert.equal((await owner('second-password-2')).statusCode, 200)
  })

  it('should accept an e-mail at the next request after its customer was created', async () => {
    const email = `later.${Date.now()}@example.com`
    const asLater = () => t.post('/v1/service/stats', undefined, { auth: basic(email, 'later-password-1') })
    // Unknown: refused, and the answer "no such customer" is kept too.
    assert.equal((await asLater()).statusCode, 401)
    const created = await createCustomer(t, { email, password: 'later-password-1' })
    await nextTurn()
    const own = await t.post(`/v1/customer/${created.id}`, undefined, { auth: basic(email, 'later-password-1') })
    assert.equal(own.statusCode, 200)
  })
})
