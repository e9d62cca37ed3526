import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { describe, it } from 'node:test'
import { npmStartFlags, ROOT } from '../../bench/environment.js'

const packageJson = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } }

describe('bench: the API started as npm start starts it (issue 7)', () => {
  it('should read the Node flags between node and dist/main.js, and none when there are none', () => {
    assert.deepEqual(npmStartFlags('MALLOC_ARENA_MAX=${MALLOC_ARENA_MAX:-2} exec node --a=1 --b dist/main.js'), ['--a=1', '--b'])
    assert.deepEqual(npmStartFlags('node dist/main.js'), [])
    assert.throws(() => npmStartFlags('tsx src/main.ts'), /cannot find "node … dist\/main\.js"/)
  })

  it("should find npm start's flags, and the Docker image's entry point should run with the same ones", () => {
    const flags = npmStartFlags(packageJson.scripts.start)
    assert.ok(flags.includes('--single-threaded-gc'), 'the GC flag measured in BENCHMARKS.md')
    assert.ok(flags.includes('--heap-growing-percent=30'))
    const entrypoint = /^ENTRYPOINT (\[.*\])$/m.exec(fs.readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8'))
    assert.ok(entrypoint !== null, 'the Dockerfile has an exec-form ENTRYPOINT')
    const argv = JSON.parse(entrypoint[1]!) as string[]
    assert.equal(argv[0], 'node')
    assert.equal(argv.at(-1), 'dist/cli.js')
    assert.deepEqual(argv.slice(1, -1), flags)
  })
})
