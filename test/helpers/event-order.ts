/**
 * Proving "at once" and "without waiting" by the order of events, never by milliseconds: a fast
 * answer is one that arrives while what it must not wait for (a held connection, a hanging
 * command) is provably still pending. Time only bounds a test that would otherwise hang.
 */

/** Long enough for any loaded machine; only a broken behaviour ever reaches it. */
export const GENEROUS_MS = 20_000

/** A promise and whether it has settled yet. */
export interface Watched<T> {
  readonly promise: Promise<T>
  settled(): boolean
}

/** Watches `promise`, so a test can assert it is still pending when something else happens. */
export function watch<T>(promise: Promise<T>): Watched<T> {
  let settled = false
  const done = () => {
    settled = true
  }
  promise.then(done, done)
  return { promise, settled: () => settled }
}

/** The promise's value; fails with `what` after `ms` instead of hanging the test run. */
export async function within<T>(ms: number, promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: still pending after ${ms / 1000} s`)), ms)
  })
  try {
    return await Promise.race([promise, late])
  } finally {
    clearTimeout(timer)
  }
}

/** Resolves once `count` of the watched promises have settled. */
export async function settled(watched: readonly Watched<unknown>[], count: number): Promise<void> {
  await new Promise<void>((resolve) => {
    let done = 0
    for (const w of watched) {
      const one = () => {
        if (++done === count) resolve()
      }
      w.promise.then(one, one)
    }
  })
}

/**
 * The value of `work`, which must settle before the event loop takes its next turn: no answer from
 * a socket and no timer was waited for, however slow the machine.
 */
export async function withoutWaiting<T>(work: () => Promise<T>): Promise<T> {
  let turned = false
  const turn = setImmediate(() => {
    turned = true
  })
  try {
    const value = await work()
    if (turned) throw new Error('the work waited for the event loop (a socket, a timer) instead of answering at once')
    return value
  } finally {
    clearImmediate(turn)
  }
}
