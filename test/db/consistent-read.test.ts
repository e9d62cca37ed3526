import assert from 'node:assert/strict'
import { it } from 'node:test'
import { withReadSnapshot } from '../../src/db/read-snapshot.js'
import { describeEachDialect } from '../helpers/app.js'
import { createCustomer } from '../helpers/factories.js'

describeEachDialect('withReadSnapshot (D-94)', (t) => {
  it('should see one snapshot throughout while writes commit beside it', async () => {
    await createCustomer(t)
    const count = async (db: typeof t.database.db) =>
      Number(
        (
          await db
            .selectFrom('customers')
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n
      )
    const before = await count(t.database.db)
    const seen = await withReadSnapshot(t.database, t.config, async (db) => {
      const first = await count(db)
      // The writer is not held: this write commits while the snapshot is open.
      await createCustomer(t)
      return [first, await count(db)]
    })
    assert.deepEqual(seen, [before, before])
    assert.equal(await count(t.database.db), before + 1)
  })

  it('should refuse writes inside the snapshot', async () => {
    await assert.rejects(
      withReadSnapshot(t.database, t.config, (db) => db.deleteFrom('customers').execute()),
      /read.?only|readonly/i
    )
  })
})
