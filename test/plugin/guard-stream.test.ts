import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import type { StreamChunk } from '@deepseek-ai/dsh-llm'
import { DEFAULT_CONFIG, StreamDetector, stepSignature } from '../../src/detector/index.ts'
import { guardStream } from '../../src/plugin/guard-stream.ts'
import type { CompletedCall } from '../../src/plugin/completed-call.ts'
import { productiveProse } from '../fixtures/detector/loops.mjs'

/** A legal call: each block streamed in `deltaSize`-char deltas, then `finish {stop}`. */
async function* call(blocks: Array<{ type: 'reasoning' | 'text'; text: string } | { type: 'tool-call'; name: string; arguments: string }>, deltaSize = 64): AsyncGenerator<StreamChunk> {
  for (const [index, block] of blocks.entries()) {
    yield { type: 'block-start', index, blockType: block.type } as StreamChunk
    if (block.type === 'tool-call') {
      yield { type: 'tool-call-delta', index, id: `call-${index}`, name: block.name, argumentsDelta: block.arguments } as StreamChunk
      yield { type: 'block-end', index, block: { type: 'tool-call', id: `call-${index}`, name: block.name, arguments: block.arguments } } as StreamChunk
      continue
    }
    for (let i = 0; i < block.text.length; i += deltaSize) {
      yield { type: block.type === 'reasoning' ? 'reasoning-delta' : 'text-delta', index, text: block.text.slice(i, i + deltaSize) } as StreamChunk
    }
    yield { type: 'block-end', index, block: { type: block.type, text: block.text } } as StreamChunk
  }
  yield { type: 'finish', reason: { kind: 'stop' } } as StreamChunk
}

/** Streams `upstream` through the guard with the real detector; returns what the judges were handed. */
async function completedCall(upstream: AsyncIterable<StreamChunk>, reasoningTailChars = DEFAULT_CONFIG.callJudgeWindowChars) {
  let completed: CompletedCall | undefined
  const guarded = guardStream(upstream, {
    detector: new StreamDetector(),
    onTrip: () => ({ cut: false }),
    onComplete: (done) => {
      completed = structuredClone(done)
      return undefined
    },
    marker: (removed) => `[${removed} removed]`,
    reasoningTailChars,
    onFailure: (error) => {
      throw error
    },
  })
  for await (const _ of guarded) void _
  if (completed === undefined) throw new Error('onComplete did not run')
  return completed
}

