import { userText } from '../support/host.ts'
import { afterEach, describe, expect, it } from 'vitest'
import {
  answerEvents, contentChunk, createDeepSeekHost, errorBody, json, reasoningChunk, reset, sse, sseForever,
  startDeepSeekServer, writeEvent,
} from '../support/deepseek-server.ts'
import type { DeepSeekServer, Handler } from '../support/deepseek-server.ts'

let server: DeepSeekServer | undefined
let dispose: (() => Promise<void>) | undefined
afterEach(async () => {
  await dispose?.()
  await server?.close()
  dispose = server = undefined
})

/** The failures the retry chain is handed for one turn against `handler`. */
async function failuresSeen(handler: Handler) {
  server = await startDeepSeekServer(handler)
  const failures: any[] = []
  const host = await createDeepSeekHost(server)
  dispose = host.dispose
  host.ctx.on('agent/request-error', (payload, next) => { failures.push(payload.failure); return next() })
  await host.ask(host.createAgent(), 'hello')
  return failures
}

const lastAssistant = (agent: any) =>
  agent.session.events.filter((event: any) => event.type === 'assistant/message').at(-1)?.data.message

describe('the local DeepSeek endpoint speaks what the real rc.8 adapter expects', () => {
  it('answers a turn with reasoning and text through the real adapter', async () => {
    server = await startDeepSeekServer(({ res }) => sse(res, answerEvents('hello back', { reasoning: 'think' })))
    const host = await createDeepSeekHost(server)
    dispose = host.dispose
    const agent = host.createAgent()
    await host.ask(agent, 'hello')
    const message = lastAssistant(agent)
    expect(message.content.map((block: any) => [block.type, block.text])).toEqual([['reasoning', 'think'], ['text', 'hello back']])
    const [request] = server.requests
    expect(request.method).toBe('POST')
    expect(request.path).toBe('/chat/completions')
    expect(request.headers.authorization).toBe('Bearer sk-test-dummy')
    expect(request.body.stream).toBe(true)
    expect(request.body.messages.at(-1)).toEqual({ role: 'user', content: 'hello' })
  })

  it('maps a JSON error with Retry-After to the failure the retry chain sees', async () => {
    const failures = await failuresSeen(({ res }) => json(res, 429, errorBody('Rate limit reached'), { 'retry-after': '7' }))
    expect(failures[0]).toMatchObject({ code: 'RATE_LIMIT', status: 429, message: 'Rate limit reached', providerRetryAfterMs: 7000 })
  })

  it('records when the client abandons an endless stream', async () => {
    let written: Promise<number> | undefined
    let yielded = 0
    server = await startDeepSeekServer(({ res }) => {
      written = sseForever(res, (function* () { while (true) { yielded++; yield reasoningChunk('again ') } })(), { delayMs: 5 })
      return written
    })
    const host = await createDeepSeekHost(server)
    dispose = host.dispose
    const agent = host.createAgent()
    agent.followup(userText('loop'))
    while (yielded < 5) await new Promise((resolve) => setTimeout(resolve, 10))
    const cancelledAt = performance.now()
    agent.cancel({ kind: 'hook', reason: 'test' })
    await agent.whenIdle()
    expect(await written).toBeGreaterThan(3)
    await new Promise((resolve) => setTimeout(resolve, 20))
    expect(server.requests[0].closedByClient).toBe(true)
    expect(server.requests[0].closedAt! - cancelledAt).toBeLessThan(100)
  })

  it('a reset mid-stream reaches the agent as a transport failure', async () => {
    const failures = await failuresSeen(({ res }) => {
      writeEvent(res, contentChunk('partial'))
      setTimeout(() => reset(res), 20)
    })
    expect(failures[0].code).toBe('TRANSPORT')
  })
})
