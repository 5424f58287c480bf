// growing-line: a line written again and again with one more copy of a fragment each time (an identifier
// growing by `TtlWindow`, a number by one more 0, a builder call's name every third line) is cut within
// max(1,000, 3 lines) of the first grown line, whatever the deltas and the side; a list that grows with
// something new on every step, a partition list, a triangle of stars and a path broken down are not.
import { describe, expect, it } from 'vitest'
import { DEFAULT_CONFIG, DetectorPlan, StreamDetector } from '../../src/detector/index.ts'
import { grownLineLoop } from '../fixtures/detector/field-shapes.mjs'
import { feed, feedFixed } from './feed.ts'

// The field shape's four forms (an identifier growing by two fragments in turn, a number by one digit, a
// builder call's name every third line with the two lines between said again, an include path), in
// English and Chinese; field-shapes.test.ts sweeps them over six seeds, here each is read rule by rule.
const FORMS = (['en', 'zh'] as const).flatMap((language) => [1, 2, 3, 4].map((seed) => ({ language, seed })))
// Every CJK character is a token, so a Chinese line grown by a fragment is also a run of tokens said again:
// token-period may cut it first (within the same bound); it is off here, to read the growing-line rule alone.
const ALONE = { tokenPeriodMinRepeats: 0 }

