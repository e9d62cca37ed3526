import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import { ensureDirectory } from '../../src/common/directories.js'

describe('ensureDirectory (mkdir -p, D-01)', () => {
  let root: string
  before(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'so-dirs-'))
  })
  after(() => fs.rmSync(root, { recursive: true, force: true }))

  it('should make every missing level, and do nothing for a directory that exists', () => {
    const deep = path.join(root, 'a', 'b', 'c')
    ensureDirectory(deep)
    assert.ok(fs.statSync(deep).isDirectory())
    ensureDirectory(deep)
    ensureDirectory(root)
    assert.deepEqual(fs.readdirSync(path.join(root, 'a')), ['b'])
  })

  it('should throw, not loop, where a level cannot be made: a file in the way, or under /proc', () => {
    const file = path.join(root, 'plain-file')
    fs.writeFileSync(file, 'x')
    assert.throws(() => ensureDirectory(path.join(file, 'below')), { code: 'ENOTDIR' })
    if (fs.existsSync('/proc/self')) assert.throws(() => ensureDirectory('/proc/so-dirs-test/x'), { code: 'ENOENT' })
  })
})
