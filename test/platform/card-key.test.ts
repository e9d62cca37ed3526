import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { describe, it } from 'node:test'
import { loadCardKey } from '../../src/modules/payments/card-key.js'
import { ROOT } from '../helpers/processes.js'

const FIXTURE = path.join('test', 'platform', 'support', 'load-card-key-when-told.ts')

function freshDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'so-card-key-'))
}

const load = (dataDir: string) => loadCardKey({ cardEncryptionKey: null, production: false, dataDir })

/** Starts a process that loads the key when told; resolves once it is ready. */
function starter(dataDir: string): Promise<{ go(): Promise<{ key?: string; error?: string }> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', FIXTURE], {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR: dataDir },
    stdio: ['pipe', 'pipe', 'pipe']
  })
  let out = ''
  let stderr = ''
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  const ended = new Promise<void>((resolve) => child.once('close', () => resolve()))
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString()
      if (out === 'ready\n') {
        resolve({
          async go() {
            child.stdin.write('go\n')
            await ended
            const last = out.trim().split('\n').at(-1)!
            if (last === 'ready') throw new Error(`no answer; stderr: ${stderr}`)
            return JSON.parse(last) as { key?: string; error?: string }
          }
        })
      }
    })
    child.once('error', reject)
    child.once('close', (code) => {
      if (!out.startsWith('ready')) reject(new Error(`ended (${code}) before ready: ${stderr}`))
    })
  })
}

describe('the card key file outside production (D-02, D-34)', () => {
  it('should create a 0600 file with a 32-byte key once, leave no temporary file, and read it back after', () => {
    const dir = freshDir()
    const key = load(dir)
    assert.equal(key.length, 32)
    assert.deepEqual(fs.readdirSync(dir), ['card-key'])
    assert.equal(fs.statSync(path.join(dir, 'card-key')).mode & 0o777, 0o600)
    assert.equal(fs.readFileSync(path.join(dir, 'card-key'), 'utf8'), `${key.toString('base64')}\n`)
    assert.deepEqual(load(dir), key)
  })

  it('should never overwrite a key that is there, and refuse one that is not 32 bytes', () => {
    const dir = freshDir()
    const existing = Buffer.alloc(32, 7)
    fs.writeFileSync(path.join(dir, 'card-key'), `${existing.toString('base64')}\n`)
    assert.deepEqual(load(dir), existing)
    fs.writeFileSync(path.join(dir, 'card-key'), '')
    assert.throws(() => load(dir), /does not hold a 32-byte base64 key/)
    assert.equal(fs.readFileSync(path.join(dir, 'card-key'), 'utf8'), '', 'a bad file is reported, not replaced')
  })

  it('should give every process the same key when several first starts load it at the same moment (D-04)', async () => {
    for (let round = 0; round < 3; round++) {
      const dir = freshDir()
      const starters = await Promise.all(Array.from({ length: 6 }, () => starter(dir)))
      const answers = await Promise.all(starters.map((s) => s.go()))
      for (const answer of answers) assert.equal(answer.error, undefined)
      assert.equal(new Set(answers.map((a) => a.key)).size, 1)
      assert.equal(answers[0]!.key, fs.readFileSync(path.join(dir, 'card-key'), 'utf8').trim())
      assert.deepEqual(fs.readdirSync(dir), ['card-key'])
    }
  })
})
