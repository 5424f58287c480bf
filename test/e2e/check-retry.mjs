/**
 * Checks the retry flow from both ends: what the 127.0.0.1 DeepSeek endpoint saw (its request log,
 * written by deepseek-endpoint.mjs) and what the session recorded (the run's session log, decompressed by
 * tools/decompress-session.mjs).
 * - Wire: the conversation requests were answered 429, loop, normal, in that order; the retry came no
 *   sooner than the server's Retry-After; the loop stream was closed by the client (the live cut closes
 *   the provider request).
 * - Session: exactly one `llm/retry` for it, written by the retry coordinator (policyKey
 *   `retry-coordinator/rate-limit`, delay at least the server's), then its `llm/retry-started`; no retry
 *   by DSH's own `llm-retry` (the package's retry.patch.yml disables that row).
 * Usage: `node test/e2e/check-retry.mjs <request-log.jsonl> <session.jsonl>`; exits 1 with the reasons.
 */
import { readFileSync } from 'node:fs'

const RETRY_AFTER_MS = 1000
const [requestLog, sessionLog] = process.argv.slice(2)
if (requestLog === undefined || sessionLog === undefined) {
  process.stderr.write('usage: check-retry.mjs <request-log.jsonl> <session.jsonl>\n')
  process.exit(2)
}
const lines = (file) => readFileSync(file, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line))
const problems = []

const conversation = lines(requestLog).sort((a, b) => a.index - b.index).filter((request) => request.answer !== 'title')
const answers = conversation.map((request) => request.answer).join(', ')
console.log(`endpoint answered the conversation requests: ${answers}`)
if (answers !== '429, loop, normal') problems.push(`expected 429, loop, normal; got ${answers}`)
const [rateLimited, retried] = conversation
if (rateLimited && retried) {
  const waitedMs = Math.round(retried.receivedAt - rateLimited.closedAt)
  console.log(`retry sent ${waitedMs} ms after the 429 (Retry-After: ${RETRY_AFTER_MS / 1000} s); ` +
    `loop stream closed by the client: ${retried.closedByClient}`)
  if (waitedMs < RETRY_AFTER_MS) problems.push(`the retry came ${waitedMs} ms after the 429, before the server's Retry-After`)
  if (!retried.closedByClient) problems.push('the loop stream was not closed by the client: the cut did not close the provider request')
}

const events = lines(sessionLog).filter((record) => record.type === 'llm/retry' || record.type === 'llm/retry-started')
for (const event of events) console.log(`session: ${event.type} ${JSON.stringify(event.data)}`)
const retries = events.filter((event) => event.type === 'llm/retry')
const ours = retries.filter((event) => event.data.policyKey === 'retry-coordinator/rate-limit')
if (retries.length !== 1 || ours.length !== 1) {
  problems.push(`expected one llm/retry by the retry coordinator (policyKey retry-coordinator/rate-limit), found ${retries.length} llm/retry event(s), ${ours.length} of them the coordinator's`)
} else {
  const [retry] = ours
  if (retry.data.delayMs < RETRY_AFTER_MS) problems.push(`the recorded delay ${retry.data.delayMs} ms is shorter than the server's Retry-After`)
  if (!events.some((event) => event.type === 'llm/retry-started' && event.data.retryId === retry.data.retryId)) {
    problems.push(`no llm/retry-started for retry ${retry.data.retryId}`)
  }
}

if (problems.length > 0) {
  for (const problem of problems) console.error(`check-retry: ${problem}`)
  process.exit(1)
}
console.log('retry coordinator: one rate-limit retry after the server\'s delay, recorded in the session')
