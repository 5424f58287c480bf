import { describe, expect, it } from 'vitest'
import { DEFAULT_CONFIG } from '../../src/detector/index.ts'
import { DETECTOR_SETTINGS } from '../../src/detector/settings.ts'
import { PROSE_EN, PROSE_ZH, SEED_PERIOD_TEXT, SEED_PERIODS_REASONING, periodic, writeArguments } from '../fixtures/detector/loops.mjs'
import { normalPrefix } from '../fixtures/detector/shapes.mjs'
import { feed, feedAfter, feedFixed } from './feed.ts'

const stride = DEFAULT_CONFIG.cycleCheckStride
/** The design's latency target for an exactly periodic loop (issue 30), plus the one delta that reports it. */
const target = (period: number, maxDelta = 16) => Math.max(1000, 3 * period) + maxDelta

describe('cycle', () => {
  it('has default caps above every loop period the seed measured (a cap below a real period fails silently)', () => {
    for (const period of SEED_PERIODS_REASONING) expect(DEFAULT_CONFIG.reasoningCycleMaxPeriod).toBeGreaterThan(period)
    expect(DEFAULT_CONFIG.textCycleMaxPeriod).toBeGreaterThan(SEED_PERIOD_TEXT)
    expect(DEFAULT_CONFIG.reasoningCycleMaxPeriod).toBeGreaterThanOrEqual(2 * Math.max(...SEED_PERIODS_REASONING))
  })

  it('allows no period the 16-bit chain index cannot reach (its distances stop at 65,534 chars)', () => {
    for (const name of ['reasoningCycleMaxPeriod', 'textCycleMaxPeriod', 'toolCycleMaxPeriod'] as const) expect(DETECTOR_SETTINGS[name].max).toBeLessThan(0xffff)
  })

  it.each(SEED_PERIODS_REASONING)('cuts a reasoning loop of period %i after a productive prefix within max(1,000, 3 periods)', (period) => {
    const { trip, latency } = feedAfter(PROSE_EN, periodic(period, 20 * period, PROSE_EN, 300), 'reasoning')
    expect(trip?.rule).toBe('cycle')
    expect(latency).toBeLessThanOrEqual(target(period))
  })

  // An exact period of up to 128 chars is cut within 1,000 chars of its onset (issue 30), by the first
  // check (every `cycleCheckStride` chars) at or after the side's span, reported by the push that
  // reaches it; the same verdict and cut at 3/16/64-char deltas, whatever the prefix's length. A period
  // holding sentence ends repeats its sentences too: the phrase-pool rule (512 repeated chars) may cut it first.
  it.each(['reasoning', 'text', 'tool'] as const)('cuts an exact period of 8..128 chars (en, zh) on the %s side at the first check after its span, the same cut at 3/16/64-char deltas', (side) => {
    const span = side === 'tool' ? DEFAULT_CONFIG.toolCycleMinSpan : side === 'reasoning' ? DEFAULT_CONFIG.reasoningCycleMinSpan : DEFAULT_CONFIG.textCycleMinSpan
    if (side !== 'tool') expect(span + stride + 64).toBeLessThanOrEqual(1000)
    for (const language of ['en', 'zh'] as const) {
      const prose = language === 'zh' ? PROSE_ZH : PROSE_EN
      for (const period of [8, 12, 16, 24, 32, 48, 64, 96, 128]) for (const shift of [0, 7, 19, 31]) {
        const prefix = normalPrefix(3000, language, 3) + prose.slice(0, shift)
        const loop = periodic(period, 4000, prose, (period * 37 + shift * 11) % (prose.length - period))
        const text = side === 'tool' ? writeArguments('notes.md', prefix + loop) : prefix + loop
        const onset = side === 'tool' ? writeArguments('notes.md', prefix).length - 2 : prefix.length
        const label = `${language} period ${period} shift ${shift}`
        const trips = [3, 16, 64].map((delta) => feedFixed(text, side, delta))
        for (const [k, delta] of [3, 16, 64].entries()) {
          const trip = trips[k]
          expect(['cycle', 'token-period', 'phrase-pool'], label).toContain(trip?.rule)
          expect({ rule: trip!.rule, loopStart: trip!.loopStart }, label).toEqual({ rule: trips[0]!.rule, loopStart: trips[0]!.loopStart })
          expect(trip!.at - onset, `${label} delta ${delta}`).toBeLessThanOrEqual(span + stride + delta)
        }
      }
    }
  })

  it('cuts the seed-shaped visible-text loop of period 172', () => {
    const { trip, latency } = feedAfter(PROSE_EN, periodic(SEED_PERIOD_TEXT, 44_000, PROSE_EN, 900), 'text')
    expect(trip).toMatchObject({ rule: 'cycle', side: 'text' })
    expect(latency).toBeLessThanOrEqual(target(SEED_PERIOD_TEXT))
  })

  it('cuts a Chinese restatement of period 120', () => {
    const { trip, latency } = feedAfter(PROSE_ZH, periodic(120, 6000, PROSE_ZH, 40), 'reasoning')
    expect(trip?.rule).toBe('cycle')
    expect(latency).toBeLessThanOrEqual(target(120))
  })

  it('reports where the repetition starts, keeping one copy of the repeated unit', () => {
    const unit = PROSE_EN.slice(500, 700)
    const text = PROSE_EN.slice(0, 400) + unit.repeat(10)
    const trip = feed(text, 'reasoning')!
    expect(trip.rule).toBe('cycle')
    expect(trip.loopStart).toBe(600)
    expect(text.slice(0, trip.loopStart).endsWith(unit)).toBe(true)
    expect(trip.repeatedChars).toBeGreaterThanOrEqual(DEFAULT_CONFIG.reasoningCycleMinSpan - unit.length)
    expect(trip.repeatedChars).toBeLessThan(trip.at - trip.loopStart + 1)
  })

  it('lets a block repeated exactly twice through (doubled overloads, before/after quotes)', () => {
    const block = PROSE_EN.slice(0, 700)
    expect(feed(`${PROSE_EN.slice(800, 1200)}${block}${block}${PROSE_EN.slice(1200)}`, 'reasoning')).toBeUndefined()
    expect(feed(`${block}${block}${PROSE_ZH}`, 'text')).toBeUndefined()
  })

  // A step list going round the same states while its numbers climb (MisguidedAttention's jug answers:
  // DeepHermes 3 wrote `269. Fill 6L jug: (6, 6)` ... for 23 K chars, Qwen3 30B its bold steps to the
  // length limit) is a loop whatever its numbers: a list item's number is a counter. Such a repetition is
  // counted in copies, as code is (codeMinPeriods), since a list going round its items ends at its count.
  const jugSteps = (from: number, count: number, indent = '', close = '.') => Array.from({ length: count }, (_, k) => {
    const step = ['Fill 6L jug: (6, 6)', 'Pour into 12L jug: (12, 0)', 'Empty 12L jug: (0, 0)', 'Pour 6L from 6L into 12L: (6, 0)'][k % 4]
    return `${indent}${from + k}${close} ${step}\n`
  }).join('')

  it.each(['reasoning', 'text'] as const)('cuts a numbered step list going round the same states (%s), the same cut at 3/16/64-char deltas', (side) => {
    const prefix = `${PROSE_EN.slice(0, 1500)}\nLet me track the jugs:\n`
    for (const [indent, close, from] of [['', '.', 100], ['  ', '.', 100], ['', ')', 1000], ['   ', '.', 33]] as const) {
      const label = `${JSON.stringify(indent)} ${close} from ${from}`
      const loop = jugSteps(from, 200, indent, close)
      const period = jugSteps(from, 4, indent, close).length
      const trips = [3, 16, 64].map((delta) => feedFixed(prefix + loop, side, delta))
      for (const trip of trips) {
        expect(trip?.rule, label).toBe('cycle')
        expect(trip!.loopStart, label).toBe(trips[0]!.loopStart)
        // Numbers that change length (99 to 100) break the repetition once, where it starts again.
        expect(trip!.at - prefix.length, label).toBeLessThanOrEqual(from === 33 ? 67 * period + 1000 : Math.max(1000, DEFAULT_CONFIG.codeMinPeriods * period) + 64)
      }
    }
  })

  it('lets a numbered list that goes round its items end at its count, and counts no number but one opening a line', () => {
    // AlpacaEval answers asked for 50 items: the last 24 go round the 12 before them, 2.7 rounds in all.
    const items = Array.from({ length: 12 }, (_, k) => PROSE_EN.slice(k * 70, k * 70 + 60 + (k % 3) * 9).trim())
    const list = Array.from({ length: 50 }, (_, k) => `${k + 1}. ${k < 15 ? PROSE_EN.slice(900 + k * 80, 960 + k * 80).trim() : items[(k - 15) % 12]}\n`).join('')
    for (const side of ['reasoning', 'text'] as const) expect(feed(`Here are fifty:\n${list}\nI hope these help.`, side), side).toBeUndefined()
    // A number inside a line is information (a total, a position): lines alike but for it are no cycle.
    const tally = Array.from({ length: 120 }, (_, k) => `Year ${k + 1}. Balance after interest: ${1000 + k * 37}. Fill 6L jug: (6, 6)\n`).join('')
    expect(feed(tally, 'text')?.rule).not.toBe('cycle')
    // Without a counter the same steps are a verbatim loop: cut as before, within max(1,000, 3 periods).
    const plain = jugSteps(0, 200).replace(/^\d+\. /gm, '- ')
    const { trip, latency } = feedAfter(PROSE_EN.slice(0, 1500), plain, 'text')
    expect(trip?.rule).toBe('cycle')
    expect(latency).toBeLessThanOrEqual(target(plain.indexOf('- Fill', 10)))
  })

  it('lets dividers and laughter through: a period with fewer than two distinct letters or digits', () => {
    for (const divider of ['='.repeat(3000), '-'.repeat(3000), '|---'.repeat(300) + '|', '哈'.repeat(3000), '─'.repeat(2000), ' '.repeat(3000), '0'.repeat(3000)]) {
      // The symbol-run rule cuts runs this long (symbol-run.test.ts); the cycle rule leaves them alone.
      for (const side of ['reasoning', 'text', 'tool'] as const) expect(feed(divider, side, { config: { symbolRunMinChars: 0, toolSymbolRunMinChars: 0 } })).toBeUndefined()
    }
  })

  // Real loops of `|---|` ran 16 K and zero rows 8 K with no rule to end them; a correct board of zeros
  // spans 9.5 K. So a divider period is followed up to its span and cut there, on every side: marks alone
  // in one line (a rule drawn on and on) at the span of a divider of one mark, zero rows at dividerMinSpan.
  it.each(['reasoning', 'text', 'tool'] as const)('cuts a divider or zero rows repeated past their span in %s, and never with a span of 0', (side) => {
    const lineSpan = side === 'tool' ? DEFAULT_CONFIG.toolDividerRunMinChars : DEFAULT_CONFIG.dividerRunMinChars
    const lead = 'The table follows.\n'
    for (const [row, span, off] of [['|---', lineSpan, { dividerRunMinChars: 0, toolDividerRunMinChars: 0 }], ['**_', lineSpan, { dividerRunMinChars: 0, toolDividerRunMinChars: 0 }],
      [' [0,0,0,0,0,0,0,0,0,0,0,0],\n', DEFAULT_CONFIG.dividerMinSpan, { dividerMinSpan: 0 }]] as const) {
      const loop = lead + row.repeat(Math.ceil((span + 4000) / row.length))
      const trip = feed(loop, side)!
      expect(trip.rule, row).toBe('cycle')
      expect(trip.repeatedChars, row).toBeGreaterThanOrEqual(span)
      expect(trip.at - lead.length, row).toBeLessThanOrEqual(span + 2 * stride)
      expect(feed(loop, side, { config: off })?.rule, row).not.toBe('cycle')
    }
  })

  // `</s>` is the end-of-sequence token of Llama and Mistral models: a real Mistral-Nemo answer wrote
  // it 270 times after its answer, and as a period of one letter among marks it waited for the divider span.
  it.each(['</s>', '</s>\n', '<b>'])('reads a tag of one letter (%j) as markup, not a divider: cut within max(1,000, 3 periods)', (tag) => {
    for (const side of ['reasoning', 'text'] as const) {
      const trip = feedAfter(PROSE_EN, tag.repeat(Math.ceil(3000 / tag.length)), side)
      expect(trip.trip?.rule).toBe('cycle')
      expect(trip.latency).toBeLessThanOrEqual(target(tag.length))
    }
  })

  // One value said again in a list or a string (`, 5, 5`, `'o', 'o'`) ran to the output cap in 20 real
  // loops (ZeroEval, reasoning-gym): as a period of one digit or letter among marks it waited for the
  // divider span (32,768). It is a value now, cut as values are; zeros and escaped white space stay padding.
  it.each([', 5', "'o', ", '+ 4 ', '[7]'])('reads one value said again among marks (%j) as values, not a divider: cut within the values span', (unit) => {
    for (const side of ['reasoning', 'text'] as const) {
      const { trip, latency } = feedAfter(PROSE_EN + '\nThe list is [3', unit.repeat(Math.ceil(5000 / unit.length)), side)
      expect(trip?.rule, unit).toBe('cycle')
      expect(latency, unit).toBeLessThanOrEqual(DEFAULT_CONFIG.valuesMinSpan + 2 * stride)
    }
    for (const padding of [', 0', '\\n', ' 1 ']) {
      const { trip } = feedAfter(PROSE_EN + '\n', padding.repeat(Math.ceil(5000 / padding.length)), 'text', { config: { symbolRunMinChars: 0, dividerRunMinChars: 0 } })
      expect(trip, padding).toBeUndefined()
    }
  })

  // A list number is a counter only when the numbers climb. `43.` said again verbatim among marks
  // (`\n43.\n},`, the shrunk case a property run found) had its digits skipped as a counter, so the
  // period read as a divider and waited for the divider span (32,768).
  it.each(['\n43.\n},', ';\n14.', '0\n3.'])('reads a list number said again verbatim (%j) as content: cut within the values span', (unit) => {
    for (const side of ['reasoning', 'text'] as const) {
      const { trip, latency } = feedAfter(PROSE_EN + '\n', unit.repeat(Math.ceil(8000 / unit.length)), side)
      expect(trip?.rule, unit).toBe('cycle')
      expect(latency, unit).toBeLessThanOrEqual(DEFAULT_CONFIG.valuesMinSpan + 2 * stride)
    }
  })

  it('waits for the longer tool-side span', () => {
    const line = 'We insert the seen id into the table once more\n'
    const loop = line.repeat(200)
    const tool = feed(loop, 'tool', { config: { toolTokenPeriodMinRepeats: 0 } })!
    expect(tool.rule).toBe('cycle')
    expect(tool.at).toBeGreaterThanOrEqual(DEFAULT_CONFIG.toolCycleMinSpan)
    expect(tool.at).toBeLessThanOrEqual(DEFAULT_CONFIG.toolCycleMinSpan + stride + 16)
    expect(feed(line.repeat(40), 'tool')).toBeUndefined()
  })

  // In reasoning and text, what repeats says how much evidence it needs: values alone wait for
  // valuesMinSpan, copies of one table row or record for dataMinSpan, code for codeMinPeriods copies.
  it.each([
    ['1 6 7 2 8 3 2 7 4 5 9 0\n', 'valuesMinSpan'],
    ['1.5, 2.5, 3.5, 4.5\n', 'valuesMinSpan'],
    ['| GPIO | input | up | high |\n', 'dataMinSpan'],
    ['  { 0, HANDLER_DEFAULT, FLAG_NONE },\n', 'dataMinSpan'],
    ['        {\n          "ar": {\n            "_distance": "10",\n            "_oneway": "true"\n          }\n        },\n', 'dataMinSpan'],
  ] as const)('follows a period that looks like data or code (%j) until its %s', (row, setting) => {
    const only = { tokenPeriodMinRepeats: 0, noveltyMinSpan: 0, toolNoveltyMinSpan: 0 }
    const span = DEFAULT_CONFIG[setting]
    expect(feed(row.repeat(Math.floor(span / row.length) - 2), 'text', { config: only })).toBeUndefined()
    const trip = feed(row.repeat(2 * Math.ceil(span / row.length)), 'text', { config: only })
    expect(trip?.rule).toBe('cycle')
    expect(trip!.loopStart).toBeLessThanOrEqual(row.length)
    // The repetition begins after the first copy of the row.
    expect(trip!.at).toBeLessThanOrEqual(trip!.loopStart + span + 2 * stride)
  })

  // Brackets make a record only when they open one. LaTeX's braces are arguments (a real loop of
  // `= \sqrt{2 + \sqrt{3}}` waited for the data span); a JSON object said again line after line with no
  // comma is no list of records (an agent's action restated), while `{...},` line after line is.
  it.each([
    [' = \\sqrt{2 + \\sqrt{3}}'],
    ['\\boxed{42}'],
    ['So the answer is \\(\\boxed{\\frac{3}{4}}\\).\n'],
    ['\\[ f(x) = \\frac{x^{2} + 1}{x - 1} \\]\n'],
    ['{"action": "search", "query": "retry budget"}\n'],
    ["{'role': 'assistant', 'content': 'OK'}\n"],
    ['<tool_call>{"name": "read_file", "arguments": {"path": "src/index.ts"}}</tool_call>'],
    ['{"0": 1, "1": 2, "2": 2, "3": 1, "4": 1, "5": 1, "6": 2, "7": 1, "8": 2, "9": 3, "10": 1, "11": 2, "12": 1, "13": 1, "14": 1, "15": 2}\n\n<answer>{"0": 1, "1": 2, "2": 2, "3": 1, "4": 1, "5": 1, "6": 2, "7": 1, "8": 2, "9": 3, "10": 1, "11": 2, "12": 1, "13": 1, "14": 1, "15": 2}</answer>\n'],
    ['- [Documentation](https://example.com/docs)\n'],
  ] as const)('cuts LaTeX or a bare JSON object (%j) said again within max(1,000, 3 periods)', (unit) => {
    const only = { tokenPeriodMinRepeats: 0, noveltyMinSpan: 0 }
    for (const side of ['reasoning', 'text'] as const) {
      const trip = feed(unit.repeat(Math.ceil(4000 / unit.length)), side, { config: only })!
      expect(trip.rule).toBe('cycle')
      expect(trip.at - trip.loopStart).toBeLessThanOrEqual(Math.max(1000, 3 * unit.length))
    }
  })
  // A sentence is prose whatever commas or parentheses it holds: squares named `(2,A)` are no CSV row,
  // an aside closing a list item is no call, a paragraph in one line naming a set or an interval is no
  // record (real text said again, which waited for the data span or for codeMinPeriods copies); a CSV
  // row of multi-word values stays a row (below).
  it.each([
    ['Therefore, the sum of the elements of the subset {1,6} is 11, the sum of the elements of the subset {2,6} is 10, and so on.  We can see that the sum of the elements of the subset {1,5} is 1 more than the sum of the elements of the subset {2,4}.  '],
    ['However, we are looking for the number of integer values of k in the closed interval [-500,500] for which the equation has exactly one real solution, so we check k = 8 again.  '],
    ["Given the tight constraints, a white knight could move from (2,A) to (3,C), but (3,C) is occupied by a black knight; from (2,A) to (4,B) works only on a larger board.\n"],
    ['* Flashcards with vocabulary words (friend, best friend, close friend, classmate, neighbor, etc.)\n* Pictures of different types of friends (best friend, classmate, coworker, etc.)\n* Short sentences or dialogues showing how to greet a friend (written on the board)\n'],
    ['- DeWalt DWE7491RS 10-Inch Job Site Table Saw: portable and versatile, with a powerful motor and a large rip capacity for long boards. (Amazon rating: 4.8 stars out of 5)\n- Bosch 4100-09 10-Inch Worksite Table Saw: designed for precision and ease of use, with a modular blade guard system for safety. (Amazon rating: 4.6 stars out of 5)\n\n'],
    // A quantifier's scope after its parenthesis is no record (MMLU-Pro, Llama 3.1 70B, said again for 3.9 K uncut).
    ['We can rewrite it as (∀x){Ax ⊃ (∀y)[(Hy • Ly) ⊃ (Bxy ≡ F)]}. '],
  ] as const)('cuts a sentence said again (%j) within max(1,000, 3 periods), commas and parentheses aside', (unit) => {
    for (const side of ['reasoning', 'text'] as const) {
      const trip = feed(unit.repeat(Math.ceil(6000 / unit.length)), side)!
      expect(trip.at - trip.loopStart).toBeLessThanOrEqual(Math.max(1000, 3 * unit.length))
    }
  })

  // Rows a model writes on purpose: a CSV row of multi-word values, equal JSON records of a list, each
  // with its comma (token-period hands over blocks of two records and more, read copy by copy).
  it.each([
    ['New York City,New York,United States,8336817,0\n'],
    ['{"enabled": false, "weight": 0, "label": null},\n'],
    ['  {"name": "Bob", "age": 30},\n'],
  ] as const)('still follows a CSV row or an equal JSON record of a list (%j) until dataMinSpan', (row) => {
    for (const side of ['reasoning', 'text'] as const) {
      expect(feed(row.repeat(Math.floor(DEFAULT_CONFIG.dataMinSpan / row.length) - 2), side)).toBeUndefined()
    }
  })

  // Values joined by operators are written again by a loop, not by a board: a countdown's expression,
  // a cryptarithm's assignment, a move string, a LaTeX sum restated row by row (real loops of the
  // real-output corpus). Counted in copies as code, the LaTeX sum (a period of 234 chars) waited 4.5
  // copies. So did a JSON answer's reasoning said again, a line of 16 words or more being a sentence
  // whatever closes it (ZeroEval: Qwen2.5-3B, Gemma 2 and Qwen2 answers restating theirs).
  it.each([
    ['90+82\n'],
    ['80*4 + 38\n74*4 + 114\n70*5 + 5\n86*4 + 14\n'],
    ['C=2,M=3,X=4,H=1,O=0,G=5,Z=6,I=7\n\n'],
    ['A+1 K+1 A-1 '],
    ['    "reasoning": "First find the total time to clean every classroom by multiplying the minutes per classroom by the number of classrooms, then turn the minutes into hours and divide by the hours the custodian works in a week to get the number of weeks the job takes.",\n'],
    ['&= \\frac{a^2}{(a - b)(a - c)(a - d)} + \\frac{b^2}{(b - a)(b - c)(b - d)} \\\\\n&\\quad + \\frac{c^2}{(c - a)(c - b)(c - d)} + \\frac{d^2}{(d - a)(d - b)(d - c)} \\\\\n&= \\frac{a^2 (b - c) - b^2 (a - c) + c^2 (a - b)}{(a - b)(a - c)(b - c)} \\\\\n'],
  ] as const)('cuts expressions, assignments, moves and a JSON answer\'s sentence (%j) said again as prose, within max(1,000, 3 periods)', (row) => {
    const only = { tokenPeriodMinRepeats: 0, noveltyMinSpan: 0, reasoningPoolMinRepeatedChars: 0, textPoolMinRepeatedChars: 0 }
    for (const side of ['reasoning', 'text'] as const) {
      const trip = feed(row.repeat(Math.ceil(4000 / row.length)), side, { config: only })!
      expect(trip.rule).toBe('cycle')
      // Read as values alone, they would wait for valuesMinSpan (3,072), past the end of this text.
      expect(trip.at).toBeLessThanOrEqual(Math.max(1000, 3 * row.length) + 32)
    }
  })

  // Symbols in one line said again with no line break are a sequence of moves or symbols (real loops
  // of the real-output corpus: a Rubik's cube answer, a palindrome partition, knight moves); numbers in
  // one line are a vector or a drawing, and wait as values do.
  it.each([
    ["R U R' U' F D F' D' "],
    ['U U F F '],
    ["['d', 'd', 'v', 'x', 'v', 'j'], "],
    ['"B,C2,A1", "B,A1,C2", "B,C2,D4", '],
  ] as const)('counts a sequence of symbols in one line (%j) in copies', (sequence) => {
    for (const side of ['reasoning', 'text'] as const) {
      const trip = feed(sequence.repeat(Math.ceil(3000 / sequence.length)), side)!
      expect(['cycle', 'token-period']).toContain(trip.rule)
      expect(trip.at - trip.loopStart).toBeLessThanOrEqual(Math.max(1000, 3 * sequence.length))
    }
  })

  it('follows numbers in one line (an SVG path drawing the same shape again) until valuesMinSpan', () => {
    // fontawesome's keyboard icon: one key's outline, relative coordinates, over and over (npm corpus).
    const key = 'c0-8.8 7.2-16 16-16l16 0c8.8 0 16 7.2 16 16l0 16c0 8.8-7.2 16-16 16l-16 0c-8.8 0-16-7.2-16-16l0-16zm80 0'
    expect(feed(key.repeat(Math.floor(DEFAULT_CONFIG.valuesMinSpan / key.length) - 2), 'text')).toBeUndefined()
    const trip = feed(key.repeat(2 * Math.ceil(DEFAULT_CONFIG.valuesMinSpan / key.length)), 'text')!
    expect(trip.at - trip.loopStart).toBeLessThanOrEqual(DEFAULT_CONFIG.valuesMinSpan + 2 * key.length + 2 * stride)
  })

  it('leaves a 30 × 30 grid tiled by its pattern (an ARC answer) alone, and cuts its rows written on and on', () => {
    const row = '1 6 7 2 8 3 2 7 1 6 7 2 8 3 2 7 1 6 7 2 8 3 2 7 1 6 7 2 8 3\n'
    expect(feed(row.repeat(30), 'text')).toBeUndefined()
    expect(feed(row.repeat(30), 'reasoning')).toBeUndefined()
    const trip = feed(row.repeat(120), 'text')!
    // Values alone, whichever exact rule sees them first.
    expect(['cycle', 'token-period']).toContain(trip.rule)
    expect(trip.at - trip.loopStart).toBeLessThanOrEqual(DEFAULT_CONFIG.valuesMinSpan + row.length + 2 * stride)
  })

  // A file is written on purpose: the same rows written into one wait for the tool side's data span.
  it('follows rows of values in tool arguments until toolDataMinSpan, twice what reasoning and text wait for', () => {
    const row = '| GPIO | input | up | high |\n'
    const only = { tokenPeriodMinRepeats: 0, toolTokenPeriodMinRepeats: 0, noveltyMinSpan: 0, toolNoveltyMinSpan: 0 }
    const rows = row.repeat(2 * Math.ceil(DEFAULT_CONFIG.toolDataMinSpan / row.length))
    const text = feed(rows, 'text', { config: only })!
    const tool = feed(rows, 'tool', { config: only })!
    expect(text.at - text.loopStart).toBeLessThan(DEFAULT_CONFIG.toolDataMinSpan / 2 + 2 * stride)
    expect(tool.rule).toBe('cycle')
    expect(tool.at - tool.loopStart).toBeGreaterThanOrEqual(DEFAULT_CONFIG.toolDataMinSpan)
    expect(feed(rows, 'tool', { config: { ...only, toolDataMinSpan: 0 } })!.at).toBeLessThanOrEqual(DEFAULT_CONFIG.toolCycleMinSpan + row.length + 2 * stride)
  })

  it('cuts a table row read as prose (dataMinSpan 0) within the prose span', () => {
    const only = { tokenPeriodMinRepeats: 0, noveltyMinSpan: 0, toolNoveltyMinSpan: 0 }
    expect(feed('| GPIO | input | up | high |\n'.repeat(400), 'text', { config: { ...only, dataMinSpan: 0 } })!.at).toBeLessThanOrEqual(DEFAULT_CONFIG.textCycleMinSpan + 2 * stride)
  })

  // Code is counted in copies: an unrolled loop writes its block three times in a correct file (the
  // npm corpus's pg-int8), a test log four, a loop writes it on and on. A short block cycling (a JSON list of moves
  // said again and again) is cut at the cycle span, as prose is.
  const unrolled = '\t{\n\t\tcarry = high % BASE;\n\t\thigh = high / BASE >>> 0;\n\t\tt = 0x100000000 * carry + low;\n\t\tlow = t / BASE >>> 0;\n\t\tdigits = \'\' + (t - BASE * low);\n\t\tif (low === 0 && high === 0) {\n\t\t\treturn sign + digits + result;\n\t\t}\n\t\tresult = pad + digits + result;\n\t}\n\n'
  it.each(['reasoning', 'text'] as const)('lets a code block written four times through in %s and cuts it within codeMinPeriods copies', (side) => {
    const only = { tokenPeriodMinRepeats: 0, noveltyMinSpan: 0 }
    expect(feed('function readInt8(buffer) {\n' + unrolled.repeat(4) + '\treturn sign + result;\n}\n', side, { config: only })).toBeUndefined()
    const trip = feed('function readInt8(buffer) {\n' + unrolled.repeat(12), side, { config: only })!
    expect(trip.rule).toBe('cycle')
    expect(trip.at - trip.loopStart).toBeLessThanOrEqual((DEFAULT_CONFIG.codeMinPeriods - 1) * unrolled.length + 2 * stride)
  })

  it.each(['reasoning', 'text'] as const)('cuts a JSON list of moves cycling in %s at the cycle span', (side) => {
    const moves = '  "fill A",\n  "pour A->C",\n  "empty C",\n  "pour A->C",\n  "fill A",\n  "pour A->B",\n  "fill A",\n  "pour A->C",\n'
    const only = { tokenPeriodMinRepeats: 0, noveltyMinSpan: 0 }
    const trip = feed('```json\n[\n' + moves.repeat(40), side, { config: only })!
    expect(trip.rule).toBe('cycle')
    expect(trip.at - 10).toBeLessThanOrEqual(1000)
    // Read as a file written on purpose (codeMinPeriods 0 is prose; a large count waits).
    expect(feed('```json\n[\n' + moves.repeat(40), side, { config: { ...only, codeMinPeriods: 40 } })).toBeUndefined()
  })

  // A line of words ending with a comma is verse, not code: a poem restated stanza after stanza is cut
  // at the cycle span (two real AlpacaEval poems waited for codeMinPeriods copies); an indented list
  // of identifiers or arguments stays code.
  it.each(['reasoning', 'text'] as const)('cuts a poem restated verbatim in %s within 3 periods, and counts an indented argument list in copies', (side) => {
    const stanza = 'In Bora Bora, where the waves do sway,\nAnd the sun shines bright in the endless day,\nA family sets sail, to explore and play,\nIn the crystal waters, where the fishes stray.\n\n'
      + 'They dive with turtles, they swim with rays,\nThey laugh on the sand through the golden haze,\nThe children build castles, the parents gaze,\nAnd the island keeps them for all of their days.\n\n'
    const trip = feed(stanza.repeat(12), side)!
    expect(trip.rule).toBe('cycle')
    expect(trip.at).toBeLessThanOrEqual(target(stanza.length))
    const only = { tokenPeriodMinRepeats: 0, noveltyMinSpan: 0 }
    const call = 'drawRect(\n  int left, int top,\n  int width, int height,\n  Color fill, Color stroke,\n  boolean rounded, boolean shadow\n);\n'
    const code = feed(call.repeat(12), side, { config: only })!
    expect(code.at - code.loopStart).toBeGreaterThan((DEFAULT_CONFIG.codeMinPeriods - 1.5) * call.length)
  })

  // A `|` inside a line of code is an operator, not a table's column: a real loop of one such call
  // (`FOREGROUND_RED | FOREGROUND_GREEN | FOREGROUND_BLUE`) waited 6 K as a table row.
  it.each(['reasoning', 'text'] as const)('counts a line of code with | operators in copies in %s, and leaves a table row to the data span', (side) => {
    const call = '    SetConsoleTextAttribute(hConsole, FOREGROUND_RED | FOREGROUND_GREEN | FOREGROUND_BLUE);\n'
    const trip = feed('int main() {\n' + call.repeat(60), side)!
    expect(trip.rule).toBe('cycle')
    expect(trip.at - trip.loopStart).toBeLessThanOrEqual(Math.max(DEFAULT_CONFIG.textCycleMinSpan, (DEFAULT_CONFIG.codeMinPeriods - 1) * call.length) + 2 * stride)
    const row = '| GPIO 4 | input | pull-up | high |\n'
    const table = feed('| pin | mode | pull | level |\n|---|---|---|---|\n' + row.repeat(120), side, { config: { tokenPeriodMinRepeats: 0 } })
    expect(table === undefined || table.at - table.loopStart >= DEFAULT_CONFIG.dataMinSpan).toBe(true)
  })

  // American style puts the comma inside the quotes: `"The Sopranos," "Dexter,"` is prose, not a CSV
  // row (a real AlpacaEval answer repeated such a list of titles verbatim for 5.8 K chars, uncut).
  it.each(['reasoning', 'text'] as const)('cuts a list of quoted titles said again verbatim in %s as prose, and leaves a CSV row of quoted fields to the data span', (side) => {
    const titles = 'Other crime dramas worth a look are "The Sopranos," "The Good Wife," "NCIS," "The Shield," "The Blacklist," "Dexter," "The Mentalist," "The Closer,"'
    const onset = 'You might also enjoy these shows. '.length
    const trip = feed('You might also enjoy these shows. ' + (titles + ' ').repeat(40), side)!
    expect(trip.rule).toBe('cycle')
    expect(trip.at - onset).toBeLessThanOrEqual(target(titles.length + 1))
    // Copies of one CSV row of quoted fields: data, left to the data span.
    expect(feed('id,count,code,word\n' + '"sit","42","ABC","amet"\n'.repeat(200), side)).toBeUndefined()
  })

  it('is switched off by a max period of 0', () => {
    const loop = periodic(100, 5000, PROSE_EN, 300)
    const others = { tokenPeriodMinRepeats: 0, reasoningPoolMinRepeatedChars: 0, textPoolMinRepeatedChars: 0, noveltyMinSpan: 0, toolNoveltyMinSpan: 0 }
    expect(feed(loop, 'reasoning', { config: { ...others, reasoningCycleMaxPeriod: 0 } })).toBeUndefined()
    // The text side keeps its own cap.
    expect(feed(loop, 'text', { config: { ...others, reasoningCycleMaxPeriod: 0 } })?.rule).toBe('cycle')
  })

  it('misses a period above the cap, so the cap must stay above real periods', () => {
    const loop = periodic(600, 12_000, PROSE_EN, 0)
    const only = { tokenPeriodMinRepeats: 0, reasoningPoolMinRepeatedChars: 0, noveltyMinSpan: 0, toolNoveltyMinSpan: 0 }
    expect(feed(loop, 'reasoning', { config: { ...only, reasoningCycleMaxPeriod: 512 } })).toBeUndefined()
    expect(feed(loop, 'reasoning', { config: only })?.rule).toBe('cycle')
  })
})
