/**
 * A live edit of the plugin's config, the way DSH applies one: on a change of the profile's patch, the
 * Cordis loader calls `fiber.update(config)` on the row's fiber (cordis-plugin-loader, `Entry._patchContext`).
 * Cordis validates the new config against the schema first and throws before anything restarts, so a bad
 * value leaves the running plugin on its previous config (and the plugin says so in one line, since rc.8
 * prints no log line); a config that passes restarts the plugin with it.
 * The end-to-end version against the real `dsh --profile web` is test/e2e/live-config.sh.
 */
import { afterEach, describe, expect, it } from 'vitest'
import type { StreamChunk } from '@deepseek-ai/dsh-llm'
import { createHost, textAnswer } from '../support/host.ts'
import type { Script } from '../support/host.ts'
import { STREAM_GRAMMAR, loopBreakerPlugin, toDeltas } from '../support/loop-breaker.ts'

const hosts: Array<{ dispose(): Promise<void> }> = []
afterEach(async () => {
  for (const host of hosts.splice(0)) await host.dispose()
})

/** Cordis' FiberState.ACTIVE (a const enum, no runtime object). */
const ACTIVE = 2
const PARAGRAPH = 'The parser reads one token, then checks the next token, then reads it again. '
const LOOP = 'Plan: fix the off-by-one in parser.ts.\n' + PARAGRAPH.repeat(60)

/**
 * Every session's first call streams the looping answer; later calls answer normally. `pulled` gets, per
 * session, the characters the consumer took before it stopped reading: where the live plugin cut.
 */
function loopingScript(pulled: Map<string, number>): Script {
  return (options) => {
    const session = String(options.sessionId)
    if (pulled.has(session)) return textAnswer('Continuing with the task.')
    pulled.set(session, 0)
    return (async function* (): AsyncIterable<StreamChunk> {
      yield { type: 'block-start', index: 0, blockType: 'text' } as StreamChunk
      for (const delta of toDeltas(LOOP)) {
        pulled.set(session, pulled.get(session)! + delta.length)
        yield { type: 'text-delta', index: 0, text: delta } as StreamChunk
      }
      yield { type: 'block-end', index: 0, block: { type: 'text', text: LOOP } } as StreamChunk
      yield { type: 'finish', reason: { kind: 'stop' } } as StreamChunk
    })()
  }
}

async function liveHost(config: object) {
  const pulled = new Map<string, number>()
  const host = await createHost(loopingScript(pulled), { before: STREAM_GRAMMAR })
  hosts.push(host)
  const lines: string[] = []
  const fiber = (host.ctx as any).plugin(loopBreakerPlugin({ writeLine: (line) => lines.push(line) }), config).ctx.fiber
  await fiber.await()
  let sessions = 0
  /** Where the running plugin cuts the loop in a new session. */
  const cutAt = async () => {
    const session = `live-${++sessions}`
    await host.ask(host.createAgent(session), 'fix the parser')
    return pulled.get(session)!
  }
  /** A live edit as DSH's loader makes it: `Fiber.update`, and a rejection logged at error (`EntryGroup.update`). */
  const edit = (next: object): unknown => {
    try {
      fiber.update(next, true)
    } catch (error) {
      ;(host.ctx as any).logger('loader').error(error)
      return error
    }
    return undefined
  }
  return { fiber, cutAt, edit, lines }
}

describe('a live edit of the loop-breaker config (Fiber.update, as the DSH loader applies a patch change)', () => {
  it('rejects a bad value before restarting: the running plugin keeps cutting with its previous config', async () => {
    const unhandled: unknown[] = []
    const onUnhandled = (reason: unknown) => unhandled.push(reason)
    process.on('unhandledRejection', onUnhandled)
    try {
      const { fiber, cutAt, edit, lines } = await liveHost({ text: 'verbatim' })
      const before = await cutAt()
      expect(before).toBeLessThan(LOOP.length)

      for (const bad of [{ text: 'exact' }, { txet: 'off' }, { escalate: 'explode' }, { maxFires: -1 }]) {
        const rejection = edit(bad) as Error
        expect(rejection.message).toMatch(/^invalid config:\n {2}- loop-breaker: \S+ (must be|is not a setting)/)
        // The user's one line on stderr, since rc.8 prints no log line.
        expect(lines.at(-1)).toBe(`${rejection.message.split('\n')[1]!.slice(4)}; the edit is not applied, loop-breaker keeps running with its previous settings`)
        expect(fiber.state).toBe(ACTIVE)
        expect(fiber.config.text).toBe('verbatim')
        await fiber.await()
        expect(await cutAt()).toBe(before)
      }
      await new Promise((resolve) => setImmediate(resolve))
      // What dsh's `installFailLoud` would have turned into "fatal load failure" and exit 1.
      expect(unhandled).toEqual([])
    } finally {
      process.off('unhandledRejection', onUnhandled)
    }
  })

  it('twenty different mistakes in a row, alternating kinds: twenty lines, each once', async () => {
    const { fiber, edit, lines } = await liveHost({ text: 'verbatim' })
    const kept = '; the edit is not applied, loop-breaker keeps running with its previous settings'
    const expected: string[] = []
    for (let i = 1; i <= 20; i++) {
      const [bad, line] = i % 2 === 1
        ? [{ maxFires: -i }, `loop-breaker: maxFires must be an integer >= 1 (got -${i})`]
        : [{ maxFirs: i }, `loop-breaker: maxFirs is not a setting, did you mean maxFires? (got maxFirs: ${i})`]
      expect(edit(bad)).toBeInstanceOf(Error)
      expected.push(line + kept)
    }
    expect(lines.filter((line) => line.endsWith(kept))).toEqual(expected)
    expect(fiber.state).toBe(ACTIVE)
    expect(fiber.config.text).toBe('verbatim')
  })

  it('applies a corrected value: the plugin restarts and cuts where the new config says', async () => {
    const { fiber, cutAt, edit } = await liveHost({ text: 'off' })
    expect(await cutAt()).toBe(LOOP.length)
    expect(edit({ txet: 'full' })).toMatchObject({ message: expect.stringContaining('did you mean text?') })
    expect(edit({ text: 'full' })).toBeUndefined()
    await fiber.await()
    expect(fiber.state).toBe(ACTIVE)
    expect(fiber.config.text).toBe('full')
    expect(await cutAt()).toBeLessThan(LOOP.length)
  })
})
