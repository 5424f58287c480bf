/**
 * Stream-grammar fuzz: random legal streams (interleaved block layouts, tool calls, usage, error and
 * aborted finishes) with random trip points go through the real `llm/stream` waterfall, where DSH's own
 * grammar checker (`dsh-llm/invariant`) sits outside the plugin and throws on any illegal chunk. A stream
 * that does not trip must come out identical; one that trips must be its prefix up to the tripping
 * delta, one `block-end` per open block (the looping one trimmed exactly at `loopStart`), and `finish stop`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { createUserMessage, markAgentLoopRequest } from '@deepseek-ai/dsh-llm'
import type { StreamChunk } from '@deepseek-ai/dsh-llm'
import type { Side, Trip } from '../../src/detector/index.ts'
import { trimMarker } from '../../src/plugin/index.ts'
import { createGuardedHost } from '../support/loop-breaker.ts'

const STREAMS = 2_000
const ALPHABET = ['a', 'b', ' ', '\n', '"', '\\', '{', '}', '好', '。', '😀', 'x', 'y', ',']

/** xorshift32: the stream's shape is a pure function of the seed fast-check hands us. */
function random(seed: number) {
  let state = seed || 1
  const next = () => {
    state ^= state << 13
    state ^= state >>> 17
    state ^= state << 5
    return (state >>> 0) / 4294967296
  }
  return { next, int: (n: number) => Math.floor(next() * n), pick: <T>(items: readonly T[]) => items[Math.floor(next() * items.length)]! }
}

interface Generated {
  chunks: StreamChunk[]
}

function generateStream(seed: number): Generated {
  const r = random(seed)
  const chunks: StreamChunk[] = []
  const blockCount = r.int(5)
  const open = new Map<number, { type: string; text: string; id: string }>()
  let opened = 0
  const ending = r.pick(['stop', 'stop', 'stop', 'tool-calls', 'max-tokens', 'error', 'aborted'] as const)
  const steps = 5 + r.int(60)
  for (let i = 0; i < steps; i++) {
    const choice = r.next()
    if ((choice < 0.15 || open.size === 0) && opened < blockCount) {
      const type = r.pick(['reasoning', 'text', 'tool-call'] as const)
      const index = opened++
      open.set(index, { type, text: '', id: `call-${seed}-${index}` })
      chunks.push({ type: 'block-start', index, blockType: type } as StreamChunk)
    } else if (choice < 0.25 && open.size > 0) {
      const [index, block] = r.pick([...open.entries()])
      open.delete(index)
      chunks.push(blockEnd(index, block))
    } else if (open.size > 0) {
      const [index, block] = r.pick([...open.entries()])
      let delta = ''
      for (let n = r.int(9); n > 0; n--) delta += r.pick(ALPHABET)
      block.text += delta
      if (block.type === 'tool-call') chunks.push({ type: 'tool-call-delta', index, id: block.id, name: 'tool', argumentsDelta: delta } as StreamChunk)
      else chunks.push({ type: block.type === 'text' ? 'text-delta' : 'reasoning-delta', index, text: delta } as StreamChunk)
    }
  }
  if (ending === 'error' || ending === 'aborted') {
    chunks.push({ type: 'finish', reason: { kind: ending, failure: { message: 'upstream failed', code: ending === 'error' ? 'SERVER' : 'ABORTED' } } } as StreamChunk)
    return { chunks }
  }
  for (const [index, block] of open) chunks.push(blockEnd(index, block))
  if (r.next() < 0.5) chunks.push({ type: 'usage', usage: { inputTokens: 10, outputTokens: 20 } } as StreamChunk)
  chunks.push({ type: 'finish', reason: { kind: ending } } as StreamChunk)
  return { chunks }
}

function blockEnd(index: number, block: { type: string; text: string; id: string }): StreamChunk {
  const closed = block.type === 'tool-call'
    ? { type: 'tool-call', id: block.id, name: 'tool', arguments: block.text }
    : { type: block.type, text: block.text }
  return { type: 'block-end', index, block: closed } as StreamChunk
}

function deltaOf(chunk: StreamChunk): { side: Side; text: string } | undefined {
  if (chunk.type === 'reasoning-delta') return { side: 'reasoning', text: chunk.text }
  if (chunk.type === 'text-delta') return { side: 'text', text: chunk.text }
  if (chunk.type === 'tool-call-delta') return { side: 'tool', text: chunk.argumentsDelta }
  return undefined
}

