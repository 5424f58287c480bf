// Runs every bench/*.bench.mjs in its own Node process (so heap and RSS figures are
// not polluted by another benchmark), in name order, and fails if any of them fails.
import { readdirSync } from 'node:fs'
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { dirname, join } from 'node:path'

const here = dirname(fileURLToPath(import.meta.url))
const only = process.argv.slice(2)
const benches = readdirSync(here)
  .filter((file) => file.endsWith('.bench.mjs'))
  .filter((file) => only.length === 0 || only.some((name) => file.startsWith(name)))
  .sort()
let failed = 0
for (const file of benches) {
  console.log(`\n## ${file}`)
  const run = spawnSync(process.execPath, ['--expose-gc', join(here, file)], { stdio: 'inherit' })
  if (run.status !== 0) {
    failed++
    console.log(`${file} failed (exit ${run.status ?? run.signal})`)
  }
}
process.exit(failed ? 1 : 0)
