import { describe, expect, it } from 'vitest'
import { DEFAULT_CONFIG, type DetectorConfig, type Side } from '../../src/detector/index.ts'
import { feedFixed } from './feed.ts'
import { random } from '../fixtures/detector/corpus.mjs'
import { productiveProse, reshuffled, writeArguments } from '../fixtures/detector/loops.mjs'

// Loops that never repeat a unit verbatim (a counter, an id, one word changes every time) and pools
// too long for the phrase-pool window, each streamed after a productive prefix in fixed deltas of 3, 16
// and 64 chars: the verdict, loopStart and repeatedChars must not depend on the delta size, and the
// cut must come within the shape's latency bound, counted from where the loop began.
const DELTAS = [3, 16, 64]
const { cycleCheckStride, nearPoolDataMinRepeatedChars, toolNearPoolMinRepeatedChars } = DEFAULT_CONFIG


/** The trip at every delta size, checked to be the same cut; returns it with its latency after `prefix`. */
function cutEverywhere(prefix: string, loop: string, side: Side, config?: Partial<DetectorConfig>) {
  const trips = DELTAS.map((delta) => feedFixed(prefix + loop, side, delta, config))
  const [first] = trips
  expect(first, 'tripped').toBeDefined()
  for (const [index, trip] of trips.entries()) {
    expect(trip, `delta ${DELTAS[index]}`).toBeDefined()
    expect({ rule: trip!.rule, loopStart: trip!.loopStart, repeatedChars: trip!.repeatedChars }, `delta ${DELTAS[index]}`)
      .toEqual({ rule: first!.rule, loopStart: first!.loopStart, repeatedChars: first!.repeatedChars })
    expect(Math.abs(trip!.at - first!.at), `delta ${DELTAS[index]}`).toBeLessThan(64)
  }
  return { trip: first!, latency: Math.max(...trips.map((trip) => trip!.at)) - prefix.length }
}

const next = random(12)
const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]
const hex = (digits: number) => Array.from({ length: digits }, () => '0123456789abcdef'[Math.floor(next() * 16)]).join('')
/** `unit(i)` for i = 1, 2, ... until `length` chars. */
const grow = (unit: (i: number) => string, length = 40_000) => {
  let text = ''
  for (let i = 1; text.length < length; i++) text += unit(i)
  return text
}

const PREFIX = { en: productiveProse(3000, 'en', 5), zh: productiveProse(3000, 'zh', 5) }
// Near repetition in prose is cut within about 1,000 chars: 768 repeated chars over a stretch of at
// least 1,024 (nearPoolMinRepeatedChars, nearPoolMinStretchChars), then the unit and the stride.
const PROSE_BOUND = 1100

const PROSE_LOOPS: Array<[string, 'en' | 'zh', string]> = [
  ['a step counter', 'en', grow((i) => `Step ${i}: retrying the request to the server.\n`)],
  ['an attempt counter (zh)', 'zh', grow((i) => `第 ${i} 次尝试：重新发送请求，等待服务器响应。`)],
  ['a retry block whose request id changes', 'en', grow(() => `Retrying request ${hex(8)}-${hex(4)} after the timeout.\nThe server did not answer; I will try again with the same payload.\n`)],
  ['a chain of near-synonyms in one template', 'en', grow(() => `I will now ${pick(['check', 'verify', 'inspect', 'examine', 'review', 'test'])} the configuration file before continuing. `)],
  ['one sentence frame with a changing noun', 'en', grow(() => `Let me look at the ${pick(['parser', 'lexer', 'config', 'router', 'cache', 'logger', 'server', 'client'])} module again to be sure. `)],
  ['one sentence frame with a changing noun (zh)', 'zh', grow(() => `我再检查一下${pick(['配置', '文件', '模块', '函数', '接口', '日志', '测试'])}是否正确，然后继续。`)],
  ['a timestamped status line', 'en', grow((i) => `At 10:${String(Math.floor(i / 60) % 60).padStart(2, '0')}:${String(i % 60).padStart(2, '0')} I am still waiting for the build to finish.\n`)],
]

describe('near pool: prose that repeats with a counter, an id or one word changing', () => {
  for (const [name, language, loop] of PROSE_LOOPS) {
    for (const side of ['reasoning', 'text'] as const) {
      it(`cuts ${name} on the ${side} side within ${PROSE_BOUND} chars, at 3/16/64-char deltas`, () => {
        const { trip, latency } = cutEverywhere(PREFIX[language], loop, side)
        expect(['near-pool', 'phrase-pool']).toContain(trip.rule)
        expect(latency).toBeLessThanOrEqual(PROSE_BOUND)
        expect(trip.loopStart).toBeGreaterThanOrEqual(PREFIX[language].length)
        expect(trip.loopStart).toBeLessThanOrEqual(PREFIX[language].length + 200)
      })
    }
  }

  it('is the rule that cuts them: no exact rule sees a unit that never repeats verbatim', () => {
    const loop = PROSE_LOOPS[0][2]
    expect(feedFixed(PREFIX.en + loop, 'text', 16, { nearPoolMinRepeatedChars: 0 })).toBeUndefined()
    expect(feedFixed(PREFIX.en + loop, 'text', 16)?.rule).toBe('near-pool')
  })
})