describe('guardStream hands the judges a bounded summary of a completed call', () => {
  it('keeps the reasoning tail and its full length, the text head that fixes the step, and the tool calls, on a long call', async () => {
    const reasoning = [productiveProse(200_000, 'en', 3), productiveProse(120_000, 'zh', 4)]
    const text = [`\n\n  Let me   ${productiveProse(60_000, 'en', 5)}`, productiveProse(40_000, 'en', 6)]
    const tool = { type: 'tool-call' as const, name: 'edit_file', arguments: JSON.stringify({ path: 'a.ts', content: 'x' }) }
    const done = await completedCall(call([
      { type: 'reasoning', text: reasoning[0]! }, { type: 'text', text: text[0]! }, tool,
      { type: 'reasoning', text: reasoning[1]! }, { type: 'text', text: text[1]! },
    ]))
    const window = DEFAULT_CONFIG.callJudgeWindowChars
    expect(done.reasoningLength).toBe(reasoning[0]!.length + reasoning[1]!.length)
    expect(done.reasoning).toBe(reasoning.join('').slice(-window))
    expect(done.text.length).toBeLessThan(1024)
    expect(done.toolCalls).toEqual([{ name: tool.name, arguments: tool.arguments }])
    const full = { text: text.join(''), toolCalls: done.toolCalls }
    expect(stepSignature({ text: done.text, toolCalls: done.toolCalls })).toBe(stepSignature(full))
  })

  it('keeps a tail across reasoning blocks shorter than the window', async () => {
    const blocks = Array.from({ length: 5 }, (_, n) => productiveProse(700, 'en', 20 + n))
    const done = await completedCall(call(blocks.map((text) => ({ type: 'reasoning' as const, text }))), 1000)
    expect(done.reasoning).toBe(blocks.join('').slice(-1000))
    expect(done.reasoningLength).toBe(blocks.join('').length)
  })

  it('bounds the text head even when white space fills it', async () => {
    // Far more white space than the head holds, but under the divider span: white space alone past it is a loop symbol-run cuts.
    const text = `${' \n'.repeat(700)}Done: ${'\t '.repeat(700)}the patch is applied and the tests pass. ${productiveProse(3000, 'en', 9)}`
    // An odd delta size: consecutive deltas of the white space differ, so no identical-chunks trip.
    const done = await completedCall(call([{ type: 'text', text }], 4093))
    expect(done.text.length).toBeLessThanOrEqual(2 * 256 + 1)
    expect(stepSignature({ text: done.text, toolCalls: [] })).toBe(stepSignature({ text, toolCalls: [] }))
  })

  // Random text, not a loop: the detector does not trip on it, so every call completes.
  it('gives the StepJudge the identity and the judge the output verdict of the whole text, whatever the white space and blocks', async () => {
    const piece = fc.oneof(
      fc.constantFrom(' ', '\n', '\t', '\u3000', '  \n ', 'Let me ', "I'll ", 'ΣΑΣ ', 'İ', 'ς'),
      fc.string({ minLength: 1, maxLength: 40 }),
      fc.string({ minLength: 200, maxLength: 400 }),
    )
    const texts = fc.array(fc.array(piece, { maxLength: 40 }).map((pieces) => pieces.join('')), { minLength: 1, maxLength: 4 })
    await fc.assert(fc.asyncProperty(texts, async (blocks) => {
      const done = await completedCall(call(blocks.map((text) => ({ type: 'text' as const, text })), 7))
      const whole = blocks.join('')
      expect(stepSignature({ text: done.text, toolCalls: [] })).toBe(stepSignature({ text: whole, toolCalls: [] }))
      expect(done.text.trim() !== '').toBe(whole.trim() !== '')
    }), { numRuns: 300 })
  })
})

describe('guardStream closes a cut block with exactly the text streamed before the loop', () => {
  it('keeps every UTF-16 code unit up to loopStart on a 40 K block, surrogate pairs split across deltas included', async () => {
    // Emoji (surrogate pairs) every 97 chars, one lone high surrogate, 7-unit deltas that split pairs.
    let reasoning = ''
    for (let i = 0; reasoning.length < 40_000; i++) reasoning += `${productiveProse(95, 'en', i).slice(0, 95)}😀`
    reasoning = `${reasoning.slice(0, 12_345)}\ud800${reasoning.slice(12_345)}`
    const tripAt = 30_000
    // The loop starts on a pair's low half: the kept head ends on a lone high surrogate, which must stay
    // as streamed (a decoder would turn it into U+FFFD).
    const loopStart = [...Array(200).keys()].map((i) => 21_000 + i).find((i) => (reasoning.charCodeAt(i) & 0xfc00) === 0xdc00)!
    const detector = {
      streamed: 0,
      push(side: 'reasoning' | 'text' | 'tool', delta: string) {
        this.streamed += delta.length
        return this.streamed < tripAt ? undefined : { rule: 'cycle' as const, side, at: this.streamed, repeatedChars: this.streamed - loopStart, loopStart }
      },
    }
    const chunks: StreamChunk[] = []
    const guarded = guardStream(call([{ type: 'reasoning', text: reasoning }], 7), {
      detector,
      onTrip: () => ({ cut: true, trimHistory: true, afterCut: () => {} }),
      onComplete: () => undefined,
      marker: (removed) => `[${removed} removed]`,
      reasoningTailChars: DEFAULT_CONFIG.callJudgeWindowChars,
      onFailure: (error) => {
        throw error
      },
    })
    for await (const chunk of guarded) chunks.push(chunk)
    const streamed = Math.ceil(tripAt / 7) * 7
    const end = chunks.find((chunk) => chunk.type === 'block-end') as Extract<StreamChunk, { type: 'block-end' }>
    expect(end.block).toEqual({ type: 'reasoning', text: `${reasoning.slice(0, loopStart)}[${streamed - loopStart} removed]` })
    expect(chunks.at(-1)).toEqual({ type: 'finish', reason: { kind: 'stop' } })
  })
})
