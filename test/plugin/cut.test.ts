import { afterEach, describe, expect, it } from 'vitest'
import { defineTool } from '@deepseek-ai/dsh-tools'
import type { StreamChunk } from '@deepseek-ai/dsh-llm'
import { textAnswer } from '../support/host.ts'
import type { Script } from '../support/host.ts'
import {
  createGuardedHost, cyclingText, eventsOf, lastMessageText, phrasePoolReasoning, streamBlocks, toDeltas,
} from '../support/loop-breaker.ts'
import type { BlockScript } from '../support/loop-breaker.ts'
import { counterLoop, latencyBound } from '../fixtures/detector/shapes.mjs'

const hosts: Array<{ dispose(): Promise<void> }> = []
afterEach(async () => {
  for (const host of hosts.splice(0)) await host.dispose()
})

/** A host whose first call streams `blocks` and every later call answers normally. */
async function loopThenAnswer(blocks: BlockScript[], config = {}) {
  let returned = 0
  const script: Script = (_options, call) => call === 0
    ? streamBlocks(blocks, { onReturn: () => returned++ })
    : textAnswer('Continuing with the task.')
  const host = await createGuardedHost(script, config)
  hosts.push(host)
  const agent = host.createAgent()
  await host.ask(agent, 'fix the parser')
  return { host, agent, upstreamReturns: () => returned }
}

/** The chunks the agent loop logged for one step. */
function loggedChunks(agent: any, step: number): StreamChunk[] {
  return eventsOf(agent, 'assistant/chunk').filter((data) => data.step === step).map((data) => data.chunk)
}

const WRITE_FILE = defineTool({
  name: 'write_file',
  description: 'Write a file.',
  parameters: { path: { type: 'string', required: true }, content: { type: 'string', required: true } },
  output: { schema: { type: 'string' }, render: (_args: unknown, value: string) => [{ type: 'text' as const, text: value }] },
  async execute(args: { path: string }) {
    writes.push(args.path)
    return `wrote ${args.path}`
  },
})
const writes: string[] = []

