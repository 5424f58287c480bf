// Runs every bench/*.bench.mjs in its own Node process (so heap and RSS figures are not polluted by
// another benchmark), in name order, and ends with one summary line per bench.
// Benches are reports, not gates: on a shared, noisy machine a timing target can be missed by noise.
// Convention for a bench's exit status: 0 = every target met; 3 = a target missed, figures printed
// ("MISSED"); anything else (another code, a signal) = the bench crashed or its measurement is invalid
// ("crashed"). This runner exits 0 unless a bench crashed.
import { readdirSync } from 'node:fs'
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { dirname, join } from 'node:path'

const TARGET_MISSED = 3

const here = dirname(fileURLToPath(import.meta.url))
const only = process.argv.slice(2)
const benches = readdirSync(here)
  .filter((file) => file.endsWith('.bench.mjs'))
  .filter((file) => only.length === 0 || only.some((name) => file.startsWith(name)))
  .sort()
const outcomes = []
for (const file of benches) {
  console.log(`\n## ${file}`)
  const run = spawnSync(process.execPath, ['--expose-gc', join(here, file)], { stdio: 'inherit' })
  const outcome = run.status === 0 ? 'met' : run.status === TARGET_MISSED ? 'MISSED' : `crashed (exit ${run.status ?? run.signal})`
  outcomes.push({ file, outcome })
}
console.log('\n## summary')
for (const { file, outcome } of outcomes) console.log(`${file}: ${outcome}`)
process.exit(outcomes.some(({ outcome }) => outcome.startsWith('crashed')) ? 1 : 0)
