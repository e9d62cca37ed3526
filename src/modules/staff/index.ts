import type { Clock } from '../../common/clock.js'
import type { Config } from '../../config.js'
import type { Database } from '../../db/database.js'
import type { AppContext } from '../../platform/app-context.js'
import type { App } from '../../platform/app-types.js'
import { callersScope } from '../../platform/callers-scope.js'
import { useSchemas } from '../../platform/components.js'
import type { MaintenanceTask } from '../../platform/maintenance.js'
import { SESSION_IDLE_MS, SESSION_LIFETIME_MS, type SessionStore } from '../../platform/session-auth.js'
import { consoleRoutes } from './console.routes.js'
import { ConsoleService } from './console.service.js'
import { sessionsRepository } from './sessions.repository.js'
import { staffRepository } from './staff.repository.js'
import { staffRoutes } from './staff.routes.js'
import { STAFF_SCHEMAS } from './staff.schemas.js'
import { StaffService } from './staff.service.js'

export { STAFF_USAGE, staffCommand } from './staff.command.js'

/** What the staff module uses of the app context. */
interface StaffDeps extends Pick<AppContext, 'database' | 'useCases' | 'clock' | 'dataKey' | 'auth'> {
  readonly config: Pick<Config, 'publicUrl' | 'shopName' | 'timeZone'>
  readonly rateLimits: Pick<AppContext['rateLimits'], 'signIn'>
}

/** Staff users (D-15) for admins (D-18), and the console's sessions, set-password page and settings (D-16). */
export function staffModule(context: StaffDeps) {
  const staff = new StaffService(context.database, context.clock, context.config.publicUrl, context.dataKey)
  const sessions = new ConsoleService(context.database, context.clock, context.auth)
  const settings = {
    shopName: context.config.shopName,
    timeZone: context.config.timeZone,
    setupNeeded: () => staff.setupNeeded()
  }
  return async (app: App): Promise<void> => {
    useSchemas(app, STAFF_SCHEMAS)
    // The admin role only: admin API keys and admin staff users (D-18).
    await app.register(callersScope(context.auth, ['admin'], (admins) => staffRoutes(admins, staff, context.useCases)))
    const secure = context.config.publicUrl.startsWith('https:')
    consoleRoutes(app, context.auth, sessions, settings, context.rateLimits.signIn, secure)
  }
}

/**
 * The stored side of staff credentials, read by the authenticator (platform/auth.ts,
 * platform/session-auth.ts): logins of active users for sign-in, and console sessions. Not
 * memoised: a disabled user's session must fail on the very next request (D-15), in any process.
 */
export function staffCredentials(database: Database): {
  findStaffLogin: (email: string) => Promise<{ id: string; password_hash: string | null } | undefined>
  sessions: SessionStore
} {
  const users = staffRepository(database)
  const sessions = sessionsRepository(database)
  return {
    findStaffLogin: (email) => users.login(email),
    sessions: {
      findSession: (tokenHash) => sessions.find(tokenHash),
      touchSession: (tokenHash, at) => database.unitOfWork.run((tx) => sessions.touch(tx, tokenHash, at))
    }
  }
}

/** Deletes console sessions that have ended by time (D-16), for the app's maintenance. */
export function endedSessionsPurge(database: Database, clock: Clock): MaintenanceTask {
  const sessions = sessionsRepository(database)
  return {
    name: 'ended console sessions',
    run: () => {
      const now = clock.now()
      return database.unitOfWork.run((tx) => sessions.purge(tx, now - SESSION_LIFETIME_MS, now - SESSION_IDLE_MS))
    }
  }
}