describe('in-stream cut in a real agent loop (stream grammar checked)', () => {
  it('cuts a phrase-pool bleed in reasoning, trims what the model reads, keeps the raw chunks, steers the notice', async () => {
    const reasoning = phrasePoolReasoning('Plan: read parser.ts, find the off-by-one, patch it.')
    const { host, agent, upstreamReturns } = await loopThenAnswer([{ type: 'reasoning', deltas: toDeltas(reasoning) }])

    const [cut] = eventsOf(agent, 'loop-breaker/break')
    expect(cut).toMatchObject({ turn: 1, step: 1, rule: 'phrase-pool', side: 'reasoning', level: 1, action: 'remind' })
    expect(upstreamReturns()).toBe(1)

    const [first, second] = eventsOf(agent, 'assistant/message').map((data) => data.message)
    const trimmed = first.content[0].text as string
    expect(trimmed.startsWith('Plan: read parser.ts, find the off-by-one, patch it.\n')).toBe(true)
    expect(trimmed).toMatch(/ …\[loop-breaker: [\d,]+ repeated characters removed\]$/)
    expect(trimmed.length).toBeLessThan(cut.at)

    // The raw deltas, up to and including the tripping one, stay in the log untouched.
    const raw = loggedChunks(agent, 1).filter((chunk) => chunk.type === 'reasoning-delta').map((chunk: any) => chunk.text).join('')
    expect(raw.length).toBeGreaterThanOrEqual(cut.at)
    expect(raw.length - cut.at).toBeLessThan(7)
    expect(reasoning.startsWith(raw)).toBe(true)

    // The next request shows the trimmed block and ends with the notice.
    const next = host.adapter.requests[1]!
    expect(lastMessageText(next)).toContain('its reasoning fell into a repetition loop')
    const source = (next.messages.at(-1) as any).source
    expect(source).toMatchObject({ kind: 'plugin', plugin: 'loop-breaker', form: 'notice' })
    expect(source.summary).toBe('loop-breaker remind: phrase-pool / reasoning / ' + cut.repeatedChars.toLocaleString('en-US'))
    expect((next.messages.find((message: any) => message.role === 'assistant') as any).content[0].text).toBe(trimmed)
    expect(second.content[0].text).toBe('Continuing with the task.')
    expect(eventsOf(agent, 'turn/end')).toEqual([{ turn: 1, reason: { kind: 'completed' } }])
  })

  it('cuts a visible-text cycle with the cycle rule and keeps one copy before the loop', async () => {
    // A paragraph of three sentences: one sentence said again and again is a phrase pool, cut sooner.
    const paragraph = 'The parser now handles nested brackets correctly, and every test in the suite passes. The fix moves the depth counter out of the inner loop, so a closing bracket at the end of a line is no longer counted twice. I also added a regression test for the case from the issue, with brackets nested four deep. '
    const text = cyclingText('Summary of the change:\n', paragraph)
    const { agent } = await loopThenAnswer([{ type: 'text', deltas: toDeltas(text, 5) }])
    const [cut] = eventsOf(agent, 'loop-breaker/break')
    expect(cut).toMatchObject({ rule: 'cycle', side: 'text', action: 'remind' })
    const trimmed = eventsOf(agent, 'assistant/message')[0].message.content[0].text as string
    expect(trimmed).toContain(`Summary of the change:\n${paragraph}`)
    expect(trimmed.split(paragraph).length - 1).toBeLessThanOrEqual(2)
  })

  it('cuts a run of identical deltas with the identical-chunks rule', async () => {
    const { agent } = await loopThenAnswer([{ type: 'text', deltas: ['Answer: ', ...Array(200).fill('ok ')] }])
    expect(eventsOf(agent, 'loop-breaker/break')[0]).toMatchObject({ rule: 'identical-chunks', side: 'text' })
  })

  it('cuts a block of words repeated back to back with the token-period rule', async () => {
    const deltas = ['Checking: ', ...Array(40).fill(0).flatMap(() => ['the ', 'cat ', 'sat ', 'on ', 'the ', 'mat. '])]
    const { agent } = await loopThenAnswer([{ type: 'reasoning', deltas }])
    expect(eventsOf(agent, 'loop-breaker/break')[0]).toMatchObject({ rule: 'token-period', side: 'reasoning' })
  })

  it('cuts a sentence that comes back with a new counter each time with the novelty rule, and tells the model what it kept doing', async () => {
    const { text } = counterLoop({ seed: 1, side: 'reasoning', prefixChars: 800, loopChars: 12_000 })
    const { host, agent } = await loopThenAnswer([{ type: 'reasoning', deltas: toDeltas(text) }])
    const [cut] = eventsOf(agent, 'loop-breaker/break')
    expect(cut).toMatchObject({ turn: 1, step: 1, rule: 'novelty', side: 'reasoning', action: 'remind' })
    expect(cut.at).toBeLessThan(800 + latencyBound('counter', 'reasoning') + 64)
    expect(lastMessageText(host.adapter.requests[1]!)).toContain('only reworded, renumbered or reshuffled')
  })

  it('closes a half-streamed tool call with unparsable arguments: it fails validation, never runs, the session goes on', async () => {
    writes.length = 0
    const looping = `{"path":"notes.md","content":"${'- [ ] check the parser again\\n'.repeat(400)}`
    const blocks: BlockScript[] = [
      { type: 'reasoning', deltas: ['I will write the checklist.'] },
      { type: 'tool-call', id: 'call-1', name: 'write_file', deltas: toDeltas(looping, 16) },
    ]
    let calls = 0
    const host = await createGuardedHost((_options, call) => {
      calls = call + 1
      return call === 0 ? streamBlocks(blocks) : textAnswer('I will write a shorter checklist instead.')
    })
    hosts.push(host)
    ;(host.ctx as any).tools.register(WRITE_FILE)
    const agent = host.createAgent()
    await host.ask(agent, 'write the checklist')

    expect(eventsOf(agent, 'loop-breaker/break')[0]).toMatchObject({ side: 'tool', action: 'remind' })
    const toolBlock = eventsOf(agent, 'assistant/message')[0].message.content[1]
    expect(toolBlock.arguments).toMatch(/ …\[loop-breaker: [\d,]+ repeated characters removed\]$/)
    expect(() => JSON.parse(toolBlock.arguments)).toThrow()
    expect(writes).toEqual([])
    const [result] = eventsOf(agent, 'tool/result')
    expect(result.error.code).toBe('INVALID_ARGS')
    expect(result.message.content[0].isError).toBe(true)
    expect(calls).toBe(2)
    const next = host.adapter.requests[1]!
    // user prompt, the cut assistant message, its failed tool result, the notice.
    expect(next.messages.map((message: any) => message.content[0]?.type ?? 'text')).toEqual(['text', 'reasoning', 'tool-result', 'text'])
    expect(lastMessageText(next)).toContain('its tool-call arguments fell into a repetition loop')
    expect(eventsOf(agent, 'turn/end')).toEqual([{ turn: 1, reason: { kind: 'completed' } }])
  })

  it('cuts text that loops after a finished tool block in the same call: the finished call runs, the notice follows', async () => {
    writes.length = 0
    const blocks: BlockScript[] = [
      { type: 'tool-call', id: 'call-1', name: 'write_file', deltas: ['{"path":"a.md",', '"content":"x"}'] },
      { type: 'text', deltas: toDeltas(cyclingText('Now verifying. ', 'Still verifying the file, one more check before I report back. The write went through and the file is on disk, so only its content is left to confirm against what the task asked for. '), 6) },
    ]
    const host = await createGuardedHost((_options, call) => call === 0 ? streamBlocks(blocks) : textAnswer('Verified.'))
    hosts.push(host)
    ;(host.ctx as any).tools.register(WRITE_FILE)
    const agent = host.createAgent()
    await host.ask(agent, 'write a.md')
    expect(eventsOf(agent, 'loop-breaker/break')[0]).toMatchObject({ side: 'text', rule: 'cycle' })
    expect(writes).toEqual(['a.md'])
    expect(lastMessageText(host.adapter.requests[1]!)).toContain('its reply fell into a repetition loop')
  })

  it('closes every block that is open at once, trimming only the looping one', async () => {
    const loop = 'Retrying the same idea again and again. The last attempt failed the same way, so I will run it once more with the same input. Nothing in the input has changed since then, and the error is the one I saw before. If it fails again I will read the stack trace line by line. '.repeat(20)
    const interleaved = async function* (): AsyncIterable<StreamChunk> {
      yield { type: 'block-start', index: 0, blockType: 'reasoning' } as StreamChunk
      yield { type: 'block-start', index: 1, blockType: 'text' } as StreamChunk
      yield { type: 'text-delta', index: 1, text: 'Partial answer' } as StreamChunk
      for (const delta of toDeltas(loop, 9)) yield { type: 'reasoning-delta', index: 0, text: delta } as StreamChunk
      yield { type: 'finish', reason: { kind: 'stop' } } as StreamChunk
    }
    const host = await createGuardedHost((_options, call) => call === 0 ? interleaved() : textAnswer('Fine.'))
    hosts.push(host)
    const agent = host.createAgent()
    await host.ask(agent, 'go')
    const closing = loggedChunks(agent, 1).slice(-3)
    expect(closing.map((chunk) => chunk.type)).toEqual(['block-end', 'block-end', 'finish'])
    const [reasoning, text] = eventsOf(agent, 'assistant/message')[0].message.content
    expect(reasoning.text).toMatch(/^Retrying the same idea again and again\. .* …\[loop-breaker: [\d,]+ repeated characters removed\]$/s)
    expect(text.text).toBe('Partial answer')
  })

  it('leaves the cut block whole when trimHistory is off', async () => {
    const reasoning = phrasePoolReasoning('Plan: patch it.')
    const { agent } = await loopThenAnswer([{ type: 'reasoning', deltas: toDeltas(reasoning) }], { trimHistory: false })
    const raw = loggedChunks(agent, 1).filter((chunk) => chunk.type === 'reasoning-delta').map((chunk: any) => chunk.text).join('')
    expect(eventsOf(agent, 'assistant/message')[0].message.content[0].text).toBe(raw)
  })

  it('passes a normal answer through chunk for chunk', async () => {
    const blocks: BlockScript[] = [
      { type: 'reasoning', deltas: toDeltas('Let me look at the failing test first, then the parser.') },
      { type: 'text', deltas: toDeltas('The bug was an off-by-one in the bracket counter; fixed and tested.') },
    ]
    const { agent } = await loopThenAnswer(blocks)
    const expected: StreamChunk[] = []
    for await (const chunk of streamBlocks(blocks)) expected.push(chunk)
    expect(loggedChunks(agent, 1)).toEqual(expected)
    expect(eventsOf(agent, 'loop-breaker/break')).toEqual([])
  })
})
