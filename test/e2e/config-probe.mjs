/**
 * A probe for the live-config e2e (test/e2e/live-config.sh): a Cordis plugin, inserted into the profile by
 * an overlay patch, that watches one loader row of the running `dsh` and writes what the row is doing to
 * a JSON file whenever it changes: the fiber's state, the config the running plugin was started with
 * (`fiber.config`, what `apply` received) and the raw config the loader last handed it (`fiber._config`,
 * which a rejected live edit still updates). Written to a temporary name and renamed, so a reader never
 * sees half a file.
 * Config: `{ row: '<loader row id>', file: '<absolute path of the JSON file>' }`.
 */
import { renameSync, writeFileSync } from 'node:fs'

export const name = 'e2e-config-probe'
export const inject = ['loader']

/** Cordis' FiberState is a const enum with no runtime object; these are its values. */
const FIBER_STATES = ['pending', 'loading', 'active', 'failed', 'disposed', 'unloading']
const POLL_MS = 50

export function apply(ctx, config) {
  let last = ''
  const snapshot = () => {
    const entry = [...ctx.loader.entries()].find((candidate) => candidate.options.id === config.row)
    const fiber = entry?.fiber
    const observed = JSON.stringify({
      pid: process.pid,
      state: fiber === undefined ? 'absent' : FIBER_STATES[fiber.state] ?? String(fiber.state),
      config: fiber?.config ?? null,
      raw: fiber?._config ?? null,
    })
    if (observed === last) return
    last = observed
    writeFileSync(`${config.file}.tmp`, observed + '\n')
    renameSync(`${config.file}.tmp`, config.file)
  }
  ctx.effect(() => {
    const timer = setInterval(snapshot, POLL_MS)
    snapshot()
    return () => clearInterval(timer)
  }, 'e2e-config-probe: watch the row')
}
