/**
 * One number per cut: the log line, the trim marker, the notice (text and summary), the durable record
 * and the analyzer's replay all give the count of repeated characters the cut took out of what the model
 * reads next. Real agent loop, stream grammar checked, on several rules, sides and delta sizes.
 */
import { afterEach, describe, expect, it } from 'vitest'
import type { StreamChunk } from '@deepseek-ai/dsh-llm'
import { textAnswer } from '../support/host.ts'
import type { Script } from '../support/host.ts'
import { createGuardedHost, cyclingText, eventsOf, lastMessageText, phrasePoolReasoning, streamBlocks, toDeltas } from '../support/loop-breaker.ts'
import type { BlockScript } from '../support/loop-breaker.ts'
import { counterLoop, paraphrasePoolLoop, punctuationRunLoop } from '../fixtures/detector/shapes.mjs'
import * as detector from '../../src/detector/index.ts'
import { SessionReplay } from '../../src/session/replay.ts'
import type { Delta } from '../../src/session/types.ts'
import { readTrimMarker } from '../../src/trim-marker.ts'

const hosts: Array<{ dispose(): Promise<void> }> = []
afterEach(async () => {
  for (const host of hosts.splice(0)) await host.dispose()
})

type Side = 'reasoning' | 'text' | 'tool'

/** Runs one user turn whose first call streams `blocks`; returns what the user, the model and the log got. */
async function cut(blocks: BlockScript[], config = {}) {
  const lines: string[] = []
  const script: Script = (_options, call) => call === 0 ? streamBlocks(blocks) : textAnswer('Continuing with the task.')
  const host = await createGuardedHost(script, config, { internals: { writeLine: (line) => lines.push(line) } })
  hosts.push(host)
  const agent = host.createAgent()
  await host.ask(agent, 'fix the parser')
  const [record] = eventsOf(agent, 'loop-breaker/break')
  const chunks: StreamChunk[] = eventsOf(agent, 'assistant/chunk').filter((data) => data.turn === 1 && data.step === 1).map((data) => data.chunk)
  const deltas: Delta[] = []
  for (const chunk of chunks as any[]) {
    if (chunk.type === 'reasoning-delta') deltas.push({ side: 'reasoning', text: chunk.text, block: chunk.index })
    if (chunk.type === 'text-delta') deltas.push({ side: 'text', text: chunk.text, block: chunk.index })
    if (chunk.type === 'tool-call-delta') deltas.push({ side: 'tool', text: chunk.argumentsDelta, block: chunk.index })
  }
  const closing = chunks.filter((chunk) => chunk.type === 'block-end').map((chunk: any) => chunk.block)
  return { host, lines, record, deltas, closing }
}

/** The closing block of `side` the cut trimmed (the last one of that side). */
function closedText(closing: any[], side: Side): string {
  const type = side === 'tool' ? 'tool-call' : side
  const block = closing.filter((candidate) => candidate.type === type).at(-1)
  return side === 'tool' ? block.arguments : block.text
}

/** The detector's own trip over the logged deltas (what the plugin's numbers were before they agreed). */
function detectorTrip(deltas: Delta[]) {
  const stream = new detector.StreamDetector()
  for (const delta of deltas) {
    const trip = stream.push(delta.side, delta.text)
    if (trip !== undefined) return trip
  }
  return undefined
}

