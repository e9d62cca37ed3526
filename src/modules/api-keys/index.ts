import type { StatementCompiler } from '../../db/statement.js'
import { apiKeysRepository } from './api-keys.repository.js'

export { ApiKeysService } from './api-keys.service.js'

/**
 * The stored credential of a key id, read by the authenticator on every key-authenticated request
 * (platform/auth.ts `CredentialStore.findApiKey`); the api-keys module alone writes the table.
 */
export function apiKeyCredentials(database: StatementCompiler) {
  return apiKeysRepository(database).findForAuth
}
