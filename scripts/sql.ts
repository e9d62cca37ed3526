// npm run sql: compiles every statement the app prepares, for SQLite and PostgreSQL, with no database,
// and writes each module's SQL to its queries/<module>.<dialect>.sql, checked in so a reviewer reads
// the exact SQL each dialect runs (issue 26). test/db/checked-in-sql.test.ts fails when they differ.
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { type CompileOnly, compileOnly } from '../src/db/compile-only.js'
import type { Dialect } from '../src/db/dialect.js'
import { apiKeysRepository } from '../src/modules/api-keys/api-keys.repository.js'
import { catalogueEditRepository } from '../src/modules/catalogue/catalogue-edit.repository.js'
import { itemsRepository } from '../src/modules/catalogue/items.repository.js'
import { servicesRepository } from '../src/modules/catalogue/services.repository.js'
import { StepTexts } from '../src/modules/catalogue/step-texts.js'
import { contactSelect } from '../src/modules/customers/contacts.repository.js'
import { customerLoginQuery } from '../src/modules/customers/credentials.repository.js'
import { customersRepository } from '../src/modules/customers/customers.repository.js'
import { listRepository } from '../src/modules/customers/list.repository.js'
import { passwordResetRepository } from '../src/modules/customers/password-reset.repository.js'
import { searchRepository } from '../src/modules/customers/search.repository.js'
import { notificationsRepository } from '../src/modules/notifications/notifications.repository.js'
import { outboxBacklog, outboxWriter } from '../src/modules/notifications/outbox.repository.js'
import { outboxClaims } from '../src/modules/notifications/outbox-claims.repository.js'
import { outboxOperationsRepository } from '../src/modules/notifications/outbox-operations.repository.js'
import { boardRepository } from '../src/modules/orders/board.repository.js'
import { trackedHistoryInsert } from '../src/modules/orders/order-writes.repository.js'
import { ordersRepository } from '../src/modules/orders/orders.repository.js'
import { ordersListRepository } from '../src/modules/orders/orders-list.repository.js'
import { receiptsRepository } from '../src/modules/orders/receipts.repository.js'
import { stepEntryWriter } from '../src/modules/orders/step-entry.js'
import { sessionsRepository } from '../src/modules/staff/sessions.repository.js'
import { staffRepository } from '../src/modules/staff/staff.repository.js'
import { trackingRepository } from '../src/modules/tracking/tracking.repository.js'
import { healthProbeRepository } from '../src/platform/health-probe.repository.js'
import { idempotencyStatements } from '../src/platform/idempotency.repository.js'

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')

/** Each folder with its own queries/ and the repositories whose statements go there. */
const SOURCES: ReadonlyArray<{ folder: string; name: string; compile(compiler: CompileOnly): void }> = [
  { folder: 'src/modules/api-keys', name: 'api-keys', compile: (c) => apiKeysRepository(c) },
  {
    folder: 'src/modules/catalogue',
    name: 'catalogue',
    compile: (c) => {
      servicesRepository(c)
      itemsRepository(c)
      new StepTexts(c)
      catalogueEditRepository(c)
    }
  },
  {
    folder: 'src/modules/customers',
    name: 'customers',
    compile: (c) => {
      customersRepository(c)
      customerLoginQuery(c)
      passwordResetRepository(c)
      searchRepository(c)
      listRepository(c)
    }
  },
  {
    folder: 'src/modules/notifications',
    name: 'notifications',
    compile: (c) => {
      outboxWriter(c)
      outboxClaims(c)
      outboxBacklog(c)
      outboxOperationsRepository(c)
      notificationsRepository(c, { contact: contactSelect, trackedEntry: trackedHistoryInsert })
    }
  },
  {
    folder: 'src/modules/orders',
    name: 'orders',
    compile: (c) => {
      const orders = ordersRepository(c)
      ordersListRepository(c)
      receiptsRepository(c)
      boardRepository(c)
      stepEntryWriter(c, orders, outboxWriter(compileOnly(c.dialect.name)), () => 0)
    }
  },
  {
    folder: 'src/modules/staff',
    name: 'staff',
    compile: (c) => {
      staffRepository(c)
      sessionsRepository(c)
    }
  },
  { folder: 'src/modules/tracking', name: 'tracking', compile: (c) => trackingRepository(c) },
  {
    folder: 'src/platform',
    name: 'platform',
    compile: (c) => {
      idempotencyStatements(c)
      healthProbeRepository(c)
    }
  }
]

const DIALECTS: readonly Dialect['name'][] = ['sqlite', 'postgres']

// A line break (indented by parenthesis depth) before each of these where it follows a space.
const CLAUSES = [
  'select',
  'from',
  'inner join',
  'left join',
  'where',
  'group by',
  'order by',
  'limit',
  'offset',
  'returning',
  'values',
  'set',
  'on conflict',
  'insert into',
  'update',
  'delete from',
  'for update',
  'for no key update',
  'for share'
]

/** The SQL text with a line per clause; quoted names and strings are left as they are. */
export function formatSql(text: string): string {
  let out = ''
  let depth = 0
  let quote: string | null = null
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!
    if (quote !== null) {
      if (char === quote) quote = null
      out += char
      continue
    }
    if (char === "'" || char === '"') quote = char
    else if (char === '(') depth++
    else if (char === ')') depth--
    else if (char === ' ' && i > 0) {
      const rest = text.slice(i + 1)
      const clause = CLAUSES.find((c) => rest.startsWith(c) && !/[a-z_]/.test(rest[c.length] ?? ''))
      // `delete from` and `do update` read as one clause.
      if (clause !== undefined && !/(^|[ (])(delete|do)$/.test(out)) {
        out += `\n${'  '.repeat(depth)}${clause}`
        i += clause.length
        continue
      }
    }
    out += char
  }
  return out
}

/** Every checked-in SQL file as it should be: path relative to the repository, and its text. */
export function generatedSqlFiles(): Map<string, string> {
  const files = new Map<string, string>()
  for (const source of SOURCES) {
    for (const dialect of DIALECTS) {
      const compiler = compileOnly(dialect)
      source.compile(compiler)
      const statements = compiler.statements().sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      const header = `-- Generated by \`npm run sql\` from the repositories of ${source.name}: the ${dialect === 'sqlite' ? 'SQLite' : 'PostgreSQL'} statements, by name.\n`
      const body = statements.map(([name, text]) => `-- ${name}\n${formatSql(text)};\n`).join('\n')
      files.set(path.join(source.folder, 'queries', `${source.name}.${dialect}.sql`), `${header}\n${body}`)
    }
  }
  return files
}

function main(): void {
  for (const [file, text] of generatedSqlFiles()) {
    const full = path.join(ROOT, file)
    fs.mkdirSync(path.dirname(full), { recursive: true })
    const before = fs.existsSync(full) ? fs.readFileSync(full, 'utf8') : null
    if (before !== text) {
      fs.writeFileSync(full, text)
      console.log(`wrote ${file}`)
    }
  }
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main()
