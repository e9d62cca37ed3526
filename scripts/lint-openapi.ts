// `npm run lint:openapi`: writes the OpenAPI document the app generates to a temporary file and
// runs `redocly lint` (redocly.yaml) on it. The app is built on a throwaway in-memory database.
// `--out <file>` writes the document there and lints nothing.
import { spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import { createRequire } from 'node:module'
import os from 'node:os'
import path from 'node:path'
import { buildApp } from '../src/app.js'
import { loadConfig } from '../src/config.js'
import { openDatabase } from '../src/db/database.js'
import { migrateToLatest } from '../src/db/migrator.js'
import { createLogger } from '../src/platform/logger.js'

/** The document GET /openapi.json serves, as text. */
async function generatedDocument(): Promise<string> {
  // A deployed server's document: the default PUBLIC_URL, localhost, is the development one.
  const config = loadConfig({
    DATABASE_URL: 'sqlite::memory:',
    DISPATCHER: 'off',
    LOG_LEVEL: 'silent',
    PUBLIC_URL: 'https://service-ordering.test'
  })
  const database = openDatabase(config)
  try {
    await migrateToLatest(database.db, database.dialect)
    const app = await buildApp({ config, database, dataKey: randomBytes(32), logger: createLogger('silent') })
    try {
      const response = await app.inject({ method: 'GET', url: '/openapi.json' })
      if (response.statusCode !== 200) throw new Error(`GET /openapi.json answered ${response.statusCode}`)
      return response.body
    } finally {
      await app.close()
    }
  } finally {
    await database.close()
  }
}

const outAt = process.argv.indexOf('--out')
const document = await generatedDocument()
if (outAt !== -1) {
  fs.writeFileSync(process.argv[outAt + 1] ?? 'openapi.json', document)
} else {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'openapi-'))
  const file = path.join(dir, 'openapi.json')
  fs.writeFileSync(file, document)
  const cli = createRequire(import.meta.url).resolve('@redocly/cli/bin/cli.js')
  const lint = spawnSync(process.execPath, [cli, 'lint', '--config', 'redocly.yaml', file], { stdio: 'inherit' })
  fs.rmSync(dir, { recursive: true, force: true })
  process.exit(lint.status ?? 1)
}
