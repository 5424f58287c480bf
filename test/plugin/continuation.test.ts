import { afterEach, describe, expect, it } from 'vitest'
import { readFile } from 'node:fs/promises'
import * as agentInvariant from '@deepseek-ai/dsh-agent/invariant'
import * as agentLoopInvariant from '@deepseek-ai/dsh-agent-loop/invariant'
import { defineTool } from '@deepseek-ai/dsh-tools'
import type { Script } from '../support/host.ts'
import { textAnswer } from '../support/host.ts'
import { createGuardedHost, cyclingText, eventsOf, lastMessageText, streamBlocks, toDeltas } from '../support/loop-breaker.ts'
import { createContinuationNotice, lengthMarker } from '../../src/plugin/messages.ts'
import { productiveProse } from '../fixtures/detector/loops.mjs'

/** The rc.8 invariant companions that mount in the test host besides those the guarded host mounts (stream grammar, session, records). */
const COMPANIONS: Array<[any]> = [[agentInvariant], [agentLoopInvariant]]

const hosts: Array<{ dispose(): Promise<void> }> = []
afterEach(async () => {
  for (const host of hosts.splice(0)) await host.dispose()
})

async function run(script: Script, config = {}, prompt = 'Write the migration guide in English.') {
  const host = await createGuardedHost(script, config, { before: COMPANIONS })
  hosts.push(host)
  ;(host.ctx as any).tools.register(WRITE_FILE)
  const agent = host.createAgent()
  await host.ask(agent, prompt)
  return { host, agent }
}

const writes: Array<{ path: string; content: string }> = []
const WRITE_FILE = defineTool({
  name: 'write_file',
  description: 'Write a file.',
  parameters: { path: { type: 'string', required: true }, content: { type: 'string', required: true } },
  output: { schema: { type: 'string' }, render: (_args: unknown, value: string) => [{ type: 'text' as const, text: value }] },
  async execute(args: { path: string; content: string }) {
    writes.push(args)
    return `wrote ${args.path}`
  },
})

/** A long, varied, normal answer (numbered sections that never repeat). */
function longAnswer(sections: number): string {
  const parts: string[] = []
  for (let i = 1; i <= sections; i++) {
    // Every section says something new: one sentence template numbered section after section is the
    // counter loop the in-call rules cut.
    parts.push(`## Step ${i}\n${productiveProse(120, 'en', i)}\n`)
  }
  return parts.join('\n')
}

function textAssistantTexts(agent: any): string[] {
  return eventsOf(agent, 'assistant/message').map((data) => data.message.content.filter((block: any) => block.type === 'text').map((block: any) => block.text).join(''))
}

