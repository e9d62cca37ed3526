import { spawnSync } from 'node:child_process'
import fs from 'node:fs'

/** Where Debian's chromium package puts the browser (node-svc machines, CI). */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'

/**
 * The flags every launch uses: headless as root in a container, and no background traffic,
 * which a closed network refuses many times over.
 */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-quic',
  '--no-first-run',
  '--disable-dev-shm-usage'
]

/**
 * Makes sure Chromium is there: when absent, installs Debian's `chromium` with apt-get (CI runs as
 * root). Answers the executable, or why the browser tests cannot run here.
 */
export function ensureChromium(): { executable: string } | { skip: string } {
  if (fs.existsSync(CHROMIUM)) return { executable: CHROMIUM }
  const root = typeof process.getuid === 'function' && process.getuid() === 0
  if (!root)
    return {
      skip: `${CHROMIUM} is absent and only root may install it: run \`apt-get install -y chromium\` (Debian), then the e2e tests again.`
    }
  const apt = (args: string[]) =>
    spawnSync('apt-get', args, { encoding: 'utf8', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }, timeout: 600_000 })
  process.stdout.write(`e2e: ${CHROMIUM} is absent; installing Debian's chromium with apt-get (once per machine)...\n`)
  let install = apt(['install', '-y', '--no-install-recommends', 'chromium'])
  // A fresh machine may not have the package lists yet.
  if (install.status !== 0) {
    apt(['update'])
    install = apt(['install', '-y', '--no-install-recommends', 'chromium'])
  }
  if (install.status === 0 && fs.existsSync(CHROMIUM)) return { executable: CHROMIUM }
  const why = install.error?.message ?? install.stderr.trim().split('\n').slice(-3).join(' ')
  return {
    skip: `${CHROMIUM} is absent and \`apt-get install -y chromium\` failed (${why}); install Debian's chromium to run the browser tests.`
  }
}
