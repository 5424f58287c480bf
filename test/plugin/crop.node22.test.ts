/**
 * A crop survives a resume with the real rc.8 persistence (Node 22): the resumed session reads the crop
 * record back from `session.jsonl.zstd` and builds the same request, byte for byte, as the live one.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { say, textAnswer } from '../support/host.ts'
import type { Script } from '../support/host.ts'
import { createPersistentHost } from '../support/persistence.ts'
import { STREAM_GRAMMAR, eventsOf, loopBreakerPlugin } from '../support/loop-breaker.ts'
import { READ_FILE, repeatedReads, requestShape } from '../support/read-steps.ts'
import { streamBlocks } from '../support/loop-breaker.ts'
import * as detector from '../../src/detector/index.ts'
import { analyzeFile } from '../../src/session/analyze.ts'

const disposers: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const dispose of disposers.splice(0).reverse()) await dispose()
})

async function persistentHost(script: Script, root: string) {
  const host = await createPersistentHost(script, { root, before: STREAM_GRAMMAR, after: [[loopBreakerPlugin(), { crop: true }]] })
  disposers.push(() => host.dispose())
  ;(host.ctx as any).tools.register(READ_FILE)
  return host
}


describe('crop with real session persistence (Node 22)', () => {
  it('rebuilds the same crop after a resume: the resumed request equals the live one plus the new turn', async () => {
    const root = await mkdtemp(join(tmpdir(), 'loop-breaker-crop-'))
    disposers.push(() => rm(root, { recursive: true, force: true }))
    const first = await persistentHost(repeatedReads(['parser.ts', 'parser.ts', 'parser.ts']), root)
    const agent = first.createAgent('crop-resume')
    await say(agent, 'Find where the parser drops the last token.')
    const live = first.adapter.requests.at(-1)!
    expect(requestShape(live)).toEqual(['user', 'read_file parser.ts', 'result', 'notice'])
    const crops = eventsOf(agent, 'loop-breaker/crop')
    expect(crops).toHaveLength(1)
    await first.sessionFile(agent)
    await first.dispose()
    disposers.pop()

    const again = await persistentHost(() => textAnswer('Resumed: it is in lexer.ts.'), root)
    const { agent: resumed } = await (again.ctx as any).agentLoop.resume(again.ctx, { resumeSessionId: 'crop-resume', agentOptions: { provider: 'scripted', model: 'scripted-model' } })
    expect(eventsOf(resumed, 'loop-breaker/crop')).toEqual(crops)
    await say(resumed, 'And the fix?')
    const request = again.adapter.requests[0]!
    expect(requestShape(request)).toEqual(['user', 'read_file parser.ts', 'result', 'notice', 'text', 'user'])
    // The live request is a byte-identical prefix of the resumed one: same crop, same KV-cache prefix.
    expect(JSON.stringify(request.messages.slice(0, live.messages.length))).toBe(JSON.stringify(live.messages))
    // The log still holds every step: three reads and two answers.
    expect(resumed.session.deriveMessages().filter((message: any) => message.role === 'assistant')).toHaveLength(5)
  })

  it('the analyzer reports the continuation and the crop on the call that made them', async () => {
    const root = await mkdtemp(join(tmpdir(), 'loop-breaker-crop-'))
    disposers.push(() => rm(root, { recursive: true, force: true }))
    const reads = repeatedReads(['parser.ts', 'parser.ts', 'parser.ts'])
    const host = await persistentHost((options, call) => call < 3
      ? reads(options, call)
      : streamBlocks([{ type: 'text', deltas: [call === 3 ? 'The parser drops the last ' : 'token in lexer.ts.'] }], call === 3 ? { finish: 'max-tokens' } : {}), root)
    const agent = host.createAgent('crop-analyze')
    await say(agent, 'Find where the parser drops the last token.')
    const analysis = await analyzeFile(await host.sessionFile(agent), detector, [{}])
    expect(analysis.errors).toEqual([])
    const described = analysis.calls.map((call) => [`${call.turn}.${call.step}`, call.finish, call.continuation, call.crop])
    expect(described).toEqual([
      ['1.1', 'tool-calls', null, null],
      ['1.2', 'tool-calls', null, null],
      ['1.3', 'tool-calls', null, null],
      // The recorded finish is the legal one the plugin handed the loop in place of max-tokens.
      ['1.4', 'stop', { action: 'continue', count: 1, cutToolCall: null }, { steps: 2, messages: 4 }],
      ['1.5', 'stop', null, null],
    ])
    // The continuation notice after 1.4 is no trace of a cut or a stall: replay and records agree.
    expect(analysis.calls.map((call) => call.comparison)).toEqual([null, null, null, null, null])
  })
})