describe('continuation after max-tokens in a real rc.8 agent loop (grammar and invariant companions mounted)', () => {
  it('continues a long normal answer cut by the length limit, and the joined text is the script\'s', async () => {
    const answer = longAnswer(60)
    const pieces = [answer.slice(0, 2000), answer.slice(2000, 4100), answer.slice(4100)]
    const { host, agent } = await run((_options, call) => streamBlocks([{ type: 'text', deltas: toDeltas(pieces[call]!) }], call < 2 ? { finish: 'max-tokens' } : {}))

    expect(host.adapter.requests).toHaveLength(3)
    expect(textAssistantTexts(agent).join('')).toBe(answer)
    expect(eventsOf(agent, 'loop-breaker/continue')).toEqual([
      { turn: 1, step: 1, action: 'continue', count: 1, max: 3 },
      { turn: 1, step: 2, action: 'continue', count: 2, max: 3 },
    ])
    expect(lastMessageText(host.adapter.requests[1]!)).toBe('[loop-breaker] Your previous output was cut off by the output length limit. Continue exactly where it stopped, starting with the next character; do not repeat or summarise what you already wrote.')
    expect(eventsOf(agent, 'turn/end')).toEqual([{ turn: 1, reason: { kind: 'completed' } }])
    expect(eventsOf(agent, 'loop-breaker/break')).toEqual([])
  })

  it('speaks the user\'s language', async () => {
    const { host } = await run((_options, call) => call === 0 ? streamBlocks([{ type: 'text', deltas: ['第一部分'] }], { finish: 'max-tokens' }) : textAnswer('第二部分'), {}, '请写迁移指南')
    expect(lastMessageText(host.adapter.requests[1]!)).toBe('[loop-breaker] 你上一次的输出因达到输出长度上限被截断。请从中断处紧接着继续，直接写出下一个字符；不要重复或概括已经写过的内容。')
  })

  it('cuts a call that loops up to the length limit as a loop, never continues it', async () => {
    const looping = cyclingText('Checking the config: ', 'I will check the config file again to be sure it is right. ', 200)
    const { host, agent } = await run((_options, call) => call === 0
      ? streamBlocks([{ type: 'text', deltas: toDeltas(looping) }], { finish: 'max-tokens' })
      : textAnswer('The config is fine; next I migrate the schema.'))
    expect(eventsOf(agent, 'loop-breaker/break')).toHaveLength(1)
    expect(eventsOf(agent, 'loop-breaker/continue')).toEqual([])
    expect(host.adapter.requests).toHaveLength(2)
    expect(lastMessageText(host.adapter.requests[1]!)).toContain('repetition loop')
    // The cut replaced the finish before max-tokens reached the loop.
    expect(eventsOf(agent, 'assistant/chunk').filter((data) => data.step === 1).at(-1).chunk.reason).toEqual({ kind: 'stop' })
  })

  it('holds the cap: after maxContinuations the max-tokens finish ends the turn as DSH ends it', async () => {
    // Each call writes on about another part (a word, not a number: the step judge masks numbers, and the
    // same text with a counter is a repeated step).
    const parts = ['Parser', 'Lexer', 'Printer', 'Checker', 'Linker', 'Loader', 'Writer']
    const { host, agent } = await run((_options, call) => streamBlocks([{ type: 'text', deltas: toDeltas(longAnswer(8).replace(/Step/g, `${parts[call]} step`)) }], { finish: 'max-tokens' }), { maxContinuations: 2 })
    expect(host.adapter.requests).toHaveLength(3)
    expect(eventsOf(agent, 'loop-breaker/continue')).toEqual([
      { turn: 1, step: 1, action: 'continue', count: 1, max: 2 },
      { turn: 1, step: 2, action: 'continue', count: 2, max: 2 },
      { turn: 1, step: 3, action: 'end', count: 2, max: 2 },
    ])
    const decisions = agent.session.events.filter((event: any) => event.type === 'hook/result').map((event: any) => event.data.decision)
    expect(decisions).toEqual(['continue', 'continue', 'end'])
    expect(eventsOf(agent, 'turn/end')).toEqual([{ turn: 1, reason: { kind: 'max-tokens' } }])
    // A new user turn has the full cap again.
    await host.ask(agent, 'go on')
    expect(eventsOf(agent, 'loop-breaker/continue').filter((data) => data.turn === 2).map((data) => data.count)).toEqual([1, 2, 2])
  })

  it('closes a tool call cut inside its arguments so it never runs, and has the model issue it again whole', async () => {
    writes.length = 0
    const whole = JSON.stringify({ path: 'guide.md', content: longAnswer(10) })
    const half = whole.slice(0, 700)
    const { host, agent } = await run((_options, call) => {
      if (call === 0) {
        return streamBlocks([
          { type: 'text', deltas: ['I will write the guide.'] },
          { type: 'tool-call', id: 'call-1', name: 'write_file', deltas: toDeltas(half, 16) },
        ], { finish: 'max-tokens' })
      }
      if (call === 1) return streamBlocks([{ type: 'tool-call', id: 'call-2', name: 'write_file', deltas: toDeltas(whole, 16) }])
      return textAnswer('The guide is written.')
    })

    const cut = eventsOf(agent, 'assistant/message')[0].message.content[1]
    expect(cut.arguments).toBe(`${half} …[loop-breaker: cut by the output length limit]`)
    const results = eventsOf(agent, 'tool/result')
    expect(results[0].error.code).toBe('INVALID_ARGS')
    expect(writes).toEqual([JSON.parse(whole)])
    expect(eventsOf(agent, 'loop-breaker/continue')).toEqual([{ turn: 1, step: 1, action: 'continue', count: 1, max: 3, cutToolCall: { id: 'call-1', name: 'write_file' } }])
    // user prompt, the cut call, its failed result, the notice.
    const second = host.adapter.requests[1]!
    expect(second.messages.map((message: any) => message.content.at(-1)?.type)).toEqual(['text', 'tool-call', 'tool-result', 'text'])
    expect(lastMessageText(second)).toContain('Issue the whole write_file call again with complete arguments')
    expect(eventsOf(agent, 'turn/end')).toEqual([{ turn: 1, reason: { kind: 'completed' } }])
  })

  it('passes a max-tokens finish through untouched when continuations are off', async () => {
    const { host, agent } = await run(() => streamBlocks([{ type: 'text', deltas: ['half an answer'] }], { finish: 'max-tokens' }), { maxContinuations: 0 })
    expect(host.adapter.requests).toHaveLength(1)
    expect(eventsOf(agent, 'turn/end')).toEqual([{ turn: 1, reason: { kind: 'max-tokens' } }])
  })
})

describe('the Model Experience section of docs/continuation-and-crop (en and zh)', () => {
  it('quotes the continuation notices and the length marker exactly as the plugin sends them', async () => {
    for (const page of ['docs/continuation-and-crop.md', 'docs/continuation-and-crop.zh.md']) {
      const text = await readFile(page, 'utf8')
      for (const locale of ['en', 'zh'] as const) {
        for (const tool of [undefined, 'write_file']) expect(text).toContain((createContinuationNotice(locale, tool).content[0] as any).text)
        expect(text).toContain(`\`${lengthMarker(locale)}\``)
      }
    }
  })
})
