import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { DEFAULT_CONFIG, StreamDetector, type Side, type Trip } from '../../src/detector/index.ts'
import { LONG_PERIOD } from '../../src/detector/rules/cycle.ts'

const sides = fc.constantFrom<Side>('reasoning', 'text', 'tool')
const stride = DEFAULT_CONFIG.cycleCheckStride

/** Streams `text` cut at the given sizes (cycled); returns the Trip and the largest delta pushed. */
function streamWith(text: string, side: Side, sizes: number[], config = {}): { trip: Trip | undefined, largest: number } {
  const detector = new StreamDetector(config)
  let largest = 0
  for (let at = 0, i = 0; at < text.length; i++) {
    const delta = text.slice(at, at + sizes[i % sizes.length])
    at += delta.length
    largest = Math.max(largest, delta.length)
    const trip = detector.push(side, delta)
    if (trip) return { trip, largest }
  }
  return { trip: undefined, largest }
}

// Text that often loops: a prefix, then units drawn from a small pool (some runs periodic, some
// reshuffled, some not repetitive at all), some with a counter that changes every time (near
// repetition), so every verdict is exercised.
const loopyText = fc.record({
  prefix: fc.string({ maxLength: 300 }),
  units: fc.array(fc.oneof(
    fc.string({ minLength: 1, maxLength: 40 }),
    fc.string({ unit: fc.constantFrom(...'abcdefgh ijk.的一'), minLength: 3, maxLength: 40 }),
  ), { minLength: 1, maxLength: 8 }),
  picks: fc.array(fc.nat({ max: 7 }), { minLength: 150, maxLength: 600, size: 'max' }),
  separator: fc.constantFrom('', ' ', '\n', '. ', '。'),
  counter: fc.boolean(),
}).map(({ prefix, units, picks, separator, counter }) =>
  prefix + picks.map((pick, index) => units[pick % units.length] + (counter ? ` ${index + 1}` : '')).join(separator))

// The defaults, and the same with the data thresholds lowered so the generator's data-like text
// (random strings are often mostly symbols) reaches the data paths of every rule.
const configs = fc.constantFrom(
  { maxIdenticalChunks: 0, toolMaxIdenticalChunks: 0 },
  { maxIdenticalChunks: 0, toolMaxIdenticalChunks: 0, valuesMinSpan: 512, dataMinSpan: 512, noveltyDataMinSpan: 1024, toolNoveltyMinSpan: 1024, toolPoolMinRepeatedChars: 1024, symbolRunMinChars: 256, toolSymbolRunMinChars: 256 },
)

const deltaSizes = fc.array(fc.integer({ min: 1, max: 40 }), { minLength: 1, maxLength: 12 })

