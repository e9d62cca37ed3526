import fs from 'node:fs'
import path from 'node:path'

/**
 * `mkdir -p`: creates `dir` and any missing parents. Not `fs.mkdirSync(dir, { recursive: true })`,
 * which on Node 20 loops for ever where mkdir answers ENOENT under a parent that exists (a
 * DATA_DIR under /proc hung the start-up instead of failing with one line, D-01).
 */
export function ensureDirectory(dir: string): void {
  const missing: string[] = []
  for (let current = path.resolve(dir); !fs.existsSync(current); ) {
    missing.push(current)
    const parent = path.dirname(current)
    if (parent === current) break
    current = parent
  }
  for (const directory of missing.reverse()) {
    try {
      fs.mkdirSync(directory)
    } catch (error) {
      // Made meanwhile by another process starting at the same time (D-04): that is fine.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    }
  }
}
