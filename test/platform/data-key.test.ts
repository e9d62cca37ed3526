import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { after, afterEach, before, describe, it } from 'node:test'
import { loadConfig } from '../../src/config.js'
import { openDatabase } from '../../src/db/database.js'
import { prepareStart, type RunningServer, startServer } from '../../src/http-server.js'
import { contactSelect } from '../../src/modules/customers/index.js'
import { runWorker } from '../../src/modules/notifications/notifications.cli.js'
import { trackedHistoryInsert } from '../../src/modules/orders/index.js'
import { dataKeyFingerprint } from '../../src/modules/payments/data-key-check.js'
import { DIALECTS } from '../helpers/app.js'
import { createTestDatabase, type TestDatabase } from '../helpers/databases.js'
import { databaseUrl } from '../helpers/processes.js'

const REFUSED =
  /^the data key \(CARD_ENCRYPTION_KEY, or DATA_DIR\/card-key when it is unset\) is not the one this database was first used with/

for (const dialect of DIALECTS) {
  describe(`one data key per database (D-34) [${dialect}]`, () => {
    let test: TestDatabase
    const servers: RunningServer[] = []
    before(async () => {
      test = await createTestDatabase(dialect)
    })
    afterEach(async () => {
      for (const server of servers.splice(0)) await server.close(1000)
    })
    after(async () => {
      await test?.drop()
    })

    const env = (extra: Record<string, string> = {}) => ({
      PORT: '0',
      DATA_DIR: test.dataDir,
      DATABASE_URL: databaseUrl(test),
      DISPATCHER: 'off',
      LOG_LEVEL: 'silent',
      ...extra
    })
    const start = async (extra: Record<string, string> = {}) => {
      const server = await startServer(loadConfig(env(extra)))
      servers.push(server)
      return server
    }
    const fingerprint = async () => {
      const database = openDatabase(loadConfig(env()))
      try {
        return await database.db.selectFrom('data_key').selectAll().execute()
      } finally {
        await database.close()
      }
    }

    it("should record the first process's key and start again with it, from the file or the variable", async () => {
      await start()
      const generated = Buffer.from(fs.readFileSync(path.join(test.dataDir, 'card-key'), 'utf8').trim(), 'base64')
      assert.deepEqual(await fingerprint(), [{ id: 1, fingerprint: dataKeyFingerprint(generated) }])
      // The fingerprint tells nothing of the key: 32 hex digits of an HMAC under it.
      assert.match(dataKeyFingerprint(generated), /^[0-9a-f]{32}$/)
      assert.ok(!dataKeyFingerprint(generated).includes(generated.toString('hex').slice(0, 8)))
      await start()
      await start({ CARD_ENCRYPTION_KEY: generated.toString('base64') })
      assert.equal((await fingerprint()).length, 1)
    })

    it('should refuse to start a server, a cluster primary or a worker with another key, in one line', async () => {
      const other = { CARD_ENCRYPTION_KEY: randomBytes(32).toString('base64') }
      await assert.rejects(start(other), { message: REFUSED })
      await assert.rejects(prepareStart(loadConfig(env(other))), { message: REFUSED })
      await assert.rejects(runWorker(loadConfig(env(other)), { contact: contactSelect, trackedEntry: trackedHistoryInsert }), {
        message: REFUSED
      })
      // Another DATA_DIR generates another card-key file: the same mistake.
      const elsewhere = fs.mkdtempSync(path.join(test.dataDir, 'elsewhere-'))
      await assert.rejects(start({ DATA_DIR: elsewhere }), { message: REFUSED })
      const kept = (await fingerprint())[0]!.fingerprint
      const generated = Buffer.from(fs.readFileSync(path.join(test.dataDir, 'card-key'), 'utf8').trim(), 'base64')
      assert.equal(kept, dataKeyFingerprint(generated))
      // The right key still starts.
      await start()
    })
  })
}
