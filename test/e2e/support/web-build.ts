import { spawnSync } from 'node:child_process'
import path from 'node:path'
import { ROOT } from '../../helpers/processes.js'

/**
 * Builds the console and tracking page into dist/web unless the build is up to date (the same
 * step `npm run build` and `npm test` run). Several test files may call it at once: the script
 * builds under a lock and the others wait.
 */
export function ensureWebBuild(): void {
  const result = spawnSync(process.execPath, [path.join(ROOT, 'scripts', 'build-web.mjs')], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 300_000
  })
  if (result.status !== 0) throw new Error(`npm run build:web failed (${result.status}):\n${result.stdout}\n${result.stderr}`)
  if (/not built/.test(result.stderr)) throw new Error(`the web console could not be built:\n${result.stderr}`)
}
