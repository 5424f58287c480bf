/**
 * A wait that never ends early and ends at once on abort. Timers may fire a millisecond before their
 * nominal time; re-arming for the remainder measured on the monotonic clock keeps the promise "never
 * retry before the server asked" exact.
 */
import { performance } from 'node:perf_hooks'

/** Resolves `true` after at least `ms`, or `false` as soon as `signal` aborts. */
export function waitAtLeast(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false)
  const start = performance.now()
  return new Promise((resolve) => {
    let timer: ReturnType<typeof setTimeout> | undefined
    const onAbort = () => {
      clearTimeout(timer)
      resolve(false)
    }
    const arm = () => {
      const left = ms - (performance.now() - start)
      if (left <= 0) {
        signal.removeEventListener('abort', onAbort)
        resolve(true)
        return
      }
      timer = setTimeout(arm, Math.ceil(left))
    }
    signal.addEventListener('abort', onAbort, { once: true })
    arm()
  })
}