/** What the plugin must emit, computed character by character (independently of the plugin's ledger). */
function expectedCut(chunks: StreamChunk[], tripAt: number, loopStart: number): StreamChunk[] {
  const out = chunks.slice(0, tripAt + 1)
  const sideLength: Record<Side, number> = { reasoning: 0, text: 0, tool: 0 }
  const open = new Map<number, { type: string; id?: string; chars: Array<{ char: string; offset: number }> }>()
  const tripSide = deltaOf(chunks[tripAt]!)!.side
  for (const chunk of out) {
    if (chunk.type === 'block-start') open.set(chunk.index, { type: chunk.blockType, chars: [] })
    else if (chunk.type === 'block-end') open.delete(chunk.index)
    else {
      const delta = deltaOf(chunk)
      if (delta === undefined) continue
      const block = open.get((chunk as any).index)!
      if (chunk.type === 'tool-call-delta') block.id = chunk.id
      for (const char of delta.text) {
        // `char` may be a surrogate pair: offsets count UTF-16 units, as the detector does.
        for (let unit = 0; unit < char.length; unit++) block.chars.push({ char: char[unit]!, offset: sideLength[delta.side]++ })
      }
    }
  }
  for (const [index, block] of open) {
    const side: Side = block.type === 'tool-call' ? 'tool' : block.type as Side
    const kept = block.chars.filter((c) => side !== tripSide || c.offset < loopStart).map((c) => c.char).join('')
    const removed = block.chars.length - kept.length
    const text = removed > 0 || side === 'tool' ? kept + trimMarker('zh', removed) : kept
    out.push({
      type: 'block-end',
      index,
      block: side === 'tool' ? { type: 'tool-call', id: block.id ?? `call-${index}`, name: block.id ? 'tool' : '', arguments: text } : { type: block.type, text },
    } as StreamChunk)
  }
  out.push({ type: 'finish', reason: { kind: 'stop' } } as StreamChunk)
  return out
}

describe('stream-grammar fuzz through the real llm/stream waterfall', () => {
  let current: { chunks: StreamChunk[]; tripPush: number; loopStartShare: number; returned: boolean }
  let host: Awaited<ReturnType<typeof createGuardedHost>>
  let agent: any

  beforeAll(async () => {
    host = await createGuardedHost(() => {
      const script = current
      return (async function* () {
        try {
          yield* script.chunks
        } finally {
          script.returned = true
        }
      })()
    // The streams are sent straight through llm/stream, outside any agent turn, where a record has no turn
    // to belong to (the records' invariant refuses them): the journal is off, the grammar is the subject.
    }, { escalate: 'warn', maxFires: 1_000_000, journal: false }, {
      internals: {
        // Trips on the n-th push, on whatever side that push is, like the real detector (sticky).
        createDetector: () => {
          let pushes = 0
          let trip: Trip | undefined
          return {
            push(side: Side, delta: string) {
              if (trip !== undefined) return trip
              pushes++
              sideLengths[side] += delta.length
              if (pushes !== current.tripPush) return undefined
              const at = sideLengths[side]
              trip = { rule: 'cycle', side, at, repeatedChars: at, loopStart: Math.floor(at * current.loopStartShare) }
              return trip
            },
          }
        },
      },
    })
    agent = host.createAgent('fuzz')
  })
  afterAll(async () => host.dispose())
  const sideLengths: Record<Side, number> = { reasoning: 0, text: 0, tool: 0 }

  it(`keeps ${STREAMS} random streams legal, and the non-tripping ones identical`, async () => {
    let tripped = 0
    let untouched = 0
    await fc.assert(fc.asyncProperty(fc.integer({ min: 1, max: 2 ** 31 - 1 }), fc.nat(15), fc.double({ min: 0, max: 1, noNaN: true }), async (seed, tripPush, loopStartShare) => {
      const { chunks } = generateStream(seed)
      current = { chunks, tripPush, loopStartShare, returned: false }
      sideLengths.reasoning = sideLengths.text = sideLengths.tool = 0
      const out: StreamChunk[] = []
      const request = markAgentLoopRequest(Object.freeze({
        provider: 'scripted', model: 'scripted-model', sessionId: agent.session.id,
        messages: [createUserMessage({ content: [{ type: 'text', text: 'fuzz' }], source: { kind: 'user' } })],
      }) as any)
      for await (const chunk of (host.ctx as any).llm.stream(request)) out.push(chunk)

      // Which chunk carries the tripping push (empty deltas are not pushed), if any, before the finish.
      let pushes = 0
      let tripAt = -1
      for (const [index, chunk] of chunks.entries()) {
        if (chunk.type === 'finish') break
        const delta = deltaOf(chunk)
        if (delta === undefined || delta.text.length === 0) continue
        if (++pushes === tripPush) {
          tripAt = index
          break
        }
      }
      if (tripAt < 0) {
        untouched++
        expect(JSON.stringify(out)).toBe(JSON.stringify(chunks))
        return
      }
      tripped++
      const sideAt = chunks.slice(0, tripAt + 1).reduce((sum, chunk) => {
        const delta = deltaOf(chunk)
        return delta !== undefined && delta.side === deltaOf(chunks[tripAt]!)!.side ? sum + delta.text.length : sum
      }, 0)
      expect(out).toEqual(expectedCut(chunks, tripAt, Math.floor(sideAt * loopStartShare)))
      expect(current.returned).toBe(true)
    }), { numRuns: STREAMS })
    // Both halves of the property were exercised in earnest.
    expect(tripped).toBeGreaterThan(STREAMS / 4)
    expect(untouched).toBeGreaterThan(STREAMS / 10)
  }, 120_000)
})
