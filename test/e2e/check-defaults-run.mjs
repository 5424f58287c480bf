/**
 * Checks the headless run of the defaults flow (every setting at its default, an English task) from three
 * ends: what the scripted model received (its request log, `E2E_MODEL_REQUEST_LOG`), what the session
 * recorded (decompressed log) and what the user saw on stderr.
 * - Model: the conversation requests were answered loop, then normal; the normal one carried exactly one
 *   loop-breaker notice, in English (no CJK character), naming the cut.
 * - Session: every reaction is a `hook/result` record of handler `loop-breaker` (a type rc.8 loads), no
 *   `loop-breaker/*` event type; every recorded `loop-breaker/break` was made by the expected rule (the
 *   one rule that can cut the flow's loop); the trimmed block ends with the English trim marker.
 * - stderr: exactly one `[loop-breaker] ...` line per recorded reaction, each break's line saying
 *   `cut a repetition loop` and naming the expected rule, in English.
 * Usage: `node test/e2e/check-defaults-run.mjs <model-requests.jsonl> <session.jsonl> <stderr file> <rule>`;
 * prints what it compared, exits 1 with the reasons when anything disagrees.
 */
import { readFileSync } from 'node:fs'

const [requestLog, sessionLog, stderrFile, rule] = process.argv.slice(2)
if (requestLog === undefined || sessionLog === undefined || stderrFile === undefined || rule === undefined) {
  process.stderr.write('usage: check-defaults-run.mjs <model-requests.jsonl> <session.jsonl> <stderr file> <rule>\n')
  process.exit(2)
}
const lines = (file) => readFileSync(file, 'utf8').split('\n').filter(Boolean)
const CJK = /[\u3000-\u9fff\uac00-\ud7af\uff00-\uffef]/u
const problems = []

const requests = lines(requestLog).map((line) => JSON.parse(line)).filter((request) => request.answer !== 'title')
const answers = requests.map((request) => request.answer).join(', ')
console.log(`model: the conversation requests were answered ${answers}`)
if (answers !== 'loop, normal') problems.push(`expected loop, normal; got ${answers}`)
const notices = requests.find((request) => request.answer === 'normal')?.notices ?? []
for (const notice of notices) console.log(`model received the notice: ${notice}`)
if (notices.length !== 1) problems.push(`the request after the cut carried ${notices.length} loop-breaker notices, expected 1`)
for (const notice of notices) {
  if (CJK.test(notice) || !notice.startsWith('[loop-breaker] Your last output was cut')) problems.push(`the notice is not the English cut notice: ${notice}`)
}

const events = lines(sessionLog).map((line) => JSON.parse(line))
const reactions = events.filter((event) => event.type === 'hook/result' && event.data?.handlerId === 'loop-breaker')
const legacy = events.filter((event) => typeof event.type === 'string' && event.type.startsWith('loop-breaker/'))
console.log(`session: ${reactions.length} reaction(s) recorded as hook/result: ` +
  reactions.map((event) => `${event.data.point} ${event.data.decision} (turn ${event.data.turn})`).join(', '))
if (reactions.length === 0) problems.push('the session holds no loop-breaker hook/result record')
if (legacy.length > 0) problems.push(`the session holds ${legacy.length} loop-breaker/* event(s), which rc.8 refuses to load`)
const recordedBreaks = reactions.filter((event) => event.data.point === 'loop-breaker/break').map((event) => event.data.record)
for (const cut of recordedBreaks) {
  console.log(`session: loop-breaker/break at turn ${cut.turn} step ${cut.step}: ${cut.rule} ${cut.side}@${cut.at}`)
  if (cut.rule !== rule) problems.push(`the session records a ${cut.rule} break, expected the ${rule} rule to cut this loop`)
}
if (recordedBreaks.length === 0) problems.push('the session records no loop-breaker/break')
const trimmed = events.filter((event) => event.type === 'assistant/chunk' && event.data.chunk.type === 'block-end' &&
  event.data.chunk.block.text?.includes('[loop-breaker'))
for (const event of trimmed) {
  const marker = event.data.chunk.block.text.slice(event.data.chunk.block.text.lastIndexOf('…'))
  console.log(`session: the trimmed block ends with "${marker}"`)
  if (CJK.test(marker) || !marker.startsWith('…[loop-breaker: ')) problems.push(`the trim marker is not English: ${marker}`)
}
if (trimmed.length === 0) problems.push('no trimmed block carries the loop-breaker trim marker')

const stderr = lines(stderrFile)
const visible = stderr.filter((line) => line.startsWith('[loop-breaker] '))
for (const line of visible) console.log(`stderr: ${line}`)
if (visible.length !== reactions.length) {
  problems.push(`stderr holds ${visible.length} [loop-breaker] line(s) for ${reactions.length} recorded reaction(s) (stderr had ${stderr.length} line(s) in all)`)
}
const cutLines = visible.filter((line) => line.startsWith('[loop-breaker] cut a repetition loop'))
if (cutLines.length !== recordedBreaks.length) {
  problems.push(`stderr holds ${cutLines.length} "cut a repetition loop" line(s) for ${recordedBreaks.length} recorded break(s)`)
}
for (const line of cutLines) if (!line.includes(`(${rule}, `)) problems.push(`the visible line does not name the ${rule} rule: ${line}`)
for (const line of visible) if (CJK.test(line)) problems.push(`the visible line is not English: ${line}`)

if (problems.length > 0) {
  for (const problem of problems) console.error(`check-defaults-run: ${problem}`)
  process.exit(1)
}
console.log(`defaults run: ${rule} cut, English notice and trim marker, ${reactions.length} reaction(s) recorded in a form rc.8 loads, one visible line each`)