// Pools and passages too long for the phrase-pool window (more than 8 distinct long units).
const sentences = (count: number, length: number, language: 'en' | 'zh') => Array.from({ length: count }, (_, k) => {
  const body = productiveProse(length * 2, language, 100 + k).replace(/[.。\n]/g, '').replace(/ +/g, ' ')
  return body.slice(0, length - 2).trim() + (language === 'zh' ? '。' : '. ')
})

describe('near pool: long pools and long restated passages', () => {
  const cases: Array<[string, 'en' | 'zh', string, number]> = [
    // K distinct units of L chars need 4K sightings (concentration 4): about 4 × K × L chars.
    ['12 sentences of 150 chars reshuffled', 'en', reshuffled(sentences(12, 150, 'en'), '', 40_000), 4 * 12 * 150 * 1.25],
    ['16 sentences of 80 chars reshuffled (zh)', 'zh', reshuffled(sentences(16, 80, 'zh'), '', 40_000), 4 * 16 * 80 * 1.25],
    ['10 sentences of 120 chars reshuffled, one per line', 'en', reshuffled(sentences(10, 120, 'en').map((line) => line.trim()), '\n', 40_000), 4 * 10 * 121 * 1.25],
    // A passage restated verbatim: every unit comes back once per period, so 4 periods.
    ['a 1,200-char paragraph restated', 'en', grow(() => sentences(10, 120, 'en').join(''), 30_000), 4 * 1200 + 400],
    ['A-B-A-B with 1.3 K periods', 'en', grow(() => sentences(11, 118, 'en').join('') + '\n' + sentences(11, 118, 'en').reverse().join('') + '\n', 30_000), 4 * 2600 + 400],
  ]
  for (const [name, language, loop, bound] of cases) {
    for (const side of ['reasoning', 'text'] as const) {
      it(`cuts ${name} on the ${side} side within ${Math.round(bound)} chars, at 3/16/64-char deltas`, () => {
        const { trip, latency } = cutEverywhere(PREFIX[language], loop, side)
        expect(trip.rule).toBe('near-pool')
        expect(latency).toBeLessThanOrEqual(bound)
      })
    }
  }
})

// Code and data loops: the rows look like data, so they need nearPoolDataMinRepeatedChars of
// repetition (and a fixed order of rows): cut within that plus a few rows.
const DATA_LOOPS: Array<[string, string]> = [
  ['the same function emitted again with a new name', grow((i) => `function handler${i}(event) {\n  const value = event.detail;\n  if (!value) return null;\n  return process(value);\n}\n\n`)],
  ['markdown table rows with an incrementing index', grow((i) => `| ${i} | pending | retry the request | none |\n`)],
  ['JSON rows with an incrementing id', grow((i) => `  {"id": ${i}, "status": "pending", "action": "retry"},\n`)],
  ['YAML items with an incrementing id', grow((i) => `- id: ${i}\n  status: pending\n  action: retry\n`)],
  ['SQL rows with an incrementing id', grow((i) => `INSERT INTO tasks (id, status) VALUES (${i}, 'pending');\n`)],
  ['a chat-template token with a growing number', grow((i) => `<|im_start|>${i}\n`)],
]

describe('near pool: code and data loops, in text and in tool arguments', () => {
  for (const [name, loop] of DATA_LOOPS) {
    it(`cuts ${name} in visible text within the data threshold, at 3/16/64-char deltas`, () => {
      const { trip, latency } = cutEverywhere(PREFIX.en, loop, 'text')
      expect(trip.rule).toBe('near-pool')
      expect(latency).toBeLessThanOrEqual(nearPoolDataMinRepeatedChars * 1.25 + cycleCheckStride + 64)
      expect(latency).toBeGreaterThanOrEqual(nearPoolDataMinRepeatedChars)
    })

    it(`cuts ${name} written into a file through a tool call, at 3/16/64-char deltas`, () => {
      const args = writeArguments('out.txt', loop.repeat(2))
      const { trip, latency } = cutEverywhere('', args, 'tool')
      expect(['near-pool', 'cycle', 'phrase-pool', 'token-period']).toContain(trip.rule)
      expect(latency).toBeLessThanOrEqual(toolNearPoolMinRepeatedChars * 1.4)
    })
  }

  it('lets data rows through whose several values change (a CSV export, a generated table)', () => {
    const csv = grow((i) => `2024-01-${String((i % 28) + 1).padStart(2, '0')},ST${i % 5},${(next() * 30).toFixed(1)},${Math.floor(next() * 100)},ok\n`, 30_000)
    for (const side of ['reasoning', 'text', 'tool'] as const) expect(feedFixed(csv, side, 16), side).toBeUndefined()
  })
})
