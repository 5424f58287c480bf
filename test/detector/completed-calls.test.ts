import { afterEach, describe, expect, it, vi } from 'vitest'
import * as detector from '../../src/detector/index.ts'
import { CompletedCallJudges, isJudgedFinish } from '../../src/detector/index.ts'
import { SessionReplay } from '../../src/session/index.ts'
import type { SessionCall } from '../../src/session/index.ts'
import { textAnswer } from '../support/host.ts'
import { createGuardedHost, eventsOf } from '../support/loop-breaker.ts'

const hosts: Array<{ dispose(): Promise<void> }> = []
afterEach(async () => {
  vi.restoreAllMocks()
  for (const host of hosts.splice(0)) await host.dispose()
})

const LONG = 'Weighing the parser rewrite against a patch to the tokenizer once more. '.repeat(40)
const edit = { name: 'edit_file', arguments: '{"path":"src/parser.ts","change":"fix the bracket counter"}' }

describe('the completed-call protocol', () => {
  it('judges a call that ended by itself, never one that failed or never finished', () => {
    expect(['stop', 'tool-calls', 'max-tokens'].map(isJudgedFinish)).toEqual([true, true, true])
    expect(['error', 'aborted', undefined].map(isJudgedFinish)).toEqual([false, false, false])
  })

  it('lets the cross-call judge win, counts a tool call or non-blank text as output, and resets only the step judge when the user speaks', () => {
    const judges = new CompletedCallJudges({ maxThinkingSteps: 2, maxRepeatedSteps: 2 })
    // Long reasoning, blank text, no tool call: no output, twice.
    expect(judges.observe({ reasoning: LONG, text: '   ', toolCalls: [] })).toBeUndefined()
    expect(judges.observe({ reasoning: LONG, text: '  ', toolCalls: [] })).toEqual({ judge: 'call', reason: 'repeated-material' })

    const steps = new CompletedCallJudges({ maxRepeatedSteps: 2 })
    expect(steps.observe({ reasoning: '', text: '', toolCalls: [edit], previousResults: ['failed: no match'] })).toBeUndefined()
    steps.userSpoke()
    // The user spoke in between: the repeat starts counting again.
    expect(steps.observe({ reasoning: '', text: '', toolCalls: [edit], previousResults: ['failed: no match'] })).toBeUndefined()
    expect(steps.observe({ reasoning: '', text: '', toolCalls: [edit], previousResults: ['failed: no match'] })).toEqual({ judge: 'step', reason: 'repeated-step' })
  })

  it('is the one home of the protocol: changing it changes the live plugin and the offline replay alike', async () => {
    vi.spyOn(CompletedCallJudges.prototype, 'observe').mockReturnValue({ judge: 'step', reason: 'step-cycle' })
    const host = await createGuardedHost(() => textAnswer('done'))
    hosts.push(host)
    const agent = host.createAgent()
    await host.ask(agent, 'go')
    // Every judged call is now a finding: the plugin climbs its ladder on them, each one the protocol's.
    const stalls = eventsOf(agent, 'loop-breaker/stall')
    expect(stalls.length).toBeGreaterThan(0)
    expect(stalls.every((stall) => stall.judge === 'step' && stall.reason === 'step-cycle')).toBe(true)

    const call: SessionCall = {
      turn: 1, step: 1, attempt: 1, deltas: [{ side: 'text', text: 'done' }], reasoningChars: 0, textChars: 4, toolChars: 0,
      toolCalls: [], finish: { kind: 'stop' }, hasMessage: true, recorded: [], trimmed: undefined, notices: [], previousResults: [],
    } as SessionCall
    expect(new SessionReplay(detector).call(call).stall).toBe('step-cycle')
  })
})
