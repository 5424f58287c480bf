/**
 * Reads, continues and forks a session through the running `dsh --profile web` server, with the same
 * HTTP calls the browser UI makes (POST `/api/<method>` with a `client-request` envelope, the
 * `dsh-host-apiproxy` wire contract; the server answers every business result with 200 and
 * `{type: 'server-response', result: {ok, value | error}}`).
 *
 * `--expect usable` (a session DSH loads):
 * - `session.list` lists the session and `session.history` reads it;
 * - `session.prompt` queues the follow-up prompt (`FOLLOW_UP_TASK`) and the turn it opens completes with
 *   the model's answer to it (`FOLLOW_UP_ANSWER`), polled through `session.history`;
 * - `session.fork` returns a child session whose history holds that answer.
 * `--expect refused` (a log rc.8 refuses, the bug this e2e guards against): `session.history`,
 * `session.prompt` and `session.fork` each answer an error naming `SessionFormatUnsupportedError`.
 * Usage: `node test/e2e/web-session.mjs <base url> <session id> --expect usable|refused`; prints every
 * call and its outcome, exits 1 with the reasons when the expectation fails. Every call and the wait for
 * the turn are bounded.
 */
import { randomUUID } from 'node:crypto'
import { FOLLOW_UP_ANSWER, FOLLOW_UP_TASK } from './script.mjs'

const CALL_TIMEOUT_MS = 30_000
// The scripted model answers at once; the bound only stops a turn that never ends.
const TURN_TIMEOUT_MS = 60_000
const POLL_INTERVAL_MS = 250
const REFUSAL = /SessionFormatUnsupportedError|unknown to this harness/

const [baseUrl, sessionId, flag, expectation] = process.argv.slice(2)
if (baseUrl === undefined || sessionId === undefined || flag !== '--expect' || !['usable', 'refused'].includes(expectation)) {
  process.stderr.write('usage: web-session.mjs <base url> <session id> --expect usable|refused\n')
  process.exit(2)
}

/** One API call as the browser client makes it; resolves to the envelope's `result` ({ok, value | error}). */
async function call(method, payload) {
  const response = await fetch(new URL(`/api/${method}`, baseUrl), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ type: 'client-request', rpcId: randomUUID(), method, payload }),
    signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
  })
  if (!response.ok) throw new Error(`${method}: HTTP ${response.status} ${await response.text()}`)
  const body = await response.json()
  if (body.type !== 'server-response' || typeof body.result?.ok !== 'boolean') throw new Error(`${method}: not a server-response: ${JSON.stringify(body)}`)
  return body.result
}

const describeError = (error) => `${error.code}: ${error.message}`

/** The session's tail page of events (`{type, seq, data}`), or throws with DSH's error. */
async function history(id) {
  const result = await call('session.history', { sessionId: id })
  if (!result.ok) throw new Error(`session.history ${id}: ${describeError(result.error)}`)
  return result.value.events.map((entry) => entry.event)
}

const assistantTexts = (events) => events.filter((event) => event.type === 'assistant/message')
  .map((event) => event.data.message.content.filter((part) => part.type === 'text').map((part) => part.text).join(''))
const lastTurnEnded = (events) => Math.max(0, ...events.filter((event) => event.type === 'turn/end').map((event) => event.data.turn))
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

async function usable() {
  const listed = await call('session.list', {})
  if (!listed.ok) throw new Error(`session.list: ${describeError(listed.error)}`)
  if (!listed.value.items.some((item) => item.sessionId === sessionId)) throw new Error(`session.list does not list ${sessionId}`)
  console.log(`session.list: lists ${sessionId} among ${listed.value.items.length} session(s)`)

  const before = await history(sessionId)
  const records = before.filter((event) => event.type === 'hook/result' && event.data.handlerId === 'loop-breaker')
  const turnsBefore = lastTurnEnded(before)
  console.log(`session.history: ${before.length} events, ${turnsBefore} completed turn(s), ` +
    `${records.length} loop-breaker record(s): ${records.map((event) => `${event.data.point} (${event.data.decision})`).join(', ') || 'none'}`)

  const prompted = await call('session.prompt', { sessionId, mode: 'queue', content: [{ type: 'text', text: FOLLOW_UP_TASK }] })
  if (!prompted.ok) throw new Error(`session.prompt: ${describeError(prompted.error)}`)
  console.log(`session.prompt: accepted "${FOLLOW_UP_TASK}"`)
  const deadline = Date.now() + TURN_TIMEOUT_MS
  let after = before
  while (lastTurnEnded(after) <= turnsBefore) {
    if (Date.now() > deadline) throw new Error(`the continued turn did not end within ${TURN_TIMEOUT_MS / 1000}s`)
    await sleep(POLL_INTERVAL_MS)
    after = await history(sessionId)
  }
  const turnEnd = after.findLast((event) => event.type === 'turn/end')
  const answer = assistantTexts(after).at(-1)
  console.log(`continued turn ${turnEnd.data.turn} ended (${turnEnd.data.reason.kind}); the model answered "${answer}"`)
  if (turnEnd.data.reason.kind !== 'completed') throw new Error(`the continued turn ended ${JSON.stringify(turnEnd.data.reason)}`)
  if (answer !== FOLLOW_UP_ANSWER) throw new Error(`the continued turn's answer is not the follow-up answer "${FOLLOW_UP_ANSWER}"`)

  const forked = await call('session.fork', { sessionId })
  if (!forked.ok) throw new Error(`session.fork: ${describeError(forked.error)}`)
  const child = forked.value.sessionId
  const childEvents = await history(child)
  console.log(`session.fork: child ${child}, its history holds ${childEvents.length} events`)
  if (!assistantTexts(childEvents).includes(FOLLOW_UP_ANSWER)) throw new Error(`the fork ${child} does not hold the continued turn's answer`)
}

async function refused() {
  const attempts = {
    'session.history': { sessionId },
    'session.prompt': { sessionId, mode: 'queue', content: [{ type: 'text', text: FOLLOW_UP_TASK }] },
    'session.fork': { sessionId },
  }
  const problems = []
  for (const [method, payload] of Object.entries(attempts)) {
    const result = await call(method, payload)
    const outcome = result.ok ? `ok ${JSON.stringify(result.value).slice(0, 80)}` : describeError(result.error)
    console.log(`${method}: ${outcome}`)
    if (result.ok || !REFUSAL.test(result.error.message)) problems.push(`${method} did not refuse the log with SessionFormatUnsupportedError`)
  }
  if (problems.length > 0) throw new Error(problems.join('; '))
}

try {
  await (expectation === 'usable' ? usable() : refused())
  console.log(expectation === 'usable'
    ? 'web-session: read, continued (turn completed) and forked through the web API'
    : 'web-session: the web API refuses the log with SessionFormatUnsupportedError, as rc.8 does for loop-breaker/* events')
} catch (error) {
  console.error(`web-session: ${error instanceof Error ? error.message : String(error)}`)
  process.exit(1)
}
