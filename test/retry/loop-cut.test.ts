import { describe, expect, it } from 'vitest'
import * as retryCoordinator from '../../src/retry/index.ts'
import { createHost } from '../support/host.ts'

// What the loop-breaker leaves after a cut: the repeated prefix, every open block closed, finish stop.
async function* cutLoop() {
  const loop = 'I will check the file again. '.repeat(40)
  yield { type: 'block-start', index: 0, blockType: 'reasoning' } as any
  yield { type: 'reasoning-delta', index: 0, text: loop } as any
  yield { type: 'block-end', index: 0, block: { type: 'reasoning', text: loop } } as any
  yield { type: 'block-start', index: 1, blockType: 'text' } as any
  yield { type: 'text-delta', index: 1, text: 'Checking' } as any
  yield { type: 'block-end', index: 1, block: { type: 'text', text: 'Checking' } } as any
  yield { type: 'finish', reason: { kind: 'stop' } } as any
}

describe('a stream the loop-breaker cut is a normal stop', () => {
  it('is never handed to the retry chain and never replayed', async () => {
    const host = await createHost(() => cutLoop(), { after: [[retryCoordinator, {}]] })
    const consulted: unknown[] = []
    host.ctx.on('agent/request-error', (payload, next) => { consulted.push(payload.failure); return next() }, { prepend: true })
    const agent = host.createAgent()
    await host.ask(agent, 'fix the bug')
    const events = agent.session.events
    expect(host.adapter.requests).toHaveLength(1)
    expect(consulted).toEqual([])
    expect(events.filter((event: any) => event.type.startsWith('llm/retry'))).toEqual([])
    expect(events.find((event: any) => event.type === 'turn/end')?.data.reason).toEqual({ kind: 'completed' })
    await host.dispose()
  })
})
