import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { after, it } from 'node:test'
import { parse } from 'csv-parse/sync'
import { describeEachDialect, type TestApp } from '../../helpers/app.js'
import { createCustomer, createItem, createOrder, createService } from '../../helpers/factories.js'
import { CLI, run } from '../../helpers/processes.js'

const FILES = ['customers.csv', 'services.csv', 'steps.csv', 'items.csv', 'orders.csv', 'receipt_lines.csv', 'history.csv']
const CARD_NUMBER = '4111111111111111'
// D-94: a name that needs quoting in every way RFC 4180 knows.
const TRICKY_NAME = 'Ann, "Nan"\nSecond line'

type Row = Record<string, string>

function ok(response: { statusCode: number; body: string }): Record<string, unknown> {
  assert.equal(response.statusCode, 200, response.body)
  return JSON.parse(response.body)
}

function cents(amount: string): number {
  return Math.round(Number(amount) * 100)
}

function envOf(t: TestApp): Record<string, string> {
  const url = t.config.database.kind === 'sqlite' ? `sqlite:${t.config.database.file}` : t.config.database.url
  return { DATABASE_URL: url, DATA_DIR: t.config.dataDir }
}

describeEachDialect('service-ordering export (D-94)', (t) => {
  const dirs: string[] = []
  const newDir = () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'so-export-'))
    dirs.push(dir)
    return dir
  }
  after(() => {
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true })
  })

  it('should write every table as RFC 4180 CSV whose rows match the API answers and hold no secret', async () => {
    await createService(t, 'Wash', [{ description: 'Received' }, { description: 'Washed, "pressed"', events: ['email'] }])
    const shirt = await createItem(t, 'Wash', 'Shirt', 350)
    const suit = await createItem(t, 'Wash', 'Suit, 2 pieces', 1299)
    const tricky = await createCustomer(t, { firstName: TRICKY_NAME, lastName: 'O"Neil', password: 'correct horse battery' })
    const plain = await createCustomer(t, { password: 'another good password' })
    ok(
      await t.post('/v1/customer/update', {
        customer: {
          customer_id: plain.id,
          preference: 'Starch, "light"',
          creditcard: { cc_name: 'Ada Lovelace', cc_number: CARD_NUMBER, cc_expiration: '11/2035', cc_cvv: '123', cc_zip: '02134' }
        }
      })
    )
    const first = await createOrder(t, tricky.id, 'Wash', { notes: 'Ring twice, "please"' })
    const second = await createOrder(t, plain.id, 'Wash')
    ok(await t.post('/v1/receipt/add', { transaction_id: first.transaction_id, item_id: suit, quantity: 3 }))
    ok(await t.post('/v1/receipt/add', { transaction_id: first.transaction_id, item_id: shirt }))
    ok(await t.post('/v1/transaction/move', { customer_id: tricky.id, transaction_id: first.transaction_id }))
    ok(await t.post('/v1/transaction/update', { transaction_id: second.transaction_id, note: 'Leave at the door' }, { auth: plain.auth! }))

    const dir = path.join(newDir(), 'out')
    const result = await run(CLI, ['export', '--to', dir], envOf(t))
    assert.equal(result.code, 0, result.stderr)
    assert.equal(result.stderr, '')
    const lines = result.stdout.split('\n').filter((line) => line !== '')
    assert.equal(lines.length, 1, result.stdout)
    const printed = JSON.parse(lines[0]!) as { dir: string; files: Record<string, number> }
    assert.equal(printed.dir, dir)
    assert.deepEqual(fs.readdirSync(dir).sort(), [...FILES].sort())
    assert.ok(!fs.existsSync(`${dir}.partial`))

    const tables: Record<string, Row[]> = {}
    const texts: string[] = []
    for (const file of FILES) {
      const text = fs.readFileSync(path.join(dir, file), 'utf8')
      texts.push(text)
      // RFC 4180: every record ends in CRLF; a bare LF appears only inside a quoted field.
      assert.ok(text.endsWith('\r\n'), file)
      tables[file] = parse(text, { columns: true, record_delimiter: '\r\n' }) as Row[]
      assert.equal(printed.files[file], tables[file]!.length, file)
    }

    // Customers: the read view's fields, the tricky name round-tripped.
    assert.equal(tables['customers.csv']!.length, 2)
    for (const customer of [tricky, plain]) {
      const view = ok(await t.post(`/v1/customer/${customer.id}`)) as unknown as {
        first_name: string
        last_name: string
        email: string
        phone: string
        preference: string
        address: { street: string; apartment: string; city: string; state: string; zipcode: string }
      }
      const row = tables['customers.csv']!.find((r) => r.customer_id === customer.id)!
      assert.deepEqual(
        {
          first_name: row.first_name,
          last_name: row.last_name,
          email: row.email,
          phone: row.phone,
          preference: row.preference,
          address: { street: row.street, apartment: row.apartment, city: row.city, state: row.state, zipcode: row.zip }
        },
        {
          first_name: view.first_name,
          last_name: view.last_name,
          email: view.email,
          phone: view.phone,
          preference: view.preference,
          address: view.address
        }
      )
      assert.match(row.created_at!, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
    }
    assert.equal(tables['customers.csv']!.find((r) => r.customer_id === tricky.id)!.first_name, TRICKY_NAME)
    assert.deepEqual(
      Object.keys(tables['customers.csv']![0]!).filter((key) => /password|card|cc_|token|hash/.test(key)),
      []
    )

    // Catalogue.
    const serviceRow = tables['services.csv']!.find((r) => r.name === 'Wash')!
    assert.equal(serviceRow.step_count, '2')
    const steps = tables['steps.csv']!.filter((r) => r.service_id === serviceRow.service_id)
    assert.deepEqual(
      steps.map((r) => [r.position, r.description]),
      [
        ['1', 'Received'],
        ['2', 'Washed, "pressed"']
      ]
    )
    assert.deepEqual(
      tables['items.csv']!.map((r) => [r.item_id, r.service_id, r.title, r.price_cents]),
      [
        [shirt, serviceRow.service_id, 'Shirt', '350'],
        [suit, serviceRow.service_id, 'Suit, 2 pieces', '1299']
      ]
    )

    // Orders: the full view and the history answer, amounts in cents.
    assert.equal(tables['orders.csv']!.length, 2)
    for (const order of [first, second]) {
      const view = ok(await t.post(`/v1/transaction/${order.transaction_id}`)) as unknown as {
        transaction_id: string
        transaction_code: string
        customer_id: string
        note: string
        status: string
        total: string
        service: { service_id: string; position: { position_number: string } }
        receipt: { receipt_id: string | null; item_id: string | null; title: string | null; price: string; quantity: string | null }[]
      }
      const row = tables['orders.csv']!.find((r) => r.transaction_id === order.transaction_id)!
      assert.deepEqual(
        [row.transaction_code, row.customer_id, row.service_id, row.position, row.status, row.note, Number(row.total_cents)],
        [
          view.transaction_code,
          view.customer_id,
          view.service.service_id,
          view.service.position.position_number,
          view.status,
          view.note,
          cents(view.total)
        ]
      )
      const lines = tables['receipt_lines.csv']!.filter((r) => r.transaction_id === order.transaction_id)
      assert.deepEqual(
        lines.map((r) => [r.receipt_id, r.item_id, r.title, r.quantity, Number(r.amount_cents)]),
        view.receipt
          .filter((line) => line.receipt_id !== null)
          .map((line) => [line.receipt_id, line.item_id, line.title, line.quantity, cents(line.price)])
      )
      const history = ok(await t.post(`/v1/transaction/${order.transaction_id}/history`)) as unknown as {
        history: { at: string; type: string; position_number: string; description: string; actor: string; by: string }[]
      }
      assert.deepEqual(
        tables['history.csv']!.filter((r) => r.transaction_id === order.transaction_id).map((r) => ({
          at: r.at,
          type: r.type,
          position_number: r.position,
          description: r.description,
          actor: r.actor,
          by: r.by
        })),
        history.history
      )
    }
    // D-17: who did it, by the API key's name; "" for the customer's own change.
    assert.deepEqual(Object.keys(tables['history.csv']![0]!), ['transaction_id', 'at', 'type', 'position', 'description', 'actor', 'by'])
    assert.deepEqual(
      tables['history.csv']!.filter((r) => r.transaction_id === second.transaction_id).map((r) => [r.type, r.actor, r.by]),
      [
        ['created', 'staff', 'test staff'],
        ['updated', 'customer', '']
      ]
    )
    assert.equal(tables['receipt_lines.csv']!.length, 2)
    assert.equal(tables['orders.csv']!.find((r) => r.transaction_id === first.transaction_id)!.total_cents, String(3 * 1299 + 350))

    // No password hash, card number or ciphertext, or token text in any file (D-94, D-34).
    const secrets = await t.database.db.selectFrom('customers').select(['password_hash', 'card_ciphertext']).execute()
    const keyHashes = await t.database.db.selectFrom('api_keys').select('secret_hash').execute()
    const forbidden = [
      CARD_NUMBER,
      ...secrets.flatMap((s) => [s.password_hash, s.card_ciphertext]),
      ...keyHashes.map((k) => k.secret_hash),
      ...Object.values(t.auth).map((header) => Buffer.from(header.slice('Basic '.length), 'base64').toString().split(':')[1]!)
    ].filter((value): value is string => value !== null && value !== '')
    assert.ok(secrets.some((s) => s.card_ciphertext !== null) && secrets.every((s) => s.password_hash !== null))
    for (const text of texts) for (const secret of forbidden) assert.ok(!text.includes(secret), 'a secret is in the export')
  })

  it('should write into DATA_DIR/exports/service-ordering-YYYYMMDDTHHMMSSZ without --to', async () => {
    const result = await run(CLI, ['export'], envOf(t))
    assert.equal(result.code, 0, result.stderr)
    const printed = JSON.parse(result.stdout) as { dir: string; files: Record<string, number> }
    assert.equal(path.dirname(printed.dir), path.join(path.resolve(t.config.dataDir), 'exports'))
    assert.match(path.basename(printed.dir), /^service-ordering-\d{8}T\d{6}Z$/)
    assert.deepEqual(Object.keys(printed.files), FILES)
    assert.deepEqual(fs.readdirSync(printed.dir).sort(), [...FILES].sort())
  })

  it('should say so in one line and exit 1 when --to cannot be written', async () => {
    const parent = newDir()
    const blocker = path.join(parent, 'file')
    fs.writeFileSync(blocker, '')
    const targets = [path.join(blocker, 'out')]
    // Root ignores directory modes: a read-only directory refuses only other users.
    if (process.getuid?.() !== 0) {
      const readOnly = path.join(parent, 'read-only')
      fs.mkdirSync(readOnly, { mode: 0o500 })
      targets.push(path.join(readOnly, 'out'))
    }
    for (const target of targets) {
      const result = await run(CLI, ['export', '--to', target], envOf(t))
      assert.equal(result.code, 1, target)
      assert.equal(result.stdout, '')
      assert.equal(result.stderr.split('\n').filter((line) => line !== '').length, 1, result.stderr)
      assert.match(result.stderr, /^service-ordering: cannot export into /)
      assert.ok(!fs.existsSync(target))
    }
  })
})
