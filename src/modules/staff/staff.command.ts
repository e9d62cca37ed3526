import { parseArgs } from 'node:util'
import { type Clock, systemClock } from '../../common/clock.js'
import type { Config } from '../../config.js'
import { type Database, openDatabase } from '../../db/database.js'
import { migrateToLatest } from '../../db/migrator.js'
import { type RunUseCase, StaffService } from './staff.service.js'
import type { StaffRole } from './staff.table.js'

export const STAFF_USAGE = `  staff create --email E --name N --role admin|staff
                                              make an active staff user; prints once the link
                                              where they set their password (72 hours, D-15)
  staff list                                  list staff users (never passwords)
  staff disable EMAIL                         disable a staff user, ending their sessions at once;
                                              refuses the last active admin
`

const ROLES: readonly StaffRole[] = ['admin', 'staff']

async function withStaff<T>(config: Config, clock: Clock, work: (staff: StaffService, run: RunUseCase) => Promise<T>): Promise<T> {
  const database: Database = openDatabase(config)
  try {
    await migrateToLatest(database.db, database.dialect)
    // No data key: the CLI prints its link instead of e-mailing it sealed.
    return await work(new StaffService(database, clock, config.publicUrl, null), (use) => database.unitOfWork.run(use))
  } finally {
    await database.close()
  }
}

/**
 * `service-ordering staff create|list|disable` (D-15). A refusal (an e-mail in use, the last
 * active admin) throws: the CLI prints its one line and exits 1.
 */
export async function staffCommand(
  config: Config,
  args: string[],
  usageError: (message: string) => Error,
  clock: Clock = systemClock
): Promise<void> {
  const [action, ...rest] = args
  const { values, positionals } = parseArgs({
    args: rest,
    options: { email: { type: 'string' }, name: { type: 'string' }, role: { type: 'string' } },
    allowPositionals: true,
    strict: true
  })
  // Usage is checked before the database is opened (D-90): a mistake exits 2 and touches nothing.
  const allowed = action === 'disable' ? 1 : 0
  if (positionals.length > allowed) throw usageError(`unexpected argument ${positionals[allowed]}`)
  if (action !== 'create' && (values.email ?? values.name ?? values.role) !== undefined)
    throw usageError(`staff ${action} takes no options`)
  if (action === 'create') {
    const role = values.role as StaffRole | undefined
    if (role === undefined || !ROLES.includes(role)) throw usageError('--role must be admin or staff')
    if (values.email === undefined) throw usageError('staff create needs --email')
    if (values.name === undefined) throw usageError('staff create needs --name')
    const { email, name } = values
    await withStaff(config, clock, async (staff, run) => {
      const { view, link } = await staff.createWithLink({ email, name, role }, run)
      process.stdout.write(`created ${view.role} ${view.email} (${view.staff_id}); set the password within 72 hours at:\n${link}\n`)
    })
  } else if (action === 'list') {
    await withStaff(config, clock, async (staff) => {
      process.stdout.write('STAFF_ID                  ROLE   STATUS    CREATED                   EMAIL  NAME\n')
      for (const user of (await staff.list()).staff) {
        process.stdout.write(
          `${user.staff_id.padEnd(25)} ${user.role.padEnd(6)} ${user.status.padEnd(9)} ${user.created_at.padEnd(25)} ${user.email}  ${user.name}\n`
        )
      }
    })
  } else if (action === 'disable') {
    const email = positionals[0]
    if (email === undefined) throw usageError('staff disable needs an EMAIL')
    await withStaff(config, clock, async (staff, run) => {
      const user = await staff.findByEmail(email)
      if (user === undefined) throw new Error(`no staff user ${email.trim().toLowerCase()}`)
      await staff.update({ staff_id: user.staff_id, status: 'disabled' }, run)
      process.stdout.write(`disabled ${user.email}\n`)
    })
  } else {
    throw usageError('staff needs create, list or disable')
  }
}
