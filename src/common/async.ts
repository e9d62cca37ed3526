/** Whether `promise` settled (either way) within `ms`; it is not cancelled when it did not. */
export async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms)
  })
  try {
    return await Promise.race([
      promise.then(
        () => true,
        () => true
      ),
      late
    ])
  } finally {
    clearTimeout(timer)
  }
}

/** The message of anything thrown, for a one-line report. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
