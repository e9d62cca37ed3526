import assert from 'node:assert/strict'
import { before, it } from 'node:test'
import { describeEachDialect } from '../../helpers/app.js'
import { ok, problem } from '../../helpers/assertions.js'
import { countRows, DELIVERY, orderFixture, PICKUP } from './support.js'

describeEachDialect('create transaction (D-50)', (t) => {
  let f: Awaited<ReturnType<typeof orderFixture>>
  before(async () => {
    f = await orderFixture(t)
  })

  const body = (extra: Record<string, unknown> = {}) => ({
    customer_id: f.owner.id,
    service_name: 'Dry Cleaning',
    pickup_timestamp: PICKUP,
    delivery_timestamp: DELIVERY,
    notes: 'Ring twice',
    ...extra
  })

  it('should answer the short create view: code a number, total "--", status open, note from notes', async () => {
    const created = ok(await t.post('/v1/transaction/create', body()))
    assert.match(created.transaction_id, /^trx_[0-9a-z]{24}$/)
    assert.equal(typeof created.transaction_code, 'number')
    assert.ok(created.transaction_code >= 10_000_000 && created.transaction_code <= 99_999_999)
    assert.deepEqual(created, {
      transaction_id: created.transaction_id,
      transaction_code: created.transaction_code,
      service_name: 'Dry Cleaning',
      pickup_date: '2026-10-30',
      pickup_time: '07:15',
      delivery_date: '2026-10-31',
      delivery_time: '07:15',
      note: 'Ring twice',
      status: 'open',
      total: '--'
    })
    assert.deepEqual(Object.keys(created), [
      'transaction_id',
      'transaction_code',
      'service_name',
      'pickup_date',
      'pickup_time',
      'delivery_date',
      'delivery_time',
      'note',
      'status',
      'total'
    ])
  })

  it('should accept timestamps as digit text, the service name in any case, and note as another name for notes', async () => {
    const created = ok(
      await t.post(
        '/v1/transaction/create',
        body({
          service_name: 'DRY cleaning',
          pickup_timestamp: String(PICKUP),
          delivery_timestamp: String(PICKUP),
          notes: undefined,
          note: 'as note'
        })
      )
    )
    assert.equal(created.service_name, 'Dry Cleaning')
    assert.equal(created.delivery_time, '07:15')
    assert.equal(created.note, 'as note')
  })

  it('should default the note to empty text', async () => {
    const created = ok(await t.post('/v1/transaction/create', body({ notes: undefined })))
    assert.equal(created.note, '')
  })

  it('should start at step 1, record history and emit step 1 events in the outbox', async () => {
    const created = ok(await t.post('/v1/transaction/create', body()))
    const view = ok(await t.post(`/v1/transaction/${created.transaction_id}`))
    assert.equal(view.service.position.position_number, '1')
    assert.equal(view.transaction_code, String(created.transaction_code))
    const history = ok(await t.post(`/v1/transaction/${created.transaction_id}/history`))
    assert.equal(history.history.length, 1)
    assert.equal(history.history[0].type, 'created')
    assert.equal(history.history[0].actor, 'staff')
    assert.equal(history.history[0].by, 'test staff')
    const outbox = await t.database.db
      .selectFrom('outbox')
      .innerJoin('orders', 'orders.id', 'outbox.order_id')
      .select(['outbox.channel', 'outbox.template', 'outbox.payload', 'outbox.status', 'outbox.customer_id'])
      .where('orders.public_id', '=', created.transaction_id)
      .execute()
    assert.deepEqual(
      outbox.map((row) => ({ ...row, payload: JSON.parse(row.payload) })),
      [
        {
          channel: 'email',
          template: 'step',
          status: 'pending',
          customer_id: f.owner.id,
          payload: {
            transaction_id: created.transaction_id,
            transaction_code: created.transaction_code,
            service_name: 'Dry Cleaning',
            position: 1,
            total_steps: 3,
            description: 'Picked up'
          }
        }
      ]
    )
  })

  it('should let a customer create a transaction for themselves, recorded with actor customer and by ""', async () => {
    const created = ok(await t.post('/v1/transaction/create', body(), { auth: f.owner.auth }))
    const history = ok(await t.post(`/v1/transaction/${created.transaction_id}/history`, undefined, { auth: f.owner.auth }))
    assert.equal(history.history[0].actor, 'customer')
    assert.equal(history.history[0].by, '')
  })

  it('should refuse a customer creating a transaction for another customer with 403, changing nothing', async () => {
    const before = await countRows(t, 'orders')
    problem(await t.post('/v1/transaction/create', body({ customer_id: f.other.id }), { auth: f.owner.auth }), 'forbidden')
    assert.equal(await countRows(t, 'orders'), before)
  })

  it('should refuse app keys with 403 and missing credentials with 401', async () => {
    problem(await t.post('/v1/transaction/create', body(), { auth: t.auth.app }), 'forbidden')
    problem(await t.post('/v1/transaction/create', body(), { auth: null }), 'unauthenticated')
  })

  it('should write an order in as few statements as each database allows (issue 7)', async () => {
    const { result, queries } = await t.countQueries(() => t.post('/v1/transaction/create', body()))
    const created = ok(result)
    const kinds = queries.filter((q) => !q.includes('"api_keys"')).map((q) => q.split(' ').slice(0, 3).join(' '))
    if (t.database.dialect.supportsRowLocks) {
      assert.deepEqual(kinds, [
        'begin',
        // The service in share mode and whether the customer exists; then its step 1, under that lock.
        'select "s"."id" as',
        'select "id", "position",',
        // The order, the step's counter, the history entry and the step's messages, one statement.
        'with "created" as',
        'commit'
      ])
      assert.match(queries.find((q) => q.startsWith('select "s"."id" as'))!, / for share of "s"$/)
      assert.match(
        queries.find((q) => q.startsWith('with "created" as'))!,
        /^with "created" as \(insert into "orders" .* returning "id"\), "counted" as \(update "service_steps" set .*\), "entry" as \(insert into "order_history" .*\(select "id" from "created"\).*\) insert into "outbox" /
      )
    } else {
      assert.deepEqual(kinds, [
        'begin',
        // The service joined with its step 1, and whether the customer exists: one statement.
        'select "s"."id" as',
        'insert into "orders"',
        'update "service_steps" set',
        'insert into "order_history"',
        'insert into "outbox"',
        'commit'
      ])
    }
    const view = ok(await t.post(`/v1/transaction/${created.transaction_id}`))
    assert.equal(view.service.position.position_number, '1')
  })

  it('should answer 404 for an unknown customer or service, changing nothing', async () => {
    const [orders, outbox, history] = [await countRows(t, 'orders'), await countRows(t, 'outbox'), await countRows(t, 'order_history')]
    problem(await t.post('/v1/transaction/create', body({ customer_id: 'cus_nobody' })), 'customer_not_found')
    problem(await t.post('/v1/transaction/create', body({ service_name: 'Nothing' })), 'service_not_found')
    // Both unknown: the customer is checked first (D-50), whichever statement finds it.
    problem(await t.post('/v1/transaction/create', body({ customer_id: 'cus_nobody', service_name: 'Nothing' })), 'customer_not_found')
    assert.deepEqual(
      [await countRows(t, 'orders'), await countRows(t, 'outbox'), await countRows(t, 'order_history')],
      [orders, outbox, history]
    )
  })

  it('should reject bad input field by field with validation_failed and change nothing', async () => {
    const before = await countRows(t, 'orders')
    const cases: Array<[Record<string, unknown>, string[]]> = [
      [{ customer_id: undefined }, ['/customer_id']],
      [{ customer_id: 42 }, ['/customer_id']],
      [{ customer_id: '' }, ['/customer_id']],
      [{ service_name: undefined }, ['/service_name']],
      [{ service_name: ['x'] }, ['/service_name']],
      [{ service_name: 'x'.repeat(101) }, ['/service_name']],
      [{ pickup_timestamp: undefined }, ['/pickup_timestamp']],
      [{ pickup_timestamp: 'tomorrow' }, ['/pickup_timestamp']],
      [{ pickup_timestamp: 1.5e9 + 0.5 }, ['/pickup_timestamp']],
      [{ pickup_timestamp: -1 }, ['/pickup_timestamp']],
      [{ pickup_timestamp: 946_684_799 }, ['/pickup_timestamp']],
      [{ pickup_timestamp: '946684799' }, ['/pickup_timestamp']],
      [{ delivery_timestamp: 4_102_444_801 }, ['/delivery_timestamp']],
      [{ delivery_timestamp: '99999999999999999999' }, ['/delivery_timestamp']],
      [{ delivery_timestamp: true }, ['/delivery_timestamp']],
      [{ delivery_timestamp: PICKUP - 1 }, ['/delivery_timestamp']],
      [{ notes: 7 }, ['/notes']],
      [{ notes: 'n'.repeat(1001) }, ['/notes']],
      [{ notes: 'a', note: 'b' }, ['/note']],
      [{ customer_id: 1, service_name: 2 }, ['/customer_id', '/service_name']]
    ]
    for (const [extra, fields] of cases) {
      const response = await t.post('/v1/transaction/create', body(extra))
      problem(response, 'validation_failed', fields)
    }
    problem(await t.post('/v1/transaction/create', [body()]), 'validation_failed', [''])
    assert.equal(await countRows(t, 'orders'), before)
  })

  // D-50: codes are drawn at random and the database keeps them unique. On PostgreSQL the order is
  // written in one statement with its counter, history and messages, so a taken code fails that
  // statement and the whole use case runs again; on SQLite the INSERT yields no row and is retried.
  it('should draw the code again when the one drawn is taken, writing everything once (D-50)', async () => {
    const taken = ok(await t.post('/v1/transaction/create', body())).transaction_code as number
    const stepOne = async () =>
      Number(
        (
          await t.database.db
            .selectFrom('service_steps')
            .innerJoin('services', 'services.id', 'service_steps.service_id')
            .select('service_steps.order_count')
            .where('services.name', '=', 'Dry Cleaning')
            .where('service_steps.position', '=', 1)
            .executeTakeFirstOrThrow()
        ).order_count
      )
    const counts = async () => [
      await countRows(t, 'orders'),
      await countRows(t, 'order_history'),
      await countRows(t, 'outbox'),
      await stepOne()
    ]
    const before = await counts()
    const fresh = taken === 87654321 ? 87654322 : 87654321
    t.codes.next.push(taken, taken, fresh)
    const headers = { 'idempotency-key': 'create-after-a-taken-code' }
    const created = ok(await t.post('/v1/transaction/create', body(), { headers }))
    assert.equal(created.transaction_code, fresh)
    assert.equal(t.codes.next.length, 0)
    assert.deepEqual(
      await counts(),
      before.map((n) => n + 1)
    )
    const view = ok(await t.post(`/v1/transaction/${created.transaction_id}`))
    assert.deepEqual([view.transaction_code, view.service.position.position_number], [String(fresh), '1'])
    const history = ok(await t.post(`/v1/transaction/${created.transaction_id}/history`)).history as Array<Record<string, string>>
    assert.deepEqual(
      history.map((h) => h.type),
      ['created']
    )
    // The key holds the answer of the attempt that committed.
    assert.deepEqual(ok(await t.post('/v1/transaction/create', body(), { headers })), created)
    assert.deepEqual(
      await counts(),
      before.map((n) => n + 1)
    )
    // Without a key too: one clash, then a free code.
    const another = fresh + 1
    t.codes.next.push(taken, another)
    assert.equal(ok(await t.post('/v1/transaction/create', body())).transaction_code, another)
    assert.equal(t.codes.next.length, 0)
    assert.deepEqual(
      await counts(),
      before.map((n) => n + 2)
    )
  })

  it('should give every transaction a distinct id and 8-digit code', async () => {
    const created = await Promise.all(Array.from({ length: 20 }, () => t.post('/v1/transaction/create', body())))
    const views = created.map((response) => ok(response))
    assert.equal(new Set(views.map((v) => v.transaction_id)).size, 20)
    assert.equal(new Set(views.map((v) => v.transaction_code)).size, 20)
  })
})

describeEachDialect(
  'create transaction in TIME_ZONE America/New_York (D-51)',
  (t) => {
    let f: Awaited<ReturnType<typeof orderFixture>>
    before(async () => {
      f = await orderFixture(t)
    })

    it('should write dates and times of the short view in TIME_ZONE, across midnight', async () => {
      // 2026-11-03 03:30 UTC is 22:30 on 2 November in New York (EST, UTC-5).
      const pickup = Date.UTC(2026, 10, 3, 3, 30) / 1000
      const created = ok(
        await t.post('/v1/transaction/create', {
          customer_id: f.owner.id,
          service_name: 'Dry Cleaning',
          pickup_timestamp: pickup,
          delivery_timestamp: pickup + 3600
        })
      )
      assert.equal(created.pickup_date, '2026-11-02')
      assert.equal(created.pickup_time, '22:30')
      assert.equal(created.delivery_date, '2026-11-02')
      assert.equal(created.delivery_time, '23:30')
    })
  },
  { TIME_ZONE: 'America/New_York' }
)