const PARAGRAPH = 'The parser now handles nested brackets correctly, and every test in the suite passes. '
const CASES: Array<{ name: string; blocks: () => BlockScript[] }> = [
  { name: 'phrase pool in reasoning, 7-char deltas', blocks: () => [{ type: 'reasoning', deltas: toDeltas(phrasePoolReasoning('Plan: read parser.ts, find the off-by-one, patch it.')) }] },
  { name: 'phrase pool in reasoning, 61-char deltas', blocks: () => [{ type: 'reasoning', deltas: toDeltas(phrasePoolReasoning('Plan: read parser.ts, find the off-by-one, patch it.'), 61) }] },
  { name: 'cycle in the reply, 5-char deltas', blocks: () => [{ type: 'text', deltas: toDeltas(cyclingText('Summary of the change:\n', PARAGRAPH), 5) }] },
  { name: 'cycle in the reply after reasoning, 97-char deltas', blocks: () => [
    { type: 'reasoning', deltas: ['I will summarise the change.'] },
    { type: 'text', deltas: toDeltas(cyclingText('Summary of the change:\n', PARAGRAPH), 97) },
  ] },
  { name: 'identical chunks in the reply', blocks: () => [{ type: 'text', deltas: ['Answer: ', ...Array(200).fill('ok ')] }] },
  { name: 'token period in reasoning', blocks: () => [{ type: 'reasoning', deltas: ['Checking: ', ...Array(40).fill(0).flatMap(() => ['the ', 'cat ', 'sat ', 'on ', 'the ', 'mat. '])] }] },
  { name: 'counter loop in reasoning, 13-char deltas', blocks: () => [{ type: 'reasoning', deltas: toDeltas(counterLoop({ seed: 1, side: 'reasoning', prefixChars: 800, loopChars: 12_000 }).text, 13) }] },
  { name: 'paraphrase pool in the reply, 23-char deltas', blocks: () => [{ type: 'text', deltas: toDeltas(paraphrasePoolLoop({ seed: 3, side: 'text', prefixChars: 600, loopChars: 12_000 }).text, 23) }] },
  { name: 'symbol run in the reply, 9-char deltas', blocks: () => [{ type: 'text', deltas: toDeltas(punctuationRunLoop({ seed: 1, side: 'text', prefixChars: 400, unit: '!', separator: '' }).text, 9) }] },
  { name: 'cycle in tool-call arguments, 16-char deltas', blocks: () => [
    { type: 'reasoning', deltas: ['I will write the checklist.'] },
    { type: 'tool-call', id: 'call-1', name: 'write_file', deltas: toDeltas(`{"path":"notes.md","content":"${'- [ ] check the parser again\\n'.repeat(400)}`, 16) },
  ] },
]

describe('one number per cut (real agent loop, stream grammar checked)', () => {
  const rules = new Set<string>()
  let detectorDiffered = 0

  for (const { name, blocks } of CASES) {
    it(`${name}: the log line, the marker, the notice, the record and the replay give the removed count`, async () => {
      const { host, lines, record, deltas, closing } = await cut(blocks())
      expect(record).toBeDefined()
      rules.add(record.rule)
      const side = record.side as Side
      const count: number = record.repeatedChars
      const shown = count.toLocaleString('en-US')
      expect(count).toBeGreaterThan(0)

      // What the model reads next: the side's block ends with the marker, which gives the count, and the
      // count is exactly what left the block (the raw deltas stay in the log).
      const text = closedText(closing, side)
      expect(readTrimMarker(text)).toBe(count)
      const kept = text.slice(0, text.lastIndexOf(' …[loop-breaker:'))
      const raw = deltas.filter((delta) => delta.side === side && delta.block === deltas.filter((d) => d.side === side).at(-1)!.block).map((delta) => delta.text).join('')
      expect(raw.startsWith(kept)).toBe(true)
      expect(raw.length - kept.length).toBe(count)

      // The user's log line, the notice and its summary.
      expect(lines.filter((line) => line.includes('cut a repetition loop'))).toEqual([expect.stringContaining(`(${record.rule}, ${shown} repeated characters)`)])
      const next = host.adapter.requests[1]!
      expect(lastMessageText(next)).toContain(`(${shown} characters of repetition)`)
      expect((next.messages.at(-1) as any).source.summary).toBe(`loop-breaker remind: ${record.rule} / ${({ reasoning: 'reasoning', text: 'reply', tool: 'tool-call arguments' })[side]} / ${shown}`)

      // The analyzer's replay of the logged deltas reports the same count.
      const verdict = new SessionReplay(detector).call({ deltas, finish: undefined, toolCalls: [], previousResults: [] } as any)
      expect(verdict.break).toMatchObject({ rule: record.rule, side, at: record.at, repeatedChars: count })

      if (detectorTrip(deltas)!.repeatedChars !== count) detectorDiffered++
    })
  }

  it('covers several rules, and on some of them the detector\'s own count is not what the cut removes', () => {
    expect(rules.size).toBeGreaterThanOrEqual(5)
    expect(detectorDiffered).toBeGreaterThan(0)
  })

  it('with trimHistory: false nothing is removed, and the log line, the notice and the record give the loop\'s characters that stayed', async () => {
    const { host, lines, record, deltas, closing } = await cut(CASES[2]!.blocks(), { trimHistory: false })
    const shown = record.repeatedChars.toLocaleString('en-US')
    expect(readTrimMarker(closedText(closing, 'text'))).toBeUndefined()
    expect(lines.find((line) => line.includes('cut a repetition loop'))).toContain(`(${record.rule}, ${shown} repeated characters)`)
    expect(lastMessageText(host.adapter.requests[1]!)).toContain(`(${shown} characters of repetition)`)
    const trip = detectorTrip(deltas)!
    expect(record.repeatedChars).toBe(trip.at - trip.loopStart)
  })
})
