/**
 * Scripted model answers for the session-log tests: legal rc.8 streams cut
 * into token-sized deltas (1–4 characters, deterministic), as a provider
 * streams them. Used both by the Node 22 tests that write real sessions and by
 * the generator of the committed samples under test/fixtures/sessions/.
 */
import type { StreamChunk } from '@deepseek-ai/dsh-llm'

export type Block =
  | { type: 'reasoning' | 'text'; text: string }
  | { type: 'tool-call'; id: string; name: string; arguments: string }

/** Deterministic delta sizes 1..4, so a sample is byte-identical on every run. */
export function splitDeltas(text: string, seed = 1): string[] {
  const out: string[] = []
  let state = seed >>> 0
  for (let at = 0; at < text.length;) {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0
    const size = 1 + ((state >>> 16) % 4)
    out.push(text.slice(at, at + size))
    at += size
  }
  return out
}

export interface StreamOptions {
  finish?: { kind: 'stop' | 'tool-calls' } | { kind: 'error'; failure: { message: string; code: string } }
  /** Awaited before every delta (to let a test cancel mid-stream). */
  pause?: () => Promise<void>
}

/** One model call: each block opened, streamed delta by delta, closed; then usage and finish. */
export async function* modelCall(blocks: Block[], options: StreamOptions = {}): AsyncIterable<StreamChunk> {
  for (const [index, block] of blocks.entries()) {
    yield { type: 'block-start', index, blockType: block.type } as StreamChunk
    if (block.type === 'tool-call') {
      for (const argumentsDelta of splitDeltas(block.arguments, index + 7)) {
        await options.pause?.()
        yield { type: 'tool-call-delta', index, id: block.id, name: block.name, argumentsDelta } as StreamChunk
      }
      yield { type: 'block-end', index, block: { type: 'tool-call', id: block.id, name: block.name, arguments: block.arguments } } as StreamChunk
      continue
    }
    const deltaType = block.type === 'text' ? 'text-delta' : 'reasoning-delta'
    for (const text of splitDeltas(block.text, index + 1)) {
      await options.pause?.()
      yield { type: deltaType, index, text } as StreamChunk
    }
    yield { type: 'block-end', index, block: { type: block.type, text: block.text } } as StreamChunk
  }
  const finish = options.finish ?? { kind: blocks.some((block) => block.type === 'tool-call') ? 'tool-calls' : 'stop' }
  if (finish.kind !== 'error') yield { type: 'usage', usage: { inputTokens: 120, outputTokens: 40 } } as StreamChunk
  yield { type: 'finish', reason: finish } as StreamChunk
}

/** A failed attempt as a provider reports it in-band: a little text, then an error finish. */
export async function* failedCall(code: string, message: string): AsyncIterable<StreamChunk> {
  yield { type: 'block-start', index: 0, blockType: 'text' } as StreamChunk
  yield { type: 'text-delta', index: 0, text: 'Let me' } as StreamChunk
  yield { type: 'finish', reason: { kind: 'error', failure: { message, code } } } as StreamChunk
}

export const PLANNING = [
  'The user wants a short report on the build failures from last night.',
  'First I should list the failing jobs, then read each log to find the first error,',
  'and group the errors by cause so the report is short. The CI summary names three jobs:',
  'lint, unit tests on Node 20, and the packaging step. Lint failed on an unused import,',
  'which is trivial. The unit tests failed in the session reader with a timeout, and the',
  'packaging step failed because the lockfile was out of date after a dependency bump.',
].join('\n')

/**
 * The seed's phrase pool (a small vocabulary of short lines reshuffled with no
 * period), in English and Chinese, as a model emits it once it stops making
 * progress. Shuffled deterministically so the sample never becomes periodic.
 */
export function phrasePool(chars: number, seed = 3): string {
  const units = ['Go.', 'OK.', 'Writing.', 'Let me write.', '好。', '我写报告。', '（写）', '现在。']
  let state = seed >>> 0
  let out = ''
  while (out.length < chars) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0
    out += units[(state >>> 24) % units.length] + '\n'
  }
  return out
}

export const FINAL_REPORT = 'Three jobs failed: lint (unused import), unit tests (reader timeout) and packaging (stale lockfile).'

/** Step after step, the same long reasoning and the same tool call: a cross-call stall, not an in-call loop. */
export function restatingStep(step: number): Block[] {
  const reasoning = [PLANNING, 'Before writing anything I want the raw CI summary once more, to be sure of the job names.',
    PLANNING.split('\n').reverse().join('\n'), 'So the next action is to read ci/summary.txt again.'].join('\n').repeat(2)
  return [
    { type: 'reasoning', text: reasoning },
    { type: 'tool-call', id: `read-${step}`, name: 'read_file', arguments: JSON.stringify({ path: 'ci/summary.txt' }) },
  ]
}

/**
 * One turn whose steps each loop in a way no unit repeats verbatim (issue 12's shapes, from the seeded
 * generators): a step counter in reasoning, a zh stall circling one decision, a 1,200-char paragraph
 * restated in the visible text, a run of one punctuation mark, data rows with an incrementing index
 * written through a tool call; each step then reads a different file (no stall), and the last call
 * answers. Recorded without the plugin, every loop runs its whole length: the analyzer's `--sweep` over
 * each rule's main setting shows its break come and go.
 */
export async function nearRepetitionSteps(): Promise<Block[][]> {
  const shapes = await import('../fixtures/detector/shapes.mjs')
  const read = (step: number): Block => ({ type: 'tool-call', id: `read-${step}`, name: 'read_file', arguments: JSON.stringify({ path: `notes/part-${step}.md` }) })
  return [
    [{ type: 'reasoning', text: shapes.counterLoop({ side: 'reasoning', seed: 2, prefixChars: 1500 }).text }, read(1)],
    [{ type: 'reasoning', text: shapes.circlingDecisionLoop({ side: 'reasoning', language: 'zh', seed: 3, prefixChars: 1500 }).text }, read(2)],
    [{ type: 'reasoning', text: PLANNING }, { type: 'text', text: shapes.longPeriodLoop({ side: 'text', seed: 4, prefixChars: 1500 }).text }, read(3)],
    [{ type: 'reasoning', text: shapes.punctuationRunLoop({ side: 'reasoning', seed: 5, prefixChars: 1500 }).text }, read(4)],
    [{ type: 'reasoning', text: PLANNING }, { type: 'tool-call', id: 'write-5', name: 'write_file', arguments: shapes.dataLoop({ side: 'tool', seed: 6, prefixChars: 1500 }).text }],
    [{ type: 'text', text: FINAL_REPORT }],
  ]
}
