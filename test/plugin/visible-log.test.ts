import { afterEach, describe, expect, it } from 'vitest'
import { textAnswer } from '../support/host.ts'
import { createGuardedHost, phrasePoolReasoning, streamBlocks, toDeltas } from '../support/loop-breaker.ts'

const hosts: Array<{ dispose(): Promise<void> }> = []
afterEach(async () => {
  for (const host of hosts.splice(0)) await host.dispose()
})

describe('the visible line (rc.8 composes no console exporter, the plugin exports its own logger)', () => {
  it('writes one line per reaction, and nothing from other loggers or below info', async () => {
    const written: string[] = []
    const script = (_options: unknown, call: number) =>
      call === 0 ? streamBlocks([{ type: 'reasoning', deltas: toDeltas(phrasePoolReasoning('Plan: patch.')) }]) : textAnswer('ok')
    const host = await createGuardedHost(script, {}, { internals: { writeLine: (line) => written.push(line) } })
    hosts.push(host)
    const agent = host.createAgent()
    await host.ask(agent, 'Fix the off-by-one in src/parser.ts, then run the tests.')
    expect(written).toEqual([expect.stringMatching(/^\[loop-breaker\] cut a repetition loop in the reasoning \(phrase-pool, [\d,]+ repeated characters\) at turn 1 step 1; /)])

    const ctx = host.ctx as any
    ctx.logger('other-plugin').info('not ours')
    ctx.logger('other-plugin').error('not ours either')
    ctx.logger('loop-breaker').warn('above the default threshold')
    ctx.logger('loop-breaker').info('formatted %s', 'like Cordis')
    expect(written.slice(1)).toEqual(['formatted like Cordis'])
  })

  it('stops writing once the plugin is disposed', async () => {
    const written: string[] = []
    const host = await createGuardedHost(() => textAnswer('ok'), {}, { internals: { writeLine: (line) => written.push(line) } })
    const ctx = host.ctx as any
    await host.dispose()
    ctx.logger('loop-breaker').info('after disposal')
    expect(written).toEqual([])
  })
})
