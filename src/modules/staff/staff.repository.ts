import type { StatementCompiler, Tx } from '../../db/statement.js'
import type { StaffRole, StaffStatus } from './staff.table.js'

/** A staff user as the service reads them: never their password hash. */
export interface StaffRow {
  id: string
  email: string
  name: string
  role: StaffRole
  status: StaffStatus
  created_at: number
}

type NewStaff = StaffRow & { password_hash: string | null; updated_at: number }
type StaffChange = { id: string; name: string; role: StaffRole; status: StaffStatus; now: number }

const COLUMNS = ['id', 'email', 'name', 'role', 'status', 'created_at'] as const

/** SQL of the staff_users table (D-15); statements compiled once per database. */
export function staffRepository(database: StatementCompiler) {
  const statements = {
    insert: database.prepare<NewStaff, never>('staff.insert', (db, param) =>
      db.insertInto('staff_users').values({
        id: param('id'),
        email: param('email'),
        name: param('name'),
        role: param('role'),
        status: param('status'),
        password_hash: param('password_hash'),
        created_at: param('created_at'),
        updated_at: param('updated_at')
      })
    ),
    byId: database.prepare<{ id: string }, StaffRow>('staff.byId', (db, param) =>
      db.selectFrom('staff_users').select(COLUMNS).where('id', '=', param('id'))
    ),
    byEmail: database.prepare<{ email: string }, StaffRow>('staff.byEmail', (db, param) =>
      db.selectFrom('staff_users').select(COLUMNS).where('email', '=', param('email'))
    ),
    // D-15: ordered by name; the id keeps users of one name in a stable order.
    list: database.prepare<Record<string, never>, StaffRow>('staff.list', (db) =>
      db.selectFrom('staff_users').select(COLUMNS).orderBy('name').orderBy('id')
    ),
    update: database.prepare<StaffChange, never>('staff.update', (db, param) =>
      db
        .updateTable('staff_users')
        .set({ name: param('name'), role: param('role'), status: param('status'), updated_at: param('now') })
        .where('id', '=', param('id'))
    ),
    setPassword: database.prepare<{ id: string; password_hash: string; now: number }, never>('staff.setPassword', (db, param) =>
      db
        .updateTable('staff_users')
        .set({ password_hash: param('password_hash'), updated_at: param('now') })
        .where('id', '=', param('id'))
    ),
    // D-15: API keys do not count; only active admin staff users do.
    otherActiveAdmins: database.prepare<{ id: string }, { n: number }>('staff.otherActiveAdmins', (db, param) =>
      db
        .selectFrom('staff_users')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('role', '=', 'admin')
        .where('status', '=', 'active')
        .where('id', '<>', param('id'))
    ),
    // D-16: a disabled user cannot sign in, so their login is not found at all.
    login: database.prepare<{ email: string }, { id: string; password_hash: string | null }>('staff.login', (db, param) =>
      db.selectFrom('staff_users').select(['id', 'password_hash']).where('email', '=', param('email')).where('status', '=', 'active')
    )
  }

  return {
    insert: async (tx: Tx, row: NewStaff): Promise<void> => {
      await statements.insert.run(row, tx)
    },
    byId: (id: string, tx?: Tx) => statements.byId.first({ id }, tx),
    byEmail: (email: string, tx?: Tx) => statements.byEmail.first({ email }, tx),
    list: (tx?: Tx) => statements.list.rows({}, tx),
    update: async (tx: Tx, change: StaffChange): Promise<void> => {
      await statements.update.run(change, tx)
    },
    setPassword: async (tx: Tx, id: string, passwordHash: string, now: number): Promise<void> => {
      await statements.setPassword.run({ id, password_hash: passwordHash, now }, tx)
    },
    /** Active admin staff users other than `id` (any id that is no user's: all of them). */
    otherActiveAdmins: async (id: string, tx?: Tx): Promise<number> =>
      Number((await statements.otherActiveAdmins.first({ id }, tx))?.n ?? 0),
    /** The login of an active staff user by normalised e-mail (platform/auth.ts `CredentialStore.findStaffLogin`). */
    login: (email: string) => statements.login.first({ email })
  }
}

export type StaffRepository = ReturnType<typeof staffRepository>
