/**
 * The plugin with the real rc.8 `dsh-session-persistence-jsonl` (Node 22): what it records is read back
 * from the `session.jsonl.zstd` file by this package's session reader, and a replay of the recorded
 * deltas through the same detector lands on the same rule and offset.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import * as detector from '../../src/detector/index.ts'
import { SessionReplay, readSession } from '../../src/session/index.ts'
import { say, textAnswer } from '../support/host.ts'
import type { Script } from '../support/host.ts'
import { createPersistentHost } from '../support/persistence.ts'
import { STREAM_GRAMMAR, cyclingText, eventsOf, loopBreakerPlugin, phrasePoolReasoning, streamBlocks, toDeltas } from '../support/loop-breaker.ts'
import type { BlockScript } from '../support/loop-breaker.ts'
import type { Config } from '../../src/plugin/index.ts'

const disposers: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const dispose of disposers.splice(0).reverse()) await dispose()
})

const LOOP = phrasePoolReasoning('Plan: patch the parser.')


async function persistentHost(script: Script, config: Config = {}, root?: string) {
  const host = await createPersistentHost(script, { root, before: STREAM_GRAMMAR, after: [[loopBreakerPlugin(), config]] })
  disposers.push(() => host.dispose())
  return host
}

describe('loop-breaker with real session persistence (Node 22)', () => {
  it('writes every reaction to session.jsonl.zstd, next to the raw chunks, and a replay agrees', async () => {
    const host = await persistentHost((_options, call) => call < 3 ? streamBlocks([{ type: 'reasoning', deltas: toDeltas(LOOP) }]) : textAnswer('ok'))
    const agent = host.createAgent('persisted')
    await say(agent, 'fix the parser')
    const live = eventsOf(agent, 'loop-breaker/break')
    expect(live.map((event) => event.action)).toEqual(['remind', 'replan', 'cancel'])

    const log = await readSession(await host.sessionFile(agent))
    expect(log.issues).toEqual([])
    const recorded = log.calls.flatMap((call) => call.recorded).map((event) => event.data)
    expect(recorded).toEqual(live)

    const replay = new SessionReplay(detector)
    for (const [index, call] of log.calls.entries()) {
      // The raw deltas are all there: more than the trimmed block the model was shown.
      const raw = call.deltas.map((delta) => delta.text).join('')
      expect(LOOP.startsWith(raw)).toBe(true)
      expect(raw.length).toBeGreaterThanOrEqual(live[index].at)
      expect(replay.call(call).break).toEqual({ rule: live[index].rule, side: live[index].side, at: live[index].at, repeatedChars: live[index].repeatedChars })
    }
  })

  it.each([
    ['a visible-text cycle', [{ type: 'text', deltas: toDeltas(cyclingText('Result: ', 'the same sentence once more. ')) }], 'loop-breaker/break'],
    ['a half-streamed tool call', [{ type: 'tool-call', id: 'c1', name: 'write_file', deltas: toDeltas(`{"path":"a.md","content":"${'- [ ] again\\n'.repeat(600)}`, 16) }], 'loop-breaker/break'],
    ['a repeated step', [{ type: 'tool-call', id: 'c1', name: 'write_file', deltas: ['{"path":"a.md"}'] }], 'loop-breaker/stall'],
  ] as Array<[string, BlockScript[], string]>)('records %s in the log file as it happened live', async (_name, blocks, type) => {
    const host = await persistentHost((_options, call) => call < 3 ? streamBlocks(blocks) : textAnswer('done'))
    const agent = host.createAgent()
    await say(agent, 'go')
    const live = eventsOf(agent, type)
    expect(live.length).toBeGreaterThan(0)
    const log = await readSession(await host.sessionFile(agent))
    const recorded = [...log.calls.flatMap((call) => call.recorded), ...log.events].filter((event) => event.type === type)
    expect(recorded.map((event) => event.data)).toEqual(live)
  })

  it('resumes with rc.8 after a cut, with the journal on (default) and off, and the records survive the round trip', async () => {
    const script: Script = (_options, call) => call === 0 ? streamBlocks([{ type: 'reasoning', deltas: toDeltas(LOOP) }]) : textAnswer(`answer ${call}`)
    const root = await mkdtemp(join(tmpdir(), 'loop-breaker-resume-'))
    disposers.push(() => rm(root, { recursive: true, force: true }))
    for (const journal of [true, false]) {
      const first = await persistentHost(script, { journal }, root)
      const agent = first.createAgent(`resume-${journal}`)
      await say(agent, 'fix the parser')
      await first.sessionFile(agent)
      const live = eventsOf(agent, 'loop-breaker/break')
      expect(live).toHaveLength(journal ? 1 : 0)
      await first.dispose()
      disposers.pop()

      const again = await persistentHost(() => textAnswer('resumed answer'), { journal }, root)
      const { agent: resumed } = await (again.ctx as any).agentLoop.resume(again.ctx, { resumeSessionId: `resume-${journal}`, agentOptions: { provider: 'scripted', model: 'scripted-model' } })
      // DSH loaded every record back, in the form it knows (hook/result), with nothing lost.
      expect(eventsOf(resumed, 'loop-breaker/break')).toEqual(live)
      await say(resumed, 'continue')
      expect(eventsOf(resumed, 'assistant/message').at(-1).message.content[0].text).toBe('resumed answer')
      // The notice the plugin sent is an ordinary user message: it survived the round trip.
      const notices = eventsOf(resumed, 'user/message').filter((message) => message.source?.plugin === 'loop-breaker')
      expect(notices).toHaveLength(1)
    }
  })
})
