import { afterEach, describe, expect, it } from 'vitest'
import { performance } from 'node:perf_hooks'
import {
  answerEvents, createDeepSeekHost, reasoningChunk, sse, sseForever, startDeepSeekServer,
} from '../support/deepseek-server.ts'
import type { DeepSeekServer } from '../support/deepseek-server.ts'
import { STREAM_GRAMMAR, eventsOf, loopBreakerPlugin } from '../support/loop-breaker.ts'
import { readJournalRecord } from '../../src/journal.ts'

const cleanups: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

/** An endless reasoning loop: the seed's phrase pool, one short phrase per SSE event. */
async function* endlessPool() {
  const pool = ['OK. ', 'Writing. ', 'Let me write. ', 'Go. ', 'Executing. ', 'Now. ']
  yield reasoningChunk('Plan: open parser.ts and fix the bracket counter.\n')
  for (let state = 7; ;) {
    state = (state * 1103515245 + 12345) % 2147483648
    yield reasoningChunk(pool[state % pool.length]!)
  }
}

describe('the real DeepSeek adapter against a local SSE server', () => {
  it('cuts an endless loop and the server sees its connection closed within 1 s of the cut', async () => {
    let written = 0
    const server: DeepSeekServer = await startDeepSeekServer(async ({ request, res }) => {
      if (request.index === 0) written = await sseForever(res, endlessPool(), { delayMs: 1 })
      else await sse(res, answerEvents('Patched the bracket counter.'))
    })
    cleanups.push(() => server.close())
    const host = await createDeepSeekHost(server, { before: STREAM_GRAMMAR, after: [[loopBreakerPlugin(), {}]] })
    cleanups.push(() => host.dispose())
    let cutAt = 0
    ;(host.ctx as any).on('session/event', (_session: unknown, event: any) => {
      if (readJournalRecord(event.type, event.data)?.name === 'loop-breaker/break') cutAt = performance.now()
    })
    const agent = host.createAgent()
    await host.ask(agent, 'fix the parser')

    const [cut] = eventsOf(agent, 'loop-breaker/break')
    expect(cut).toMatchObject({ rule: 'phrase-pool', side: 'reasoning', action: 'remind' })
    const looping = server.requests[0]!
    expect(looping.closedByClient).toBe(true)
    expect(looping.closedAt! - cutAt).toBeLessThan(1000)
    expect(written).toBeGreaterThan(10)
    expect(server.requests).toHaveLength(2)
    // The second request carries the trimmed reasoning and ends with the notice.
    const messages = server.requests[1]!.body.messages
    expect(messages.at(-1).content).toContain('its reasoning fell into a repetition loop')
    expect(eventsOf(agent, 'assistant/message').at(-1).message.content.at(-1).text).toBe('Patched the bracket counter.')
    expect(server.errors).toEqual([])
  })
})
