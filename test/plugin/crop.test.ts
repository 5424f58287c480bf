import { afterEach, describe, expect, it } from 'vitest'
import * as agentInvariant from '@deepseek-ai/dsh-agent/invariant'
import * as agentLoopInvariant from '@deepseek-ai/dsh-agent-loop/invariant'
import { createGuardedHost, eventsOf } from '../support/loop-breaker.ts'
import { READ_FILE, repeatedReads, requestShape } from '../support/read-steps.ts'

const hosts: Array<{ dispose(): Promise<void> }> = []
afterEach(async () => {
  for (const host of hosts.splice(0)) await host.dispose()
})

async function run(reads: string[], config: object, companions: Array<[any]> = [[agentInvariant]]) {
  const host = await createGuardedHost(repeatedReads(reads), config, { before: companions })
  hosts.push(host)
  ;(host.ctx as any).tools.register(READ_FILE)
  const agent = host.createAgent()
  await host.ask(agent, 'Find where the parser drops the last token.')
  return { host, agent }
}

describe('cropping a streak of identical steps from later requests (real rc.8 loop, grammar checked)', () => {
  it('leaves the repeated steps after the first out of the next and every later request, pairs intact, log untouched', async () => {
    const { host, agent } = await run(['parser.ts', 'parser.ts', 'parser.ts', 'lexer.ts'], { crop: true })
    const requests = host.adapter.requests
    expect(requests.map(requestShape)).toEqual([
      ['user'],
      ['user', 'read_file parser.ts', 'result'],
      ['user', 'read_file parser.ts', 'result', 'read_file parser.ts', 'result'],
      // The crop: steps 2 and 3 are gone; the StepJudge's notice (steered after step 3) stays.
      ['user', 'read_file parser.ts', 'result', 'notice'],
      ['user', 'read_file parser.ts', 'result', 'notice', 'read_file lexer.ts', 'result'],
    ])
    const messages = eventsOf(agent, 'assistant/message').map((data) => data.message)
    const results = eventsOf(agent, 'tool/result').map((data) => data.message)
    expect(eventsOf(agent, 'loop-breaker/crop')).toEqual([{
      turn: 1, step: 4, key: expect.stringMatching(/^[0-9a-f]{16}$/), anchorId: messages[0].id, steps: 2,
      messageIds: [messages[1].id, results[1].id, messages[2].id, results[2].id],
    }])
    // The log keeps every step; the model's view is derived from it unchanged.
    expect(agent.session.deriveMessages().filter((message: any) => message.role === 'assistant')).toHaveLength(5)
    // The prefix before the crop point is byte-identical in every request that reaches it, and the
    // cropped request is a byte-identical prefix of the next one (a stable KV-cache prefix).
    const beforeCrop = JSON.stringify(requests[1]!.messages)
    for (const request of requests.slice(2)) expect(JSON.stringify(request.messages.slice(0, 3))).toBe(beforeCrop)
    expect(JSON.stringify(requests[4]!.messages.slice(0, requests[3]!.messages.length))).toBe(JSON.stringify(requests[3]!.messages))
  })

  it('does not crop a repeated call whose result changed (that is progress, not a loop)', async () => {
    let reads = 0
    const host = await createGuardedHost(repeatedReads(['log.txt', 'log.txt', 'log.txt', 'log.txt']), { crop: true })
    hosts.push(host)
    ;(host.ctx as any).tools.register({ ...READ_FILE, execute: async () => `line ${++reads}` })
    const agent = host.createAgent()
    await host.ask(agent, 'Watch the log.')
    expect(eventsOf(agent, 'loop-breaker/crop')).toEqual([])
    expect(host.adapter.requests.at(-1)!.messages.filter((message: any) => message.role === 'assistant')).toHaveLength(4)
  })

  it('is off by default: DSH\'s agent-loop invariant requires every request to equal the log\'s derivation', async () => {
    const { host, agent } = await run(['parser.ts', 'parser.ts', 'parser.ts', 'lexer.ts'], {}, [[agentInvariant], [agentLoopInvariant]])
    expect(eventsOf(agent, 'loop-breaker/crop')).toEqual([])
    expect(host.adapter.requests.at(-1)!.messages.filter((message: any) => message.role === 'assistant')).toHaveLength(4)
    // Turned on, the invariant rejects the cropped request: what the default is chosen on.
    const cropped = await createGuardedHost(repeatedReads(['parser.ts', 'parser.ts', 'parser.ts', 'lexer.ts']), { crop: true }, {
      before: [[agentLoopInvariant]],
    })
    hosts.push(cropped)
    ;(cropped.ctx as any).tools.register(READ_FILE)
    const rejected = cropped.createAgent()
    await cropped.ask(rejected, 'Find where the parser drops the last token.').catch(() => {})
    const end = eventsOf(rejected, 'turn/end')[0]
    expect(end.reason.kind).toBe('error')
    expect(end.reason.error.message).toContain('diverges from the dispatch-time durable derivation')
  })

  it('never crops a repeat shorter than cropAfter', async () => {
    const { host, agent } = await run(['parser.ts', 'parser.ts', 'lexer.ts'], { crop: true })
    expect(eventsOf(agent, 'loop-breaker/crop')).toEqual([])
    expect(host.adapter.requests.at(-1)!.messages.filter((message: any) => message.role === 'assistant')).toHaveLength(3)
  })
})
