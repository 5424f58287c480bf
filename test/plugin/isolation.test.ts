import { afterEach, describe, expect, it } from 'vitest'
import { createUserMessage } from '@deepseek-ai/dsh-llm'
import type { StreamChunk } from '@deepseek-ai/dsh-llm'
import { textAnswer } from '../support/host.ts'
import type { Script } from '../support/host.ts'
import { createGuardedHost, cyclingText, eventsOf, phrasePoolReasoning, streamBlocks, toDeltas } from '../support/loop-breaker.ts'
import type { BlockScript } from '../support/loop-breaker.ts'

const hosts: Array<{ dispose(): Promise<void> }> = []
afterEach(async () => {
  for (const host of hosts.splice(0)) await host.dispose()
})

/** Yield to the event loop between chunks, so concurrent agents really interleave. */
async function* interleaving(chunks: AsyncIterable<StreamChunk>): AsyncIterable<StreamChunk> {
  for await (const chunk of chunks) {
    await new Promise((resolve) => setImmediate(resolve))
    yield chunk
  }
}

async function collect(chunks: AsyncIterable<StreamChunk>): Promise<StreamChunk[]> {
  const out: StreamChunk[] = []
  for await (const chunk of chunks) out.push(chunk)
  return out
}

/** Collect the plugin's warnings (Cordis exports warn only to exporters whose level admits it). */
function captureWarnings(host: { ctx: any }): string[] {
  const warnings: string[] = []
  host.ctx.logger.exporter({
    levels: { default: 3 },
    export: (message: any) => {
      if (message.name === 'loop-breaker' && message.type === 'warn') warnings.push(message.args.map(String).join(' '))
    },
  })
  return warnings
}

const POOL: BlockScript[] = [{ type: 'reasoning', deltas: toDeltas(phrasePoolReasoning('Plan: patch.')) }]
const CYCLE: BlockScript[] = [{ type: 'text', deltas: toDeltas(cyclingText('Result: ', 'The parser now handles nested brackets correctly, and every test in the suite passes. The fix moves the depth counter out of the inner loop, so a closing bracket at the end of a line is no longer counted twice. I also added a regression test for the case from the issue, with brackets nested four deep. ')) }]

describe('state per agent, fail-open, unguarded calls', () => {
  it('keeps 20 agents streaming at once in one context apart', async () => {
    // Agent i: i % 4 == 0 loops on every call (climbs to cancel), i % 4 == 1 loops once in text,
    // i % 4 == 2 loops once in reasoning, i % 4 == 3 never loops.
    const kind = (sessionId: string) => Number(sessionId.split('-').at(-1)) % 4
    const calls = new Map<string, number>()
    const script: Script = (options) => {
      const id = options.sessionId!
      const call = calls.get(id) ?? 0
      calls.set(id, call + 1)
      const k = kind(id)
      if (k === 0 || (call === 0 && k !== 3)) return interleaving(streamBlocks(k === 1 ? CYCLE : POOL))
      return interleaving(textAnswer(`answer for ${id}`))
    }
    const host = await createGuardedHost(script)
    hosts.push(host)
    const agents = Array.from({ length: 20 }, (_, i) => host.createAgent(`agent-${i}`))
    await Promise.all(agents.map((agent, i) => host.ask(agent, `task ${i}`)))

    for (const [i, agent] of agents.entries()) {
      const actions = eventsOf(agent, 'loop-breaker/break').map((event) => `${event.rule}:${event.action}`)
      if (i % 4 === 0) expect(actions).toEqual(['phrase-pool:remind', 'phrase-pool:replan', 'phrase-pool:cancel'])
      if (i % 4 === 1) expect(actions).toEqual(['cycle:remind'])
      if (i % 4 === 2) expect(actions).toEqual(['phrase-pool:remind'])
      if (i % 4 === 3) expect(actions).toEqual([])
      const requests = host.adapter.requests.filter((request) => request.sessionId === agent.session.id)
      const notices = requests.filter((request) => (request.messages.at(-1) as any).source?.kind === 'plugin')
      expect(notices.length).toBe({ 0: 2, 1: 1, 2: 1, 3: 0 }[i % 4])
      if (i % 4 !== 0) expect(eventsOf(agent, 'assistant/message').at(-1).message.content[0].text).toBe(`answer for agent-${i}`)
    }
  })

  it('fails open: a detector that throws leaves the call untouched and logs one warning', async () => {
    const blocks: BlockScript[] = [{ type: 'text', deltas: toDeltas(cyclingText('Loop: ', 'again and again and again. ')) }]
    let pushes = 0
    const host = await createGuardedHost(() => streamBlocks(blocks), {}, {
      internals: {
        createDetector: () => ({
          push() {
            if (++pushes === 3) throw new Error('detector exploded')
            return undefined
          },
        }),
      },
    })
    hosts.push(host)
    const warnings = captureWarnings(host)
    const agent = host.createAgent()
    await host.ask(agent, 'go')
    const logged = eventsOf(agent, 'assistant/chunk').map((data) => data.chunk)
    expect(logged).toEqual(await collect(streamBlocks(blocks)))
    expect(pushes).toBe(3)
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toContain('detector exploded')
    expect(eventsOf(agent, 'turn/end')).toEqual([{ turn: 1, reason: { kind: 'completed' } }])
  })

  it('fails open when the detector cannot even be created', async () => {
    const host = await createGuardedHost(() => textAnswer('fine'), {}, {
      internals: { createDetector: () => { throw new Error('no detector today') } },
    })
    hosts.push(host)
    const warnings = captureWarnings(host)
    const agent = host.createAgent()
    await host.ask(agent, 'go')
    expect(eventsOf(agent, 'assistant/message')[0].message.content[0].text).toBe('fine')
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toContain('no detector today')
  })

  it('leaves session-title and compaction requests untouched, even when they loop', async () => {
    const host = await createGuardedHost(() => streamBlocks(POOL))
    hosts.push(host)
    const agent = host.createAgent()
    for (const purpose of ['session-title', 'compaction'] as const) {
      const chunks = await collect((host.ctx as any).llm.stream({
        provider: 'scripted',
        model: 'scripted-model',
        purpose,
        sessionId: agent.session.id,
        messages: [createUserMessage({ content: [{ type: 'text', text: 'name this session' }], source: { kind: 'user' } })],
      }))
      expect(chunks).toEqual(await collect(streamBlocks(POOL)))
    }
    expect(eventsOf(agent, 'loop-breaker/break')).toEqual([])
  })
})
