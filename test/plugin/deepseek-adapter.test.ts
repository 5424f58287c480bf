import { afterEach, describe, expect, it } from 'vitest'
import { performance } from 'node:perf_hooks'
import {
  answerEvents, contentChunk, createDeepSeekHost, finishChunk, reasoningChunk, sse, sseForever, startDeepSeekServer, toolCallChunk, usageChunk,
} from '../support/deepseek-server.ts'
import type { DeepSeekServer } from '../support/deepseek-server.ts'
import { STREAM_GRAMMAR, eventsOf, loopBreakerPlugin } from '../support/loop-breaker.ts'
import { readJournalRecord } from '../../src/journal.ts'
import { READ_FILE } from '../support/read-steps.ts'

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

  it('continues a call that finish_reason "length" cut inside a tool call: the half call never runs, the model re-issues it', async () => {
    const server: DeepSeekServer = await startDeepSeekServer(async ({ request, res }) => {
      if (request.index === 0) {
        await sse(res, [
          contentChunk('I will read the guide.'),
          toolCallChunk({ index: 0, id: 'call-cut', name: 'read_file', arguments: '{"path":"docs/' }),
          toolCallChunk({ index: 0, arguments: 'migration-gu' }),
          finishChunk('length'),
          usageChunk(10, 4096),
          '[DONE]',
        ])
      } else if (request.index === 1) {
        await sse(res, [toolCallChunk({ index: 0, id: 'call-whole', name: 'read_file', arguments: '{"path":"docs/migration-guide.md"}' }), finishChunk('tool_calls'), usageChunk(10, 9), '[DONE]'])
      } else {
        await sse(res, answerEvents('The guide says to move the settings first.'))
      }
    })
    cleanups.push(() => server.close())
    const host = await createDeepSeekHost(server, { before: STREAM_GRAMMAR, after: [[loopBreakerPlugin(), {}]] })
    cleanups.push(() => host.dispose())
    ;(host.ctx as any).tools.register(READ_FILE)
    const agent = host.createAgent()
    await host.ask(agent, 'What does the migration guide say first?')

    expect(eventsOf(agent, 'loop-breaker/continue')).toEqual([
      { turn: 1, step: 1, action: 'continue', count: 1, max: 3, cutToolCall: { id: 'call-cut', name: 'read_file' } },
    ])
    const results = eventsOf(agent, 'tool/result')
    expect(results.map((result) => result.message.content[0].isError)).toEqual([true, false])
    expect(results[1].message.content[0].content).toEqual([{ type: 'text', text: 'contents of docs/migration-guide.md' }])
    // On the wire: the cut call with the length marker, its failed result, then the notice.
    const [, second] = server.requests
    const messages = second!.body.messages
    const cut = messages.find((message: any) => message.tool_calls?.[0]?.id === 'call-cut')
    expect(cut.tool_calls[0].function.arguments).toBe('{"path":"docs/migration-gu …[loop-breaker: cut by the output length limit]')
    expect(messages.at(-1).content).toContain('Issue the whole read_file call again')
    expect(server.requests).toHaveLength(3)
    expect(eventsOf(agent, 'turn/end')).toEqual([{ turn: 1, reason: { kind: 'completed' } }])
    expect(server.errors).toEqual([])
  })
})
