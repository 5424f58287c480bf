/**
 * A real DeepSeek chat-completions endpoint on 127.0.0.1 (random port), scripted per test, and the one
 * way to point the real `@deepseek-ai/dsh-llm-deepseek@0.1.0-rc.8` adapter at it.
 *
 * Wire facts (read from the adapter's lib, not assumed): the adapter POSTs `${baseURL}/chat/completions`
 * with a JSON body `{model, messages, stream: true, stream_options: {include_usage: true}, thinking?,
 * reasoning_effort?, tools?, max_tokens?}` and `authorization: Bearer <key>`. A 2xx answer is SSE:
 * `data: <json chunk>\n\n` per event, `data: [DONE]\n\n` last (a stream without `[DONE]` is
 * `STREAM_CLOSED`); each chunk is `{choices: [{index, delta: {reasoning_content?, content?, tool_calls?},
 * finish_reason?}], usage?}`; finish and usage are applied at `[DONE]`. A non-2xx answer is read as
 * `{error: {message, type?, code?}}`; `Retry-After` (seconds or HTTP date) becomes
 * `providerRetryAfterMs`; 401/403 → `AUTH`, 413 → `INVALID_REQUEST`, quota wording → `QUOTA`,
 * 429 → `RATE_LIMIT`, 400 + context wording → `CONTEXT_WINDOW_EXCEEDED` else `INVALID_REQUEST`,
 * ≥500 → `SERVER`, anything else `HTTP_<status>`.
 *
 * API
 * - `startDeepSeekServer(handler)` → `{url, requests, errors, close()}`. `url` is the adapter's
 *   `baseURL`. The handler gets `{request, req, res}` for every request and answers with a helper.
 * - `request` (also pushed to `server.requests`): `{index, method, path, headers, body (parsed JSON),
 *   receivedAt, closedAt?, closedByClient?}`. Times are `performance.now()` of this process;
 *   `closedAt` is when the response closed, `closedByClient` is true when it closed before the server
 *   finished writing (the client returned/aborted the stream).
 * - `sse(res, events, {delayMs?})`: 200 + one SSE event per item (`'[DONE]'` or a chunk object),
 *   `delayMs` between events; stops early if the client goes away.
 * - `sseForever(res, events, {delayMs?})`: the same for an endless (async) iterable; resolves with the
 *   number of events written once the client closes the connection.
 * - `json(res, status, body, headers?)`: e.g. `json(res, 429, errorBody('Rate limit'), {'retry-after': '2'})`.
 * - `reset(res)`: TCP reset of the connection (mid-stream after some `writeEvent`s, or before any byte).
 * - Chunk builders: `reasoningChunk`, `contentChunk`, `toolCallChunk`, `finishChunk`, `usageChunk`,
 *   `answerEvents(text, {reasoning?})` (a complete legal answer ending in `[DONE]`), `errorBody`.
 * - `deepSeekAdapter(server, config?)` → `[plugin, config]` for `createHost`'s `before`/`after`;
 *   `createDeepSeekHost(server, hostOptions?)` → `createHost(...)` with the adapter mounted first in
 *   `after`, and `createAgent(id?)` bound to provider `deepseek-official`, model `DEEPSEEK_TEST_MODEL`.
 */
import { createServer } from 'node:http'
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { performance } from 'node:perf_hooks'
import * as deepSeekPlugin from '@deepseek-ai/dsh-llm-deepseek'
import type { Config as DeepSeekConfig } from '@deepseek-ai/dsh-llm-deepseek'
import { createHost } from './host.ts'
import type { HostOptions } from './host.ts'

export interface RecordedRequest {
  index: number
  method: string
  path: string
  headers: IncomingHttpHeaders
  /** The parsed JSON body (the adapter always sends JSON); `undefined` for an empty body. */
  body: any
  /** `performance.now()` when the body was fully received. */
  receivedAt: number
  /** `performance.now()` when the response closed (finished, reset, or abandoned by the client). */
  closedAt?: number
  /** True when the response closed before the server finished it: the client stopped reading. */
  closedByClient?: boolean
}

export interface Exchange {
  request: RecordedRequest
  req: IncomingMessage
  res: ServerResponse
}

export type Handler = (exchange: Exchange) => unknown

export interface DeepSeekServer {
  /** Base URL for the adapter (`/chat/completions` is appended by it). */
  url: string
  requests: RecordedRequest[]
  /** Errors thrown by the handler (answered with 500 so the test sees them rather than a hang). */
  errors: unknown[]
  close(): Promise<void>
}

export type SseEvent = '[DONE]' | Record<string, unknown>

export interface StreamOptions {
  /** Pause before each event after the first (default 0). */
  delayMs?: number
}

export async function startDeepSeekServer(handler: Handler): Promise<DeepSeekServer> {
  const requests: RecordedRequest[] = []
  const errors: unknown[] = []
  const server = createServer(async (req, res) => {
    const raw: Buffer[] = []
    for await (const part of req) raw.push(part as Buffer)
    const text = Buffer.concat(raw).toString('utf8')
    const request: RecordedRequest = {
      index: requests.length,
      method: req.method ?? '',
      path: req.url ?? '',
      headers: req.headers,
      body: text.length > 0 ? JSON.parse(text) : undefined,
      receivedAt: performance.now(),
    }
    requests.push(request)
    res.on('close', () => {
      request.closedAt = performance.now()
      request.closedByClient = !res.writableFinished
    })
    try {
      await handler({ request, req, res })
    } catch (error) {
      errors.push(error)
      if (!res.headersSent) json(res, 500, errorBody(`test handler failed: ${String(error)}`))
      else res.destroy()
    }
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    errors,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections()
      server.close(() => resolve())
    }),
  }
}

