import { afterEach, describe, expect, it } from 'vitest'
import { defineTool } from '@deepseek-ai/dsh-tools'
import type { StreamChunk } from '@deepseek-ai/dsh-llm'
import { textAnswer, userText } from '../support/host.ts'
import type { Script } from '../support/host.ts'
import { createGuardedHost, eventsOf, lastMessageText, phrasePoolReasoning, streamBlocks, toDeltas } from '../support/loop-breaker.ts'
import type { Config } from '../../src/plugin/index.ts'
import { Escalation } from '../../src/plugin/escalation.ts'
import type { EscalateMode, Reaction } from '../../src/plugin/escalation.ts'
import { resumeLine } from '../../src/plugin/messages.ts'

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

  it('says a resume is queued at the cancel, and that it resumed only once the notice went to the model', async () => {
    const written: string[] = []
    let requestsWhenResumed = -1
    const created = await createGuardedHost((_options, call) => call < 3 ? looping() : textAnswer(`answer ${call}`), { resumeAfterBreak: true }, {
      internals: { writeLine: (line) => {
        written.push(line)
        if (line.includes('resumed the task')) requestsWhenResumed = created.adapter.requests.length
      } },
    })
    hosts.push(created)
    const agent = created.createAgent()
    // The user's own wait (as a headless run waits) covers the resumed turn: no idle moment in between.
    await created.ask(agent, 'fix it')
    expect(turnEnds(agent)).toEqual([CANCELLED, { kind: 'completed' }])
    expect(written.at(-2)).toMatch(/; the turn was cancelled; a follow-up with the notice is queued to resume the task \(3 in a row\)\.$/)
    expect(written.at(-1)).toBe('[loop-breaker] resumed the task after turn 1 was cancelled: the notice went to the model.')
    // Logged as the request carrying the notice went out, before the model answered it.
    expect(requestsWhenResumed).toBe(3)
    expect(resumeLine('zh', { turn: 1 })).toBe('[loop-breaker] 第 1 轮被中止后，已自动继续原任务：提示已发给模型。')
  })

  it('runs a message the user queued during the cancelled turn first, then the resumed turn', async () => {
    let agent: any
    const script: Script = (_options, call) => {
      // The user types while the third looping call streams; the message waits in the inbox through the cancel.
      if (call === 2) agent.followup(userText('never mind, just list the files'))
      return call < 3 ? looping() : textAnswer(`answer ${call}`)
    }
    const created = await createGuardedHost(script, { resumeAfterBreak: true })
    hosts.push(created)
    agent = created.createAgent()
    await created.ask(agent, 'fix it')
    expect(actions(agent)).toEqual(['1:remind', '2:replan', '3:cancel'])
    expect(turnEnds(agent)).toEqual([CANCELLED, { kind: 'completed' }, { kind: 'completed' }])
    expect(lastMessageText(created.adapter.requests[3]!)).toBe('never mind, just list the files')
    expect(lastMessageText(created.adapter.requests[4]!)).toContain('The previous turn was stopped after 3 loops in a row')
    expect(eventsOf(agent, 'loop-breaker/resume')).toEqual([{ turn: 3, step: 1 }])
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

  it("still cuts a trip past the cap when escalate is 'steer', without a notice, and ends the turn", async () => {
    const { agent, adapter, ask } = await host((call) => call < 3, { escalate: 'steer', maxFires: 2 })
    await ask(agent, 'fix it')
    expect(actions(agent)).toEqual(['1:remind', '2:replan', '3:stop'])
    expect(adapter.requests).toHaveLength(3)
    const cut = eventsOf(agent, 'assistant/message').at(-1)
    expect(cut.interrupted).toBe(true)
    expect(cut.message.content[0].text).toMatch(/loop-breaker: [\d,]+ repeated characters removed\]$/)
    // No notice after the stop: the last message the model read is the replan notice.
    expect(eventsOf(agent, 'user/message').map((message) => message.source?.summary ?? message.source?.kind)).toEqual([
      'user', expect.stringContaining('loop-breaker remind'), expect.stringContaining('loop-breaker replan'),
    ])
    expect(turnEnds(agent)).toEqual([CANCELLED])
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

describe('Escalation', () => {
  const MODES = ['warn', 'steer', 'cancel'] as const
  const settings = (escalate: EscalateMode, resumeAfterBreak: boolean, maxFires = 6, maxBreaksPerTurn = 3) =>
    ({ escalate, resumeAfterBreak, maxFires, maxBreaksPerTurn })
  const run = (escalation: Escalation, findings: number) => Array.from({ length: findings }, () => escalation.react())
  const show = (reactions: Reaction[]) => reactions.map((reaction) => `${reaction.level}:${reaction.action}${reaction.resume ? '+resume' : ''}`)

  it('climbs the ladder each mode allows, then stops every later finding without resuming', () => {
    expect(show(run(new Escalation(settings('warn', true)), 8))).toEqual(['1:warn', '2:warn', '3:warn', '4:warn', '5:warn', '6:warn', '7:stop', '8:stop'])
    expect(show(run(new Escalation(settings('steer', true)), 8))).toEqual(['1:remind', '2:replan', '3:replan', '4:replan', '5:replan', '6:replan', '7:stop', '8:stop'])
    expect(show(run(new Escalation(settings('cancel', true)), 8))).toEqual(['1:remind', '2:replan', '3:cancel+resume', '1:remind', '2:replan', '3:cancel', '1:stop', '2:stop'])
    expect(show(run(new Escalation(settings('cancel', false)), 4))).toEqual(['1:remind', '2:replan', '3:cancel', '1:remind'])
  })

  it('under every setting: at most maxFires reactions, resume only on a cancel before the last one, a stop past the cap', () => {
    for (const escalate of MODES) {
      for (const resumeAfterBreak of [false, true]) {
        for (const maxFires of [1, 2, 3, 6, 7]) {
          for (const maxBreaksPerTurn of [1, 2, 3, 5, 9]) {
            const escalation = new Escalation(settings(escalate, resumeAfterBreak, maxFires, maxBreaksPerTurn))
            // Findings with a clean call now and then: settling restarts the ladder, never the cap.
            const reactions = Array.from({ length: 3 * maxFires + 4 }, (_, index) => {
              if (index % 4 === 3) escalation.settle()
              return escalation.react()
            })
            const label = `${escalate} resume=${resumeAfterBreak} maxFires=${maxFires} maxBreaksPerTurn=${maxBreaksPerTurn}`
            expect(reactions.slice(0, maxFires).every((reaction) => reaction.action !== 'stop'), label).toBe(true)
            expect(reactions.slice(maxFires).every((reaction) => reaction.action === 'stop' && !reaction.resume), label).toBe(true)
            for (const [index, reaction] of reactions.entries()) {
              if (reaction.resume) expect(escalate === 'cancel' && reaction.action === 'cancel' && index < maxFires - 1, label).toBe(true)
              if (escalate === 'warn' && index < maxFires) expect(reaction.action, label).toBe('warn')
              if (escalate !== 'cancel') expect(reaction.action, label).not.toBe('cancel')
            }
            // Under cancel the last reaction already ends the turn, never resumed.
            if (escalate === 'cancel') expect(reactions[maxFires - 1], label).toMatchObject({ action: 'cancel', resume: false })
          }
        }
      }
    }
  })

  it('a settled call starts the ladder again at level 1 but keeps counting reactions', () => {
    const escalation = new Escalation(settings('steer', false, 3))
    expect(show(run(escalation, 2))).toEqual(['1:remind', '2:replan'])
    escalation.settle()
    expect(show(run(escalation, 2))).toEqual(['1:remind', '2:stop'])
  })
})

/**
 * A model that falls into a loop on every call, whatever it is told: an endless stream (it never ends by
 * itself, so a call the plugin does not cut streams until the ceiling) that yields to the event loop now
 * and then so the test's timeout guard can fire. It counts the characters the consumer pulled, per call.
 */
const SHAPES = {
  /** Reasoning that loops; no tool call, so a silent cut would end the turn by itself. */
  'looping reasoning': { prefix: 'Plan: patch the parser.\n', side: 'reasoning', toolFirst: false },
  /** A whole tool call, then a reply that loops: the tool call runs and the turn goes on to another step. */
  'a tool call, then a looping reply': { prefix: 'Listed the files; now the fix.\n', side: 'text', toolFirst: true },
  /** Tool-call arguments that loop (a file written line after line): the cut call is closed and run as an invalid call. */
  'looping tool arguments': { prefix: '{"path":"notes.md","content":"Notes on the parser fix.\\n', side: 'tool', toolFirst: false },
} as const
type Shape = keyof typeof SHAPES

/** The chars a call streams before the ceiling stops it (far past every latency bound). */
const CEILING_CHARS = 400_000

/** The latency bounds the README's Config section states for these shapes (docs/detector.md#latency-targets). */
const LATENCY_BOUND = { reasoning: 2_500, text: 2_500, tool: 33_792 + 2_500 }

function loopingModel(shape: Shape) {
  const { prefix, side, toolFirst } = SHAPES[shape]
  const streamed: number[] = []
  const script: Script = (_options, call) => {
    streamed[call] = 0
    return (async function* () {
      const pool = ['OK.', 'Writing.', 'Let me write.', 'Go.', 'Executing.', 'Now.', 'Output.']
      const newline = side === 'tool' ? '\\n' : '\n'
      let index = 0
      if (toolFirst) {
        yield { type: 'block-start', index, blockType: 'tool-call' } as StreamChunk
        yield { type: 'tool-call-delta', index, id: `c${call}`, name: 'list_files', argumentsDelta: '{}' } as StreamChunk
        yield { type: 'block-end', index, block: { type: 'tool-call', id: `c${call}`, name: 'list_files', arguments: '{}' } } as StreamChunk
        index++
      }
      const id = `w${call}`
      yield { type: 'block-start', index, blockType: side === 'tool' ? 'tool-call' : side } as StreamChunk
      const delta = (text: string) => {
        streamed[call]! += text.length
        return side === 'tool'
          ? { type: 'tool-call-delta', index, id, name: 'list_files', argumentsDelta: text } as StreamChunk
          : { type: side === 'text' ? 'text-delta' : 'reasoning-delta', index, text } as StreamChunk
      }
      yield delta(prefix)
      let state = 7 + call
      let text = prefix
      for (let n = 1; streamed[call]! < CEILING_CHARS; n++) {
        state = (state * 1103515245 + 12345) % 2147483648
        const line = pool[state % pool.length]! + newline
        text += line
        yield delta(line)
        if (n % 64 === 0) await new Promise((resolve) => setImmediate(resolve))
      }
      // Only a call nobody cut gets here: end it legally so the test reports the overrun instead of hanging.
      const block = side === 'tool' ? { type: 'tool-call', id, name: 'list_files', arguments: `${text}"}` } : { type: side, text }
      if (side === 'tool') yield { type: 'tool-call-delta', index, id, name: 'list_files', argumentsDelta: '"}' } as StreamChunk
      yield { type: 'block-end', index, block } as StreamChunk
      yield { type: 'finish', reason: { kind: toolFirst || side === 'tool' ? 'tool-calls' : 'stop' } } as StreamChunk
    })()
  }
  return { script, streamed }
}

const listFiles = defineTool({
  name: 'list_files', description: 'List files.', parameters: {},
  output: { schema: { type: 'string' }, render: (_a: unknown, value: string) => [{ type: 'text' as const, text: value }] },
  async execute() { return 'a.ts b.ts' },
})

/** Resolves when the agent has settled idle, or rejects after `ms`: a turn that never ends fails the test. */
function settled(agent: any, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the turn did not end by itself within ${ms} ms`)), ms)
  })
  return Promise.race([quiet(agent), timeout]).finally(() => clearTimeout(timer))
}

describe('bounded in every setting: a model that loops on every call', () => {
  for (const shape of Object.keys(SHAPES) as Shape[]) {
    for (const escalate of ['warn', 'steer', 'cancel'] as const) {
      for (const resumeAfterBreak of [false, true]) {
        it(`${shape}, escalate ${escalate}, resumeAfterBreak ${resumeAfterBreak}: the user turn ends by itself, every call is cut within the bound`, async () => {
          const { script, streamed } = loopingModel(shape)
          const created = await createGuardedHost(script, { escalate, resumeAfterBreak })
          hosts.push(created)
          ;(created.ctx as any).tools.register(listFiles)
          const agent = created.createAgent()
          agent.followup(userText('fix the parser'))
          await settled(agent, 20_000)
          expect(agent.status).toBe('idle')

          const maxFires = 6
          const findings = eventsOf(agent, 'loop-breaker/break')
          // One finding per call, every call cut; at most maxFires reactions plus the final stop.
          expect(findings).toHaveLength(created.adapter.requests.length)
          expect(findings.length).toBeLessThanOrEqual(maxFires + 1)
          expect(findings.slice(maxFires).map((finding) => finding.action)).toEqual(findings.length > maxFires ? ['stop'] : [])
          // Every call was cut: the model stopped being read within the bound past the loop's start.
          const { prefix, side } = SHAPES[shape]
          for (const [call, chars] of streamed.entries()) {
            expect(chars - prefix.length, `call ${call}`).toBeLessThanOrEqual(LATENCY_BOUND[side])
          }
          expect(streamed.reduce((sum, chars) => sum + chars, 0)).toBeLessThanOrEqual((maxFires + 1) * (prefix.length + LATENCY_BOUND[side]))

          // The turn that ends the user turn: cancelled by the plugin, or completed by a cut with nothing left to run.
          const ends = turnEnds(agent)
          const last = ends.at(-1)
          if (escalate === 'warn' && !SHAPES[shape].toolFirst && side !== 'tool') {
            // warn never extends a turn: the first cut ends it, its notice waits for the user's next message.
            expect(findings.map((finding) => finding.action)).toEqual(['warn'])
            expect(ends).toEqual([{ kind: 'completed' }])
          } else {
            expect(last).toEqual(CANCELLED)
            expect(findings.at(-1).action).toBe(escalate === 'cancel' ? 'cancel' : 'stop')
          }
          // A resume follows only a cancel before the last reaction: one turn per resumed cancel, plus the first.
          const resumed = findings.filter((finding) => finding.action === 'cancel').length - 1
          expect(ends).toHaveLength(escalate === 'cancel' && resumeAfterBreak ? 1 + resumed : 1)
          expect(eventsOf(agent, 'loop-breaker/resume')).toHaveLength(escalate === 'cancel' && resumeAfterBreak ? resumed : 0)
        })
      }
    }
  }
})
