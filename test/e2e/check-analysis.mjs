/**
 * Checks `tools/analyze-session.mjs --json` on the session a headless run wrote:
 * - the file was read without errors;
 * - the live plugin recorded at least one `loop-breaker/break`, and for every recorded break the replay
 *   with the profile's layers (bundle patch, then the user's cordis.patch.yml) gives the same rule, side
 *   and `at`;
 * - given the replay with the detector's defaults too (a tuned profile, tuned for more patience): it
 *   cuts earlier, so the agreement above depends on the user's tuned values: they reached the running
 *   plugin, not only the config dump;
 * - the last call (the answer after the notice) is not a loop.
 * Usage: `node test/e2e/check-analysis.mjs <analysis-with-profile.json> [<analysis-with-defaults.json>]`;
 * prints what it compared, exits 1 with the reasons when anything disagrees.
 */
import { readFileSync } from 'node:fs'

const [tunedFile, defaultsFile] = process.argv.slice(2)
if (tunedFile === undefined) {
  process.stderr.write('usage: check-analysis.mjs <analysis-with-profile.json> [<analysis-with-defaults.json>]\n')
  process.exit(2)
}
const read = (file) => JSON.parse(readFileSync(file, 'utf8'))
const tuned = read(tunedFile)
const defaults = defaultsFile === undefined ? undefined : read(defaultsFile)
const problems = []
const verdict = (cut) => (cut ? `${cut.rule} ${cut.side}@${cut.at}` : 'no break')

for (const analysis of defaults === undefined ? [tuned] : [tuned, defaults]) {
  if (analysis.files.length !== 1) problems.push(`expected one session file, the analyzer read ${analysis.files.length}`)
  for (const error of analysis.summary.errors) problems.push(`analyzer error: ${JSON.stringify(error)}`)
}
const calls = tuned.files[0]?.calls ?? []
const defaultCalls = defaults?.files[0]?.calls
const recordedBreaks = calls.filter((call) => call.recorded?.type === 'loop-breaker/break')
if (recordedBreaks.length === 0) problems.push('the session holds no recorded loop-breaker/break')

for (const call of recordedBreaks) {
  const { recorded } = call
  const where = `call turn ${call.turn} step ${call.step} attempt ${call.attempt}`
  const asDefault = defaultCalls?.find((other) =>
    other.turn === call.turn && other.step === call.step && other.attempt === call.attempt)?.break
  console.log(`${where}: recorded ${verdict(recorded)} (${recorded.action}, level ${recorded.level}); ` +
    `replay with the profile's layers ${verdict(call.break)}` + (defaultCalls ? `; replay with defaults ${verdict(asDefault)}` : ''))
  if (call.break === null) {
    problems.push(`${where}: the live plugin cut (${verdict(recorded)}) but the replay finds no loop`)
  } else if (call.break.rule !== recorded.rule || call.break.side !== recorded.side || call.break.at !== recorded.at) {
    problems.push(`${where}: recorded ${verdict(recorded)}, replayed ${verdict(call.break)}`)
  }
  if (defaultCalls && (!asDefault || asDefault.at >= recorded.at)) {
    problems.push(`${where}: the defaults ${asDefault ? `cut at ${asDefault.at}, not before the live run's ${recorded.at}` : 'do not cut'}, ` +
      'so this run cannot show that the tuned values (more patience) reached the plugin; pick tuned values that move the cut later')
  }
}
const last = calls.at(-1)
if (last && last.break !== null) problems.push(`the last call (the answer after the notice) replays as a loop: ${verdict(last.break)}`)

if (problems.length > 0) {
  for (const problem of problems) console.error(`check-analysis: ${problem}`)
  process.exit(1)
}
console.log(`analyzer and live plugin agree on ${recordedBreaks.length} recorded break(s) over ${calls.length} call(s)`)