function clientGone(res: ServerResponse): boolean {
  return res.destroyed || res.writableEnded
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}

function openSse(res: ServerResponse): void {
  if (res.headersSent) return
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' })
  res.flushHeaders()
}

/** Write one SSE event; returns false when the client is gone. */
export function writeEvent(res: ServerResponse, event: SseEvent): boolean {
  openSse(res)
  if (clientGone(res)) return false
  res.write(`data: ${event === '[DONE]' ? event : JSON.stringify(event)}\n\n`)
  return true
}

export async function sse(res: ServerResponse, events: Iterable<SseEvent>, options: StreamOptions = {}): Promise<void> {
  await sseForever(res, events, options)
  if (!clientGone(res)) res.end()
}

/** Stream until the iterable ends or the client closes; resolves with the number of events written. */
export async function sseForever(
  res: ServerResponse,
  events: Iterable<SseEvent> | AsyncIterable<SseEvent>,
  options: StreamOptions = {},
): Promise<number> {
  openSse(res)
  let written = 0
  for await (const event of events) {
    if (written > 0 && options.delayMs) await sleep(options.delayMs)
    if (!writeEvent(res, event)) break
    written++
  }
  return written
}

export function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers })
  res.end(JSON.stringify(body))
}

/** Reset the TCP connection (RST), so the client sees ECONNRESET / a terminated body. */
export function reset(res: ServerResponse): void {
  res.socket?.resetAndDestroy()
}

/** DeepSeek's (OpenAI-style) error body. */
export function errorBody(message: string, extra: { type?: string; code?: string | null } = {}) {
  return { error: { message, type: extra.type ?? 'invalid_request_error', param: null, code: extra.code ?? null } }
}

const choice = (delta: Record<string, unknown>, finishReason: string | null = null) => ({
  id: 'chatcmpl-test',
  object: 'chat.completion.chunk',
  created: 0,
  model: DEEPSEEK_TEST_MODEL,
  choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
})

export const reasoningChunk = (text: string) => choice({ reasoning_content: text })
export const contentChunk = (text: string) => choice({ content: text })
/** One tool-call delta; send `id`/`name` on the first fragment of a call, only `arguments` after. */
export const toolCallChunk = (call: { index: number; id?: string; name?: string; arguments: string }) =>
  choice({
    tool_calls: [{
      index: call.index,
      ...(call.id === undefined ? {} : { id: call.id, type: 'function' }),
      function: { ...(call.name === undefined ? {} : { name: call.name }), arguments: call.arguments },
    }],
  })
/** `finish_reason`: 'stop' | 'tool_calls' | 'length' | anything else (→ error finish). */
export const finishChunk = (finishReason: string) => choice({}, finishReason)
/** The trailing usage-only chunk `stream_options.include_usage` asks for. */
export const usageChunk = (promptTokens: number, completionTokens: number) => ({
  ...choice({}),
  choices: [],
  usage: { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens },
})

/** A complete answer: optional reasoning, the text, `stop`, usage, `[DONE]`. */
export function answerEvents(text: string, options: { reasoning?: string } = {}): SseEvent[] {
  return [
    ...(options.reasoning === undefined ? [] : [reasoningChunk(options.reasoning)]),
    contentChunk(text),
    finishChunk('stop'),
    usageChunk(10, 5),
    '[DONE]',
  ]
}

export const DEEPSEEK_PROVIDER = 'deepseek-official'
export const DEEPSEEK_TEST_MODEL = 'deepseek-test'
/** The adapter resolves its key from this variable per request; the value is a dummy. */
const API_KEY_ENV = 'DSH_LOOP_BREAKER_TEST_DEEPSEEK_KEY'

/** `[plugin, config]` mounting the real DeepSeek adapter against `server`. */
export function deepSeekAdapter(server: DeepSeekServer, config: DeepSeekConfig = {}): [plugin: any, config: DeepSeekConfig] {
  process.env[API_KEY_ENV] = 'sk-test-dummy'
  // The adapter persists an anonymous user id under DSH_HOME: the test run's own (test/support/dsh-home.ts).
  return [deepSeekPlugin, {
    baseURL: server.url,
    apiKeyEnv: API_KEY_ENV,
    models: [{ id: DEEPSEEK_TEST_MODEL, contextWindow: 128_000 }],
    ...config,
  }]
}

/** `createHost` with the DeepSeek adapter mounted and agents bound to it. */
export async function createDeepSeekHost(server: DeepSeekServer, options: HostOptions & { adapter?: DeepSeekConfig } = {}) {
  const host = await createHost(() => {
    throw new Error('the scripted adapter is unused in a DeepSeek host')
  }, { before: options.before, after: [deepSeekAdapter(server, options.adapter), ...(options.after ?? [])] })
  let sessions = 0
  const createAgent = (id = `deepseek-session-${++sessions}`) =>
    (host.ctx as any).agentLoop.create(id, { provider: DEEPSEEK_PROVIDER, model: DEEPSEEK_TEST_MODEL }, { cwd: process.cwd() })
  return { ...host, createAgent }
}
