import { afterEach, describe, expect, it } from 'vitest'
import { defineTool } from '@deepseek-ai/dsh-tools'
import { textAnswer } from '../support/host.ts'
import type { Script } from '../support/host.ts'
import { createGuardedHost, eventsOf, lastMessageText, phrasePoolReasoning, streamBlocks, toDeltas } from '../support/loop-breaker.ts'
import type { Config } from '../../src/plugin/index.ts'

const hosts: Array<{ dispose(): Promise<void> }> = []
afterEach(async () => {
  for (const host of hosts.splice(0)) await host.dispose()
})

const LOOP = phrasePoolReasoning('Plan: patch the parser.')
const looping = () => streamBlocks([{ type: 'reasoning', deltas: toDeltas(LOOP) }])

/** A host where the model loops on the calls `loopsOn(call)` says, and answers normally otherwise. */
async function host(loopsOn: (call: number) => boolean, config: Config = {}) {
  const script: Script = (_options, call) => loopsOn(call) ? looping() : textAnswer(`answer ${call}`)
  const created = await createGuardedHost(script, config)
  hosts.push(created)
  return { ...created, agent: created.createAgent() }
}

/** Wait until the agent is idle and stays idle (a resume follows up from a whenIdle callback). */
async function quiet(agent: any) {
  do {
    await agent.whenIdle()
    await new Promise((resolve) => setImmediate(resolve))
  } while (agent.status !== 'idle')
}

const actions = (agent: any) => eventsOf(agent, 'loop-breaker/break').map((event) => `${event.level}:${event.action}`)
const turnEnds = (agent: any) => eventsOf(agent, 'turn/end').map((event) => event.reason)
const CANCELLED = { kind: 'aborted', reason: { kind: 'hook', reason: 'repetition-loop' } }

describe('escalation in a real agent loop', () => {
  it('climbs remind → replan → cancel within one turn and records the cancel cause', async () => {
    const { agent, adapter, ask } = await host(() => true)
    await ask(agent, 'fix it')
    expect(actions(agent)).toEqual(['1:remind', '2:replan', '3:cancel'])
    expect(adapter.requests).toHaveLength(3)
    expect(lastMessageText(adapter.requests[1]!)).toContain('Do not repeat that text')
    expect(lastMessageText(adapter.requests[2]!)).toContain('This has happened 2 times in a row')
    expect(turnEnds(agent)).toEqual([CANCELLED])
    // The cut prefix is kept as an interrupted message, trimmed.
    const interrupted = eventsOf(agent, 'assistant/message').at(-1)
    expect(interrupted.interrupted).toBe(true)
    expect(interrupted.message.content[0].text).toMatch(/loop-breaker: [\d,]+ repeated characters removed/)
    expect(agent.status).toBe('idle')
  })

  it('starts the ladder again after a call that ends cleanly', async () => {
    // loop, clean tool step, loop, clean answer: two first-level reminders, never a replan.
    const tool = defineTool({
      name: 'list_files', description: 'List files.', parameters: {},
      output: { schema: { type: 'string' }, render: (_a: unknown, value: string) => [{ type: 'text' as const, text: value }] },
      async execute() { return 'a.ts b.ts' },
    })
    const script: Script = (_options, call) => {
      if (call === 0 || call === 2) return looping()
      if (call === 1) return streamBlocks([{ type: 'tool-call', id: 'c1', name: 'list_files', deltas: ['{}'] }])
      return textAnswer('done')
    }
    const created = await createGuardedHost(script)
    hosts.push(created)
    ;(created.ctx as any).tools.register(tool)
    const agent = created.createAgent()
    await created.ask(agent, 'go')
    expect(actions(agent)).toEqual(['1:remind', '1:remind'])
    expect(turnEnds(agent)).toEqual([{ kind: 'completed' }])
  })

  it('resumes a cancelled turn with the notice once the agent is idle (resumeAfterBreak)', async () => {
    const { agent, adapter, ask } = await host((call) => call < 3, { resumeAfterBreak: true })
    await ask(agent, 'fix it')
    await quiet(agent)
    expect(actions(agent)).toEqual(['1:remind', '2:replan', '3:cancel'])
    expect(turnEnds(agent)).toEqual([CANCELLED, { kind: 'completed' }])
    const resumed = adapter.requests[3]!
    expect(lastMessageText(resumed)).toContain('The previous turn was stopped after 3 loops in a row')
    expect((resumed.messages.at(-1) as any).source).toMatchObject({ kind: 'plugin', plugin: 'loop-breaker', form: 'notice' })
    expect(eventsOf(agent, 'assistant/message').at(-1).message.content[0].text).toBe('answer 3')
  })

  it('caps reactions per user turn: the last one cancels without resuming, and a user message resets the caps', async () => {
    const { agent, adapter, ask } = await host((call) => call !== 5, { resumeAfterBreak: true, maxFires: 4 })
    await ask(agent, 'fix it')
    await quiet(agent)
    // remind, replan, cancel + resume, then the 4th reaction is the last: cancel, no resume.
    expect(actions(agent)).toEqual(['1:remind', '2:replan', '3:cancel', '1:cancel'])
    expect(turnEnds(agent)).toEqual([CANCELLED, CANCELLED])
    expect(adapter.requests).toHaveLength(4)

    await ask(agent, 'try again')
    expect(actions(agent).slice(4)).toEqual(['1:remind'])
    expect(eventsOf(agent, 'assistant/message').at(-1).message.content[0].text).toBe('answer 5')
  })

  it("only records trips past the cap when escalate is 'steer': the stream is left alone", async () => {
    const { agent, adapter, ask } = await host((call) => call < 3, { escalate: 'steer', maxFires: 2 })
    await ask(agent, 'fix it')
    expect(actions(agent)).toEqual(['1:remind', '2:replan', '2:observe'])
    expect(adapter.requests).toHaveLength(3)
    const untouched = eventsOf(agent, 'assistant/message').at(-1).message.content[0].text
    expect(untouched).toBe(LOOP)
    expect(turnEnds(agent)).toEqual([{ kind: 'completed' }])
  })

  it("never wakes or extends the turn when escalate is 'warn': the notice rides the user's next message", async () => {
    const { agent, adapter, ask } = await host((call) => call === 0, { escalate: 'warn' })
    await ask(agent, 'fix it')
    expect(actions(agent)).toEqual(['1:warn'])
    expect(adapter.requests).toHaveLength(1)
    expect(turnEnds(agent)).toEqual([{ kind: 'completed' }])
    await ask(agent, 'continue')
    const next = adapter.requests[1]!
    expect(lastMessageText(next)).toContain('its reasoning fell into a repetition loop')
    expect(next.messages.map((message: any) => message.source?.kind ?? message.role).slice(-2)).toEqual(['user', 'plugin'])
  })

  it('cancels at the first break when maxBreaksPerTurn is 1', async () => {
    const { agent, ask } = await host(() => true, { maxBreaksPerTurn: 1 })
    await ask(agent, 'fix it')
    expect(actions(agent)).toEqual(['1:cancel'])
    expect(turnEnds(agent)).toEqual([CANCELLED])
  })
})
