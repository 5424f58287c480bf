import { describe, expect, it } from 'vitest'
import { createHost, textAnswer } from '../support/host.ts'

describe('test host', () => {
  it('runs a real agent loop turn with the scripted adapter', async () => {
    const host = await createHost(() => textAnswer('hello there', 'thinking'))
    const agent = host.createAgent()
    await host.ask(agent, 'hi')
    const types = agent.session.events.map((e: any) => e.type)
    expect(types).toContain('assistant/message')
    expect(types).toContain('turn/end')
    await host.dispose()
  })
})