describe('growing-line', () => {
  it.each(FORMS)('cuts a line grown again and again ($language, form $seed) within max(1,000, 3 lines) of the first grown line, on reasoning and text, the same cut at any delta', ({ language, seed }) => {
    for (const side of ['reasoning', 'text'] as const) {
      const { text, onset, period } = grownLineLoop({ seed, language, side })
      expect(feed(text, side)!.at - onset).toBeLessThanOrEqual(Math.max(1000, 3 * period))
      const trips = [3, 16, 64].map((delta) => feedFixed(text, side, delta, ALONE))
      for (const trip of trips) {
        expect(trip?.rule).toBe('growing-line')
        expect(trip!.loopStart).toBe(trips[0]!.loopStart)
        expect(trip!.loopStart).toBeGreaterThanOrEqual(onset - period)
        expect(trip!.at - onset).toBeLessThanOrEqual(Math.max(1000, 3 * period))
      }
    }
  })

  it('cuts it in tool arguments too, where the file is JSON-escaped', () => {
    const { text } = grownLineLoop({ seed: 4, language: 'en', side: 'text' })
    const args = JSON.stringify({ path: 'src/cache.ts', content: text }).slice(0, -2)
    expect(feed(args, 'tool')?.rule).toBe('growing-line')
  })

  it('lets through a list that grows with a new line every step, a partition list, a triangle of stars, powers of ten and a path broken down', () => {
    // A simulation that inserts one element a step and says which step it is: something new every line.
    let steps = 'Running the loop on nums = [2, 4], inserting nums[i] ** 0 at index i each time:\n\n'
    for (let i = 0; i < 40; i++) steps += `- Iteration i = ${i}: nums[${i}] is 1, so 1 goes in at index ${i}.\n  The list is now [${[...Array(i + 1).fill(1), 2, 4].join(', ')}].\n`
    // Every partition of "aaaa" followed by "bcb", then "bab": lines grow by splitting a block, never the same line four times over.
    const parts = (run: string[], rest: string[]) => `  [${[...run, ...rest].map((p) => `"${p}"`).join(', ')}],`
    const runs = [['aaaa'], ['aaa', 'a'], ['aa', 'aa'], ['aa', 'a', 'a'], ['a', 'aaa'], ['a', 'aa', 'a'], ['a', 'a', 'aa'], ['a', 'a', 'a', 'a']]
    let partitions = 'The palindrome partitions, block by block:\n[\n'
    for (const rest of [['bcb'], ['b', 'c', 'b'], ['bab'], ['b', 'a', 'b']]) for (const run of runs) partitions += parts(run, rest) + '\n'
    partitions += ']\n'
    const triangle = Array.from({ length: 60 }, (_, k) => '*'.repeat(k + 1)).join('\n') + '\n'
    const powers = 'Powers of ten, to check the pattern:\n' + Array.from({ length: 9 }, (_, k) => `- 1${'0'.repeat(k + 1)} leaves remainder ${10 ** (k + 1) % 7} mod 7`).join('\n') + '\nThe remainders repeat with period 6, so none is 0.\n'
    const path = 'The file sits at:\nsrc\nsrc/detector\nsrc/detector/rules\nsrc/detector/rules/growing-line.ts\n'
    for (const text of [steps, partitions, triangle, powers, path]) {
      for (const side of ['reasoning', 'text', 'tool'] as const) expect(feed(text, side)?.rule).not.toBe('growing-line')
    }
    expect(feed(steps, 'reasoning')).toBeUndefined()
    expect(feed(partitions, 'text')).toBeUndefined()
  })

  // A list item's number is a counter: a numbered list of test calls, each one copy of `ab` longer than
  // the one before, ran to the output cap uncut in two held-out CodeLlama 70B answers (can-ai-code). A
  // numbered stretch waits for twice the span, as a list that gains an item a line ends where its
  // construction does (a real answer lists 11 jug moves cumulatively, a stretch of about 1,000 chars).
  const numberedCalls = (count: number, indent = '') => 'Here is the function, then tests:\n\n```python\ndef substrcount(text, sub):\n    return text.count(sub)\n```\n\n'
    + Array.from({ length: count }, (_, k) => `${indent}${k + 1}.  print(substrcount("abababab", "${'ab'.repeat(k + 1)}"))`).join('\n') + '\n'
  const spanOfNumbered = 2 * DEFAULT_CONFIG.growingLineMinChars

  it('cuts a numbered list of lines each one copy longer, numbers and all, within twice the span and a line of the first grown line', () => {
    for (const indent of ['', '  ']) {
      const text = numberedCalls(60, indent)
      const onset = text.indexOf(`${indent}2.  print`)
      const longestLine = Math.max(...text.split('\n').map((line) => line.length))
      for (const side of ['reasoning', 'text'] as const) {
        const trips = [3, 16, 64].map((delta) => feedFixed(text, side, delta, ALONE))
        for (const trip of trips) {
          expect(trip?.rule).toBe('growing-line')
          expect(trip!.loopStart).toBe(trips[0]!.loopStart)
          expect(trip!.at - onset).toBeLessThanOrEqual(spanOfNumbered + longestLine)
        }
      }
    }
  })

  it('lets a numbered list that gains one move a line through, though the moves go round a plan of four', () => {
    const plan = ['"fill 5"', '"pour 5->3"', '"empty 3"', '"pour 5->3"']
    const moves = (k: number) => Array.from({ length: k }, (_, i) => plan[i % plan.length]).join(', ')
    const lines = Array.from({ length: 14 }, (_, k) => `${k + 1}. \`[${moves(k + 1)}]\``)
    const numbered = `Listing the moves as they add up:\n${lines.join('\n')}\n\nSo the sequence is:\n<answer>[${moves(14)}]</answer>\n`
    for (const side of ['reasoning', 'text'] as const) expect(feed(numbered, side)).toBeUndefined()
    // The same lines without their numbers wait for the plain span, and are cut there.
    const bare = numbered.replace(/^\d+\. /gm, '')
    expect(feed(bare, 'text')?.rule).toBe('growing-line')
  })

  it('is off on a side watched verbatim and at a span of 0', () => {
    const { text } = grownLineLoop({ seed: 4, language: 'en', side: 'text' })
    expect(feed(text, 'text', { detector: new StreamDetector(new DetectorPlan({}, { text: 'verbatim' })) })?.rule).not.toBe('growing-line')
    expect(feed(text, 'text', { config: { growingLineMinChars: 0 } })?.rule).not.toBe('growing-line')
    expect(DEFAULT_CONFIG.growingLineMinChars).toBeGreaterThan(0)
  })
})
