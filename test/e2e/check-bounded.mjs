// Checks one headless run of test/e2e/bounded.sh: a model that loops on every call, under one escalate x
// resumeAfterBreak combination, every other setting at its default. The turn ended by itself (the script's
// timeout did not stop it), the model was called as often as the escalation ladder allows and no more
// (at most maxFires + 1 looping calls per user turn), every loop was closed by the plugin's cut, and each
// streamed at most 2,500 characters past its onset, inside the README's bound for the common shapes in
// the reply (README, Config: "The worst case per user turn": 400 to 3,700 characters). The visible lines say what happened: a stop past the cap, a
// resume only where the notice went to the model.
// Usage: check-bounded.mjs <model requests .jsonl> <model streams .jsonl> <stderr> <escalate> <resumeAfterBreak> <exit status>
import { readFileSync } from 'node:fs'

const [requestsFile, streamsFile, stderrFile, escalate, resume, status] = process.argv.slice(2)
const MAX_FIRES = 6
/** The README's bound for the common loop shapes in reasoning and reply, past the loop's onset. */
const REPLY_BOUND = 2_500
// The ladder at the defaults (maxBreaksPerTurn 3, maxFires 6) for a loop on every call with no tool call:
// warn cuts once and the turn completes; steer reminds, re-plans 5 times, then the final stop; cancel
// cancels at the 3rd finding, resumed once (findings 4-6) when resumeAfterBreak is on.
const EXPECTED = {
  'warn false': { calls: 1, status: 0 }, 'warn true': { calls: 1, status: 0 },
  'steer false': { calls: 7, status: 1 }, 'steer true': { calls: 7, status: 1 },
  'cancel false': { calls: 3, status: 1 }, 'cancel true': { calls: 6, status: 1 },
}[`${escalate} ${resume}`]
if (EXPECTED === undefined) throw new Error(`no expectation for escalate ${escalate}, resumeAfterBreak ${resume}`)

const lines = (file) => readFileSync(file, 'utf8').split('\n').filter(Boolean)
const requests = lines(requestsFile).map((line) => JSON.parse(line)).filter((request) => request.answer === 'loop')
const streams = lines(streamsFile).map((line) => JSON.parse(line).chars)
const stderr = readFileSync(stderrFile, 'utf8')
const count = (pattern) => stderr.split('\n').filter((line) => pattern.test(line)).length

const failures = []
const check = (ok, message) => { if (!ok) failures.push(message) }
check(Number(status) === EXPECTED.status, `exit status ${status}, expected ${EXPECTED.status}`)
check(requests.length === EXPECTED.calls, `${requests.length} looping calls, expected ${EXPECTED.calls}`)
check(requests.length <= MAX_FIRES + 1, `${requests.length} looping calls, more than maxFires + 1 = ${MAX_FIRES + 1}`)
check(streams.length === requests.length, `${streams.length} loops closed for ${requests.length} looping calls: a loop was never cut`)
for (const [call, chars] of streams.entries()) check(chars <= REPLY_BOUND, `call ${call + 1} streamed ${chars} chars, past the bound ${REPLY_BOUND}`)
const total = streams.reduce((sum, chars) => sum + chars, 0)
check(total <= (MAX_FIRES + 1) * REPLY_BOUND, `${total} chars in the user turn, past (maxFires + 1) x ${REPLY_BOUND}`)
check(count(/^\[loop-breaker\] cut a repetition loop /) === requests.length, `${count(/^\[loop-breaker\] cut a repetition loop /)} cut lines for ${requests.length} looping calls`)
check(count(/; no reaction left in this user turn \(maxFires\): no notice, the turn was cancelled /) === (escalate === 'steer' ? 1 : 0), 'the stop line is missing or unexpected')
const resumed = count(/^\[loop-breaker\] resumed the task after turn 1 was cancelled: the notice went to the model\.$/)
check(resumed === (escalate === 'cancel' && resume === 'true' ? 1 : 0), `${resumed} resume lines`)

console.log(`escalate ${escalate}, resumeAfterBreak ${resume}: exit ${status}, ${requests.length} looping calls, chars per call ${streams.join(', ')} (total ${total}, bound ${(MAX_FIRES + 1) * REPLY_BOUND}), ${resumed} resume line(s)`)
if (failures.length > 0) {
  console.error(failures.map((failure) => `  - ${failure}`).join('\n'))
  process.exit(1)
}
