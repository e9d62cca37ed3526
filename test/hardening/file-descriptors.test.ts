import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { after, describe, it } from 'node:test'
import { loadConfig } from '../../src/config.js'
import { startServer } from '../../src/http-server.js'
import { createLogger } from '../../src/platform/logger.js'

describe('a listening server whose accept fails (issue 25)', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'so-accept-'))
  after(() => fs.rmSync(dataDir, { recursive: true, force: true }))

  it('should log the failure and go on serving, not end the process with an unheard error event', async () => {
    const logs: string[] = []
    const logger = createLogger('warn', { write: (line: string) => void logs.push(line) })
    const server = await startServer(loadConfig({ PORT: '0', DATA_DIR: dataDir, DISPATCHER: 'off' }), { logger })
    try {
      // Node emits a failed accept (EMFILE when libuv's reserve descriptor is gone too) on the server.
      const failure = Object.assign(new Error('accept EMFILE'), { code: 'EMFILE', syscall: 'accept' })
      assert.doesNotThrow(() => server.app.server.emit('error', failure))
      const response = await fetch(`${server.url}/healthz`)
      assert.equal(response.status, 200)
      const logged = logs
        .map((line) => JSON.parse(line) as { msg: string; err?: { code?: string } })
        .find((line) => line.msg === 'could not accept a connection')
      assert.equal(logged?.err?.code, 'EMFILE')
    } finally {
      await server.close(1000)
    }
  })
})
