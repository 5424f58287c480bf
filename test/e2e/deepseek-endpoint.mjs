/**
 * The 127.0.0.1 DeepSeek endpoint of the e2e's retry flow: the real `dsh-llm-deepseek` adapter in the
 * real `dsh` CLI is pointed at it (`llm-deepseek.baseURL`), so the 429 and the loop travel the real wire.
 * Built on the shared test server (`test/support/deepseek-server.ts`, run with Node's
 * `--experimental-transform-types`); this file only holds the e2e's script.
 *
 * Usage: `node --experimental-transform-types test/e2e/deepseek-endpoint.mjs <request-log.jsonl>`.
 * Prints its base URL on the first stdout line, serves until SIGTERM, and appends one JSON line per
 * finished request: `{index, answer, receivedAt, closedAt, closedByClient}` (times in ms, this process's
 * clock), `answer` one of `429`, `loop`, `normal`, `title`.
 *
 * The script, keyed on the request rather than on a counter:
 * - an auxiliary call (the adapter sends session-title calls with thinking disabled): a short title;
 * - the first conversation request: 429 `Rate limit reached` with `Retry-After: 1`;
 * - a conversation request with no assistant message yet (the first one's retry): the endless
 *   rounds loop (the same twelve numbered steps round after round), streamed until the client closes
 *   the connection;
 * - a conversation request with a user message after an assistant message: headless sends the task
 *   once, so that message is the plugin's notice after the cut loop (the wire carries no message
 *   source): the normal answer.
 */
import { appendFileSync } from 'node:fs'
import {
  answerEvents, contentChunk, errorBody, json, sse, sseForever, startDeepSeekServer,
} from '../support/deepseek-server.ts'
import { NORMAL_ANSWER, TITLE, roundsLoop } from './script.mjs'

const logFile = process.argv[2]
if (logFile === undefined) {
  process.stderr.write('usage: deepseek-endpoint.mjs <request-log.jsonl>\n')
  process.exit(2)
}

const RETRY_AFTER_SECONDS = 1
let conversationRequests = 0

function* loopEvents() {
  for (const sentence of roundsLoop()) yield contentChunk(sentence)
}

const server = await startDeepSeekServer(async ({ request, res }) => {
  const record = (answer) => res.on('close', () => {
    const { index, receivedAt, closedAt, closedByClient } = request
    appendFileSync(logFile, JSON.stringify({ index, answer, receivedAt, closedAt, closedByClient }) + '\n')
  })
  const body = request.body
  if (body?.thinking?.type === 'disabled') {
    record('title')
    return sse(res, answerEvents(TITLE))
  }
  const lastAssistant = body.messages.findLastIndex((message) => message.role === 'assistant')
  const toldAfterAnswer = lastAssistant >= 0 && body.messages.slice(lastAssistant + 1).some((message) => message.role === 'user')
  if (++conversationRequests === 1) {
    record('429')
    return json(res, 429, errorBody('Rate limit reached for requests', { type: 'rate_limit_error' }), {
      'retry-after': String(RETRY_AFTER_SECONDS),
    })
  }
  if (toldAfterAnswer) {
    record('normal')
    return sse(res, answerEvents(NORMAL_ANSWER))
  }
  record('loop')
  await sseForever(res, loopEvents(), { delayMs: 1 })
})

process.stdout.write(server.url + '\n')
process.on('SIGTERM', () => void server.close().then(() => process.exit(0)))
