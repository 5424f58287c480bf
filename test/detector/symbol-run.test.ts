import { describe, expect, it } from 'vitest'
import { DEFAULT_CONFIG, type Side } from '../../src/detector/index.ts'
import { feed, feedFixed } from './feed.ts'
import { NORMAL_SHAPES } from '../fixtures/detector/normal-shapes.mjs'
import { RUN_UNITS, latencyBound, punctuationRunLoop } from '../fixtures/detector/shapes.mjs'

const { symbolRunMinChars, dividerRunMinChars, toolSymbolRunMinChars, toolDividerRunMinChars, cycleCheckStride } = DEFAULT_CONFIG

// Units that never run long in real writing (sentence punctuation, emoji, letters, CJK characters, two
// letters alternating), with or without white space between: cut within 400 chars of onset in
// reasoning and text and within 2,400 in tool arguments (issue 12).
const SHORT_RUNS = ['.', '。', '!', '! ', '?', '！', '？', '…', '、', '😀', '🙏', '❤️', 'a ', 'x', 'は', 'ж', 'ا', 'क', '的', '好', '★', '→', '?\n\n',
  'ok', 'Ok ok ', 'no no no\n', 'OK  ', '好的']
// Dividers, padding, closers and laughter: written long on purpose, so cut at the divider length. A
// backslash too: in tool arguments it arrives escaped, as two (`\\`), and read as an escape's opener a run of
// them was never cut there (a bounded-loop search over repeated units found it).
const LONG_RUNS = ['-', '=', '_', '#', '* ', '~', '─', '━', '═', '·', '—', 'ー', '0', ') ', '}', '哈', '哈 ', '呵', 'w', 'W ', 'ㅋ', '\\', '\\ ']

/** The latest trip over 3/16/64-char deltas of `unit` repeated after a 2,000-char prefix, checked for the same verdict. */
function cutOf(unit: string, language: 'en' | 'zh', side: Side) {
  const { text, onset } = punctuationRunLoop({ unit, separator: '', language, side, prefixChars: 2000, loopChars: 8000, seed: 9 })
  const trips = [3, 16, 64].map((delta) => feedFixed(text, side, delta))
  const label = `${JSON.stringify(unit)} ${language} ${side}`
  for (const trip of trips) {
    expect(trip?.rule, label).toBe('symbol-run')
    expect({ loopStart: trip!.loopStart, repeatedChars: trip!.repeatedChars }, label)
      .toEqual({ loopStart: trips[0]!.loopStart, repeatedChars: trips[0]!.repeatedChars })
    // A loop may begin with the prefix's last mark ("." + "!!!!"; `\n` is transparent in JSON).
    expect(trip!.loopStart, label).toBeGreaterThanOrEqual(onset - (side === 'tool' ? 4 : 2))
    expect(trip!.loopStart, label).toBeLessThanOrEqual(onset + unit.length)
  }
  return { latency: Math.max(...trips.map((trip) => trip!.at)) - onset, repeatedChars: trips[0]!.repeatedChars, label }
}

