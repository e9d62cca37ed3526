import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

/**
 * Where `npm run build:web` puts the built console and tracking page: `dist/web` at the
 * repository root, found from this file whether it runs as `src/…/pages.ts` or `dist/…/pages.js`.
 */
const WEB_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..', 'dist', 'web')

/** The two HTML entry points of the build (web/index.html and web/track.html). */
export type PageName = 'index.html' | 'track.html'

/**
 * Headers of the console and tracking pages: scripts and styles only from this origin
 * (Vite emits no inline script), calls only to this origin, never framed, never cached, and no
 * Referer leaves (the tracking page's address holds its token).
 */
export const PAGE_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'content-security-policy': [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "form-action 'none'",
    "frame-ancestors 'none'",
    "base-uri 'none'"
  ].join('; ')
}

/**
 * The built HTML pages, read when first asked for and again whenever the file changes (a rebuild
 * while the server runs names new asset files). A missing build answers undefined.
 */
export class BuiltPages {
  private readonly cache = new Map<PageName, { mtimeMs: number; html: string }>()

  constructor(readonly root: string = WEB_ROOT) {}

  /** True when the build is there. */
  get built(): boolean {
    return fs.existsSync(path.join(this.root, 'index.html'))
  }

  /** The page's HTML, or undefined when the console has not been built. */
  html(name: PageName): string | undefined {
    const file = path.join(this.root, name)
    const stat = fs.statSync(file, { throwIfNoEntry: false })
    if (stat === undefined) return undefined
    const cached = this.cache.get(name)
    if (cached !== undefined && cached.mtimeMs === stat.mtimeMs) return cached.html
    try {
      const html = fs.readFileSync(file, 'utf8')
      this.cache.set(name, { mtimeMs: stat.mtimeMs, html })
      return html
    } catch {
      return undefined
    }
  }
}
