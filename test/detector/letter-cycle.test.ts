// letter-cycle: sub-word fragments cycling with a letter changed or dropped here and there are cut
// soon after their onset, whatever the delta sizes; random letter strings, identifier lists, base64
// blobs, prose and files are not.
import { describe, expect, it } from 'vitest'
import { DEFAULT_CONFIG, DetectorPlan, StreamDetector } from '../../src/detector/index.ts'
import { PROSE_EN, PROSE_ZH } from '../fixtures/detector/loops.mjs'
import { feed, feedFixed } from './feed.ts'

/** Deterministic draws in [0, 1). */
function draws(seed: number): () => number {
  let state = seed
  return () => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0
    return state / 2 ** 32
  }
}

/** `cycle` written `copies` times, one copy in four with one letter dropped or swapped. */
function garbage(cycle: string, copies: number, seed = 7): string {
  const next = draws(seed)
  let out = ''
  for (let i = 0; i < copies; i++) {
    let copy = cycle
    if (next() < 0.25) {
      const at = Math.floor(next() * copy.length)
      const alphabet = /[a-z]/.test(cycle) ? 'aeilnorst' : '化处理的性了进行中'
      copy = next() < 0.5 ? copy.slice(0, at) + copy.slice(at + 1) : copy.slice(0, at) + alphabet[Math.floor(next() * 9)] + copy.slice(at + 1)
    }
    out += copy
  }
  return out
}

function randomLetters(length: number, seed: number): string {
  const next = draws(seed)
  let out = ''
  for (let i = 0; i < length; i++) out += String.fromCharCode(97 + Math.floor(next() * 26))
  return out
}

const LEAD = 'The remaining helper names, after the rename the linter asks for, are these: '

describe('letter-cycle', () => {
  it.each([
    ['run together', 'izationalisinglymenteration'],
    ['spaced', 'ologicallynessifyingance '],
    ['a longer cycle', 'ertionalizingmentablenessfulnessificationaryologically'],
    ['in Chinese, spaced', '化处理的性化了性化处理的 '],
  ])('cuts sub-word garbage (%s) within about 600 chars of its onset on reasoning and text, the same cut at any delta', (_, cycle) => {
    const text = LEAD + garbage(cycle, Math.ceil(3000 / cycle.length))
    for (const side of ['reasoning', 'text'] as const) {
      const trips = [3, 16, 64].map((delta) => feedFixed(text, side, delta))
      for (const trip of trips) {
        expect(trip?.rule).toBe('letter-cycle')
        expect(trip!.at - LEAD.length).toBeLessThanOrEqual(DEFAULT_CONFIG.letterCycleMinSpan + 64 + 32)
        expect(trip!.loopStart).toBe(trips[0]!.loopStart)
        expect(trip!.loopStart).toBeGreaterThanOrEqual(LEAD.length - 32)
      }
    }
  })

  it('lets random letter strings, identifier lists, a base64 blob and prose through', () => {
    const only = { noveltyMinSpan: 0, tokenPeriodMinRepeats: 0 }
    // A puzzle's random strings (ransom notes, isomorphic strings): a fifth of the letters match by chance.
    expect(feed(`Check the note: ${randomLetters(600, 3)} against the magazine ${randomLetters(900, 4)}.`, 'text', { config: only })).toBeUndefined()
    // An identifier list: long words, each its own.
    const identifiers = 'borderBottomColor borderBottomStyle borderBottomWidth borderImageOutset borderImageRepeat borderImageSlice borderImageSource borderImageWidth borderLeftColor borderLeftStyle borderLeftWidth borderRightColor borderRightStyle borderRightWidth borderTopColor borderTopStyle borderTopWidth columnRuleColor columnRuleStyle columnRuleWidth fontFeatureSettings fontVariantNumeric'
    expect(feed(identifiers + ' ' + identifiers.toLowerCase(), 'reasoning', { config: only })).toBeUndefined()
    // Zero bytes in base64 (`AAAA`) between a few letters of structure: near-periodic, but one letter makes most of it.
    const next = draws(5)
    let blob = ''
    while (blob.length < 1200) blob += 'AAAA' + 'CQLsGEyKwBUFDEPMI'[Math.floor(next() * 17)] + 'AAA' + (next() < 0.3 ? 'AAAB' : 'AAAA')
    expect(feed('data:application/wasm;base64,' + blob + '==', 'text', { config: only })).toBeUndefined()
    expect(feed(PROSE_EN, 'text', { config: only })).toBeUndefined()
    expect(feed(PROSE_ZH, 'text', { config: only })).toBeUndefined()
    // Chinese names listed with spaces: words of two or three characters.
    expect(feed('名单：' + '张伟 王芳 李娜 刘洋 陈静 杨磊 赵敏 黄勇 周杰 吴霞 '.repeat(40), 'text', { config: { ...only, textCycleMaxPeriod: 0, textPoolMinRepeatedChars: 0 } })?.rule).not.toBe('letter-cycle')
  })

  it('is off on the tool side, on a side watched verbatim, and at a span of 0', () => {
    const text = LEAD + garbage('izationalisinglymenteration', 120)
    const only = { noveltyMinSpan: 0, toolNoveltyMinSpan: 0 }
    expect(feed(text, 'tool', { config: only })?.rule).not.toBe('letter-cycle')
    expect(feed(text, 'text', { detector: new StreamDetector(new DetectorPlan(only, { text: 'verbatim' })) })?.rule).not.toBe('letter-cycle')
    expect(feed(text, 'text', { config: { ...only, letterCycleMinSpan: 0 } })?.rule).not.toBe('letter-cycle')
  })
})