describe('symbol run', () => {
  for (const language of ['en', 'zh'] as const) {
    for (const side of ['reasoning', 'text', 'tool'] as const) {
      const tool = side === 'tool'
      it(`cuts a run of a sentence mark, emoji, letter or pair (${language} prefix, ${side}) within ${tool ? '2,400' : '400'} chars, the same cut at 3/16/64-char deltas`, () => {
        for (const unit of SHORT_RUNS) {
          const { latency, repeatedChars, label } = cutOf(unit, language, side)
          expect(repeatedChars, label).toBeGreaterThanOrEqual(tool ? toolSymbolRunMinChars : symbolRunMinChars)
          expect(latency, label).toBeLessThanOrEqual(tool ? 2400 : 400)
        }
      })

      it(`cuts a run of a divider, padding, closer or laughter (${language} prefix, ${side}) at the divider length, the same cut at 3/16/64-char deltas`, () => {
        const length = tool ? toolDividerRunMinChars : dividerRunMinChars
        for (const unit of LONG_RUNS) {
          const { latency, repeatedChars, label } = cutOf(unit, language, side)
          expect(repeatedChars, label).toBeGreaterThanOrEqual(length)
          expect(latency, label).toBeLessThanOrEqual(length + cycleCheckStride + 64)
        }
      })
    }
  }

  // White space alone is padding: real loops wrote nothing but spaces or line breaks for 14-57 K chars
  // (real-output corpus).
  it.each(['\n', ' ', '\t', '\r\n', '\n    ', '\u00a0', ' \n\t ', '\\n', '\\t  '])('cuts white space alone (%j) at the divider length on every side, at any delta sizes', (unit) => {
    const prefix = 'The migration copies each table, then rebuilds its indexes in the background.\n'
    for (const side of ['reasoning', 'text', 'tool'] as const) {
      const length = side === 'tool' ? toolDividerRunMinChars : dividerRunMinChars
      const text = prefix + unit.repeat(Math.ceil((length + 2000) / unit.length))
      // Equal deltas of white space are also identical chunks: that rule is left out here.
      const trips = [3, 16, 64].map((delta) => feedFixed(text, side, delta, { maxIdenticalChunks: 0, toolMaxIdenticalChunks: 0 }))
      trips.push(feed(text, side))
      for (const trip of trips) {
        expect(trip?.rule, side).toBe('symbol-run')
        expect(trip!.loopStart, side).toBe(trips[0]!.loopStart)
        expect(trip!.loopStart, side).toBeLessThanOrEqual(prefix.length)
        expect(trip!.at - prefix.length, side).toBeLessThanOrEqual(length + cycleCheckStride + 64)
      }
    }
  })

  // ZeroEval's Gemma 2 answers wrote `\n` (and `\n   `, `  \t`) out up to their length limit, cut 550
  // chars past max(1,000, 3 periods) when such escapes counted as padding; in tool arguments they are
  // the JSON's own white space.
  it.each(['\\n', '\\n   ', '  \\t', '\\r\\n'])('cuts white-space escapes written out (%j) in reasoning and text once the run holds the symbol-run length of them, at any delta sizes', (unit) => {
    const prefix = 'The migration copies each table, then rebuilds its indexes in the background.\n'
    const text = prefix + unit.repeat(Math.ceil(6000 / unit.length))
    const escapeShare = (unit.match(/\\[nrt]/g)!.length * 2) / unit.length
    for (const side of ['reasoning', 'text'] as const) {
      const trips = [3, 16, 64].map((delta) => feedFixed(text, side, delta, { maxIdenticalChunks: 0 }))
      for (const trip of trips) {
        expect(trip?.rule, side).toBe('symbol-run')
        // The run of white space opens with the prefix's line break.
        expect(trip!.loopStart, side).toBe(prefix.length - 1)
        expect(trip!.at - prefix.length, side).toBeLessThanOrEqual(symbolRunMinChars / escapeShare + cycleCheckStride + 64)
      }
    }
    const tool = feedFixed(text, 'tool', 16, { toolMaxIdenticalChunks: 0 })
    expect(tool?.rule).toBe('symbol-run')
    expect(tool!.at - prefix.length).toBeGreaterThanOrEqual(toolDividerRunMinChars)
  })

  // Five ZeroEval answers of Gemma 2 wrote `\` a line up to their length limit, an AlpacaEval answer `-`
  // then a blank line: cut at the divider length, 550 chars past the bound, before.
  it.each(['\\\n', '-\n\n', '0\n', '|\n', '=\n'])('cuts a divider mark alone on each line (%j) in reasoning and text at the symbol-run length, at any delta sizes', (unit) => {
    const prefix = 'The migration copies each table, then rebuilds its indexes in the background.\n'
    const text = prefix + unit.repeat(Math.ceil(4000 / unit.length))
    for (const side of ['reasoning', 'text'] as const) {
      const trips = [3, 16, 64].map((delta) => feedFixed(text, side, delta, { maxIdenticalChunks: 0 }))
      for (const trip of trips) {
        expect(trip?.rule, side).toBe('symbol-run')
        expect(trip!.loopStart, side).toBe(prefix.length)
        expect(trip!.at - prefix.length, side).toBeLessThanOrEqual(symbolRunMinChars + cycleCheckStride + 64)
      }
    }
  })

  it('lets closers of nested code (a bracket a line, indented or not) and a mark a line in tool arguments wait for the divider length', () => {
    const closers = Array.from({ length: 24 }, (_, depth) => `${' '.repeat(2 * (23 - depth))}}`).join('\n') + '\n'
    for (const side of ['reasoning', 'text'] as const) {
      expect(feed(closers, side), side).toBeUndefined()
      expect(feed(')\n'.repeat(600), side), side).toBeUndefined()
      // Indented, a mark a line is no longer alone on it: `-` items of an empty list wait too.
      expect(feed('  -\n'.repeat(300), side), side).toBeUndefined()
    }
    const file = JSON.stringify({ path: 'pad.txt', content: '-\n'.repeat(1500) })
    const trip = feedFixed(file, 'tool', 16, { toolMaxIdenticalChunks: 0 })
    expect(trip?.rule).toBe('symbol-run')
    expect(trip!.repeatedChars).toBeGreaterThanOrEqual(toolDividerRunMinChars)
  })

  it('lets the escapes a normal answer writes through: a JSON string with blank lines, a run of 26 `\\r` (npm corpus)', () => {
    const answer = 'The config file should read:\n\n```json\n{ "banner": "Welcome!\\n\\n\\nPress any key\\r\\n", "pad": "' + '\\r'.repeat(26) + '" }\n```\n'
    for (const side of ['reasoning', 'text'] as const) expect(feed(answer.repeat(1), side), side).toBeUndefined()
    // Escapes amid padding count only as escapes: 1,216 spaces with a `\n` in them wait for the divider length.
    expect(feed(`| Player${' '.repeat(1200)}\\n${' '.repeat(16)}| Team |\n`, 'text')).toBeUndefined()
  })

  it('lets white space shorter than the divider length through, and none at a divider length of 0', () => {
    // A real table cell padded with 1,216 spaces (AlpacaEval, Claude 3 Opus), blank lines between paragraphs.
    const cell = `| Player${' '.repeat(1216)}| Team |\n|---|---|\n| Albert Pujols | Cardinals |\n`
    const paragraphs = 'A paragraph of prose ends here.\n\n\n\n'.repeat(200)
    for (const side of ['reasoning', 'text', 'tool'] as const) {
      expect(feed(cell, side), side).toBeUndefined()
      expect(feed(paragraphs, side)?.rule, side).not.toBe('symbol-run')
    }
    expect(feed('\n'.repeat(9000), 'text', { config: { dividerRunMinChars: 0 } })).toBeUndefined()
  })

  it('cuts every unit of the shape sweep (RUN_UNITS, with and without spaces) within its latency bound on every side', () => {
    for (const unit of RUN_UNITS) for (const separator of ['', ' ']) for (const side of ['reasoning', 'text', 'tool'] as const) {
      const label = `${JSON.stringify(unit + separator)} ${side}`
      const { text, onset } = punctuationRunLoop({ unit, separator, side, prefixChars: 3000, loopChars: 6000 })
      const trips = [3, 16, 64].map((delta) => feedFixed(text, side, delta))
      // 3-char deltas of a 3-char unit ("ok ") are identical deltas, which identical-chunks may cut first.
      for (const trip of trips.slice(1)) expect({ rule: trip?.rule, loopStart: trip?.loopStart }, label).toEqual({ rule: 'symbol-run', loopStart: trips[1]!.loopStart })
      expect(Math.max(...trips.map((trip) => trip!.at)) - onset, label).toBeLessThanOrEqual(latencyBound('punctuationRun', side, { unit }))
    }
  })

  it('reads a run opening a paragraph as a run, not as a grid: the blank line before it holds no cell (a real "????" answer ran 3 K uncut)', () => {
    const lead = 'Yeah, I know how you feel. I am just glad I do not have to worry about them anymore.\n\n'
    for (const unit of ['?', '!', '。', '😀', 'a', '的']) for (const side of ['reasoning', 'text'] as const) {
      const trips = [3, 16, 64].map((delta) => feedFixed(lead + unit.repeat(3000 / unit.length), side, delta))
      for (const trip of trips) {
        expect(trip?.rule, `${unit} ${side}`).toBe('symbol-run')
        expect(trip!.loopStart, `${unit} ${side}`).toBe(lead.length)
        expect(trip!.at - lead.length, `${unit} ${side}`).toBeLessThanOrEqual(400)
      }
    }
    // A grid still waits for the data span: rows of several cells between the breaks.
    expect(feedFixed(lead + ('❌'.repeat(8) + '\n').repeat(300), 'text', 16)).toBeUndefined()
  })

  it('lets shorter runs and alternations through (dividers, laughter, padding, "0, 0, 0")', () => {
    const short = ['!'.repeat(symbolRunMinChars - 40), '的'.repeat(symbolRunMinChars - 40), 'ok '.repeat((symbolRunMinChars - 40) / 3)]
    const long = ['='.repeat(dividerRunMinChars - 40), '-'.repeat(1200), '哈'.repeat(600), '}\n'.repeat(600), '─'.repeat(1400)]
    const alternations = ['-='.repeat(3000), '0, '.repeat(3000), '. . - '.repeat(1000), '|---'.repeat(1500), '01'.repeat(3000), '😀🙏'.repeat(2000)]
    for (const text of [...short, ...long, ...alternations]) {
      for (const side of ['reasoning', 'text', 'tool'] as const) {
        const trip = feedFixed(text, side, 7)
        expect(trip?.rule, `${side} ${text.slice(0, 6)}`).not.toBe('symbol-run')
      }
    }
    for (const name of ['==== and ---- dividers', '哈哈哈 laughter', 'markdown divider rows']) {
      expect(NORMAL_SHAPES.some((shape) => shape.name === name), name).toBe(true)
    }
  })

  it('is switched off by a length of 0; a divider length of 0 lets dividers through', () => {
    expect(feedFixed('. '.repeat(5000), 'text', 16, { symbolRunMinChars: 0, dividerRunMinChars: 0 })).toBeUndefined()
    expect(feedFixed('='.repeat(5000), 'text', 16, { symbolRunMinChars: 0 })).toBeUndefined()
    expect(feedFixed('. '.repeat(5000), 'text', 16)?.rule).toBe('symbol-run')
    expect(feedFixed('='.repeat(5000), 'text', 16)?.rule).toBe('symbol-run')
    expect(feedFixed('='.repeat(5000), 'text', 16, { dividerRunMinChars: 0 })).toBeUndefined()
    expect(feedFixed('. '.repeat(5000), 'text', 16, { dividerRunMinChars: 0 })?.rule).toBe('symbol-run')
    // With symbol-run off, the cycle rule still cuts a rule of marks at the divider span, unless that is 0 too.
    expect(feedFixed('! '.repeat(5000), 'tool', 16, { toolSymbolRunMinChars: 0, toolDividerRunMinChars: 0 })).toBeUndefined()
    expect(feedFixed('! '.repeat(5000), 'tool', 16, { toolSymbolRunMinChars: 0 })?.rule).toBe('cycle')
    expect(feedFixed('='.repeat(9000), 'tool', 16, { toolDividerRunMinChars: 0 })).toBeUndefined()
  })
})
