import { afterEach, describe, expect, it } from 'vitest'
import { journalEvent } from '../src/journal.ts'
import { textAnswer } from './support/host.ts'
import { createGuardedHost } from './support/loop-breaker.ts'

const hosts: Array<{ dispose(): Promise<void> }> = []
afterEach(async () => {
  for (const host of hosts.splice(0)) await host.dispose()
})

const BREAK = { turn: 1, step: 1, rule: 'cycle', side: 'text', at: 500, repeatedChars: 400, level: 1, action: 'remind' }

/** A session whose turn 1 is over, with the records' invariant mounted (through the guarded host). */
async function idleAgent() {
  const host = await createGuardedHost(() => textAnswer('ok'))
  hosts.push(host)
  const agent = host.createAgent()
  await host.ask(agent, 'go')
  return agent
}

describe('dsh-loop-breaker/invariant', () => {
  it('refuses the old loop-breaker/* event form, which rc.8 cannot load', async () => {
    const agent = await idleAgent()
    expect(() => agent.session.append('loop-breaker/break', BREAK)).toThrow(/loop-breaker\/break is the old record form DSH refuses to load/)
  })

  it('refuses a record outside an open turn', async () => {
    const agent = await idleAgent()
    expect(() => agent.session.append('hook/result', journalEvent('break', 'remind', BREAK))).toThrow(/must be appended inside an open turn/)
  })

  it("refuses a record whose data the analyzer could not read, and one whose decision is not its action", async () => {
    const host = await createGuardedHost(() => textAnswer('ok'))
    hosts.push(host)
    const agent = host.createAgent()
    const checks: Array<[object, RegExp]> = [
      [journalEvent('break', 'remind', { ...BREAK, side: 'answer' }), /record.side must be reasoning, text or tool/],
      [journalEvent('break', 'remind', { ...BREAK, repeatedChars: 501 }), /record.repeatedChars must be an integer from 0 through record.at/],
      [journalEvent('break', 'cancel', BREAK), /decision "cancel" must be its record.action "remind"/],
      [journalEvent('stall', 'remind', { turn: 1, step: 1, judge: 'turn', reason: 'repeated-step', level: 1, action: 'remind' }), /record.judge must be call or step/],
      [{ ...journalEvent('break', 'remind', BREAK), turn: 2 }, /names turn 2 but its record turn 1/],
      [{ ...journalEvent('break', 'remind', BREAK), point: 'loop-breaker/explode' }, /must name a known record/],
    ]
    const failures: string[] = []
    // Append while turn 1 is open: from inside the step, as the plugin does.
    ;(host.ctx as any).on('agent/pre-step', async (_payload: unknown, next: () => Promise<unknown>) => {
      for (const [data, message] of checks) {
        try {
          agent.session.append('hook/result', data)
          failures.push(`accepted ${JSON.stringify(data)}`)
        } catch (error) {
          if (!message.test(String(error))) failures.push(`${String(error)} does not match ${message}`)
        }
      }
      agent.session.append('hook/result', journalEvent('break', 'remind', BREAK))
      return next()
    })
    await host.ask(agent, 'go')
    expect(failures).toEqual([])
  })

  it("leaves other hooks' results alone", async () => {
    const agent = await idleAgent()
    expect(() => agent.session.append('hook/result', { turn: 9, point: 'PreToolUse', handlerId: 'claude-code:PreToolUse:1', decision: 'pass', durationMs: 3 } as any)).not.toThrow()
  })
})