describe('properties', () => {
  it('split-invariance: the same text gives the same verdict whatever the delta sizes (identical-chunks aside)', () => {
    // identical-chunks is about the deltas themselves, so it is the one rule left out here.
    let tripped = 0
    const rules = new Set<string>()
    fc.assert(fc.property(loopyText, sides, deltaSizes, deltaSizes, configs, (text, side, first, second, config) => {
      const a = streamWith(text, side, first, config)
      const b = streamWith(text, side, second, config)
      expect(a.trip === undefined).toBe(b.trip === undefined)
      if (!a.trip || !b.trip) return
      expect({ rule: b.trip.rule, loopStart: b.trip.loopStart, repeatedChars: b.trip.repeatedChars })
        .toEqual({ rule: a.trip.rule, loopStart: a.trip.loopStart, repeatedChars: a.trip.repeatedChars })
      // Both pushes that report it reach the end of the same stride: `at` differs by less than a delta.
      expect(Math.abs(a.trip.at - b.trip.at)).toBeLessThan(Math.max(a.largest, b.largest))
      tripped++
      rules.add(a.trip.rule)
    }), { numRuns: 300 })
    // The generator must exercise trips of the cycle and both pool rules, not only quiet text.
    expect(tripped).toBeGreaterThan(50)
    for (const rule of ['cycle', 'phrase-pool', 'novelty']) expect(rules, rule).toContain(rule)
  })

  it('text without repetition never trips', () => {
    // Random characters (letters, digits, CJK, punctuation, line breaks) carry no period, no pool,
    // no repeated token block.
    const alphabet = fc.array(fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 .,;:!?\n\t"\'()[]{}<>-_=+/\\|@#$%^&*~`' + '的一是在不了有和人这中大为上个国我以要他时来用们生到作地于出就分对成会可主发年动同工也能下过子说产种面而方后多定行学法所民得经十三之进着等部度家电力里如水化高自二理起小物现实加量都两体制机当使点从业本去把性好应开它合还因由其些然前外天政四日那社义事平形相全表间样与关各重新线内数正心反你明看原又么利比或但质气第向道命此变条只没结解问意建月公无系军很情者最立代想已通并提直题党程展五果料象员革位入常文总次品式活设及管特件长求老头基资边流路级少图山统接知较将组见计别她手角期根论运农指几九区强放决西被干做必战先回则任取据处队南给色光门即保治北造百规热领七海口东导器压志世金增争济阶油思术极交受联什认六共权收证改清己美再采转更单风切打白教速花带安场身车例真务具万每目至达走积示议声报斗完类八离华名确才科张信马节话米整空元况今集温传土许步群广石记需段研界拉林律叫且究观越织装影算低持音众书布复容儿须际商非验连断深难近矿千周委素技备半办青省列习响约支般史感劳便团往酸历市克何除消构府称太准精值号率族维划选标写存候毛亲快效斯院查江型眼王按格养易置派层片始却专状育厂京识适属圆包火住调满县局照参红细引听该铁价严'), { minLength: 0, maxLength: 6000 })
    fc.assert(fc.property(alphabet, sides, deltaSizes, (chars, side, sizes) => {
      expect(streamWith(chars.join(''), side, sizes).trip).toBeUndefined()
    }), { numRuns: 200 })
  })

  it('a string repeated with period p ≤ cap trips within span + stride characters', () => {
    const unitChars = fc.constantFrom(...'abcdefgh01234 .,\n的一是在')
    const unit = fc.array(unitChars, { minLength: 2, maxLength: DEFAULT_CONFIG.reasoningCycleMaxPeriod, size: 'large' })
      .map((chars) => chars.join(''))
      .filter((text) => new Set([...text].filter((c) => /[\p{L}\p{N}]/u.test(c))).size >= 2)
    fc.assert(fc.property(unit, fc.string({ maxLength: 200 }), deltaSizes, fc.constantFrom<Side>('reasoning', 'text'), (body, prefix, sizes, side) => {
      const minSpan = side === 'reasoning' ? DEFAULT_CONFIG.reasoningCycleMinSpan : DEFAULT_CONFIG.textCycleMinSpan
      const span = Math.max(minSpan, Math.ceil(DEFAULT_CONFIG.cycleMinPeriods * body.length))
      const loop = body.repeat(Math.ceil((span + 4 * stride + 64) / body.length) + 1)
      // Read as prose here; a period that looks like data or code waits for its span (next property).
      const { trip, largest } = streamWith(prefix + loop, side, sizes, { valuesMinSpan: 0, dataMinSpan: 0, codeMinPeriods: 0 })
      expect(trip).toBeDefined()
      // A period above LONG_PERIOD is looked for at every fourth check only.
      const checks = body.length > LONG_PERIOD ? 4 : 1
      expect(trip!.at - prefix.length).toBeLessThanOrEqual(span + checks * stride + largest)
    }), { numRuns: 150 })
  })

  it('a string repeated with any period p ≤ cap trips within max(span, valuesMinSpan, dataMinSpan, codeMinPeriods periods) + stride characters', () => {
    const unitChars = fc.constantFrom(...'abc01234 .,;{}|\n的一')
    const unit = fc.array(unitChars, { minLength: 2, maxLength: 200 })
      .map((chars) => chars.join(''))
      .filter((text) => new Set([...text].filter((c) => /[\p{L}\p{N}]/u.test(c))).size >= 2)
    const config = { valuesMinSpan: 2500, dataMinSpan: 3000, codeMinPeriods: 3.5 }
    fc.assert(fc.property(unit, deltaSizes, fc.constantFrom<Side>('reasoning', 'text'), (body, sizes, side) => {
      const span = Math.max(config.valuesMinSpan, config.dataMinSpan, Math.ceil((config.codeMinPeriods - 1) * body.length), Math.ceil(DEFAULT_CONFIG.cycleMinPeriods * body.length) + stride)
      const { trip, largest } = streamWith(body.repeat(Math.ceil((span + 2 * stride + 64) / body.length) + 1), side, sizes, config)
      expect(trip).toBeDefined()
      // The repetition starts one period in (one copy stays before loopStart).
      expect(trip!.at).toBeLessThanOrEqual(body.length + span + stride + largest)
    }), { numRuns: 100 })
  })

  // The guard's promise is that a loop is bounded in every setting, whatever it holds. Units of
  // markup, escapes, JSON, emoji, CJK, template tokens and white space, repeated on every side (tool
  // arguments as JSON or raw): each is cut by the longest span any rule waits for (dividers, data),
  // plus a few periods and strides. Each atom alone first (a run of one is what degenerate output
  // most often is, and a random mix rarely draws one), then random mixes. Such a search found a run of
  // escaped backslashes in tool arguments, which no rule read.
  describe('any unit repeated without end is cut on every side within the longest span a rule waits for', () => {
    const atoms = [...'aZ09 .,;:{}[]()<>/\\|"\'\n\t\r-_=*#`~!?@$%^&+的。，😀─\u200d\ufe0f\u00a0\u3000'].concat(
      ['\\u00a0', '\\n', '\\t', '\\"', '\\\\', '</s>', '<|im_end|>', '```', '0, ', '1. ', 'Step ', '{"a": 1}', '&nbsp;', '<br>', '…', '“'])
    const longestSpan = Math.max(DEFAULT_CONFIG.dividerMinSpan, DEFAULT_CONFIG.noveltyDataMinSpan, DEFAULT_CONFIG.toolNoveltyMinSpan)
    const expectBounded = (body: string, side: Side, rawTool: boolean, sizes: number[]) => {
      const loop = body.repeat(Math.ceil((longestSpan + 4096) / body.length))
      const text = side === 'tool' && !rawTool ? JSON.stringify({ content: loop }) : loop
      const period = side === 'tool' && !rawTool ? JSON.stringify(body).length - 2 : body.length
      const { trip, largest } = streamWith(text, side, sizes, { maxIdenticalChunks: 0, toolMaxIdenticalChunks: 0 })
      const label = `${JSON.stringify(body)} ${side}${side === 'tool' ? (rawTool ? ' raw' : ' JSON') : ''} [${sizes}]`
      expect(trip, label).toBeDefined()
      expect(trip!.at, label).toBeLessThanOrEqual(longestSpan + 4 * period + 2 * stride + largest)
    }

    it('each atom alone, at 1, 7 and 32-char deltas', () => {
      for (const atom of atoms.filter((text) => text.trim().length > 0)) {
        for (const [side, rawTool] of [['reasoning', false], ['text', false], ['tool', false], ['tool', true]] as const) {
          for (const size of [1, 7, 32]) expectBounded(atom, side, rawTool, [size])
        }
      }
    })

    it('random mixes of them', () => {
      const unit = fc.array(fc.constantFrom(...atoms), { minLength: 1, maxLength: 40 }).map((parts) => parts.join('')).filter((text) => text.trim().length > 0)
      fc.assert(fc.property(unit, deltaSizes, sides, fc.boolean(), (body, sizes, side, rawTool) => expectBounded(body, side, rawTool, sizes)), { numRuns: 150 })
    })
  })
})
