import { describe, expect, it } from 'vitest'
import { LOOK_ALIKES, LOOP_SHAPES, dataLoop, normalPrefix, type ShapeGenerator } from '../fixtures/detector/shapes.mjs'

// The shape generators are evidence for every rule's tests, so they must be reproducible and their
// onset exact: a latency measured from a wrong onset is a wrong latency.
const generators = Object.entries({ ...LOOP_SHAPES, ...LOOK_ALIKES }) as [string, ShapeGenerator][]
const languages = ['en', 'zh'] as const

describe('shape generators', () => {
  it.each(generators)('%s is deterministic and its seed matters', (_name, generate) => {
    for (const language of languages) {
      const first = generate({ seed: 3, language })
      expect(generate({ seed: 3, language })).toEqual(first)
      const others = [4, 5, 6, 7].map((seed) => generate({ seed, language }).text)
      expect(others.some((text) => text !== first.text)).toBe(true)
    }
  })

  it.each(generators)('%s begins its loop at onset, after the normal prefix, on every side', (name, generate) => {
    for (const language of languages) {
      for (const seed of [1, 2]) {
        const bare = generate({ seed, language, prefixChars: 0 })
        const prefixed = generate({ seed, language, prefixChars: 900 })
        const prefix = normalPrefix(900, language, seed)
        // A shape's own lead-in (a table header, "here is the output:") sits between prefix and onset.
        const leadIn = bare.text.slice(0, bare.onset)
        expect(leadIn.length).toBeLessThan(100)
        expect(prefixed.text.slice(0, prefixed.onset)).toBe(prefix + leadIn)
        expect(prefixed.text.slice(prefixed.onset)).toBe(bare.text.slice(bare.onset))
        expect(generate({ seed, language, prefixChars: 900, side: 'reasoning' })).toEqual(prefixed)
        // Tool side: the same text carried JSON-escaped as a write_file call's content; onset maps to it.
        // A configuration file carries no prose prefix on the tool side.
        const toolPrefix = name === 'configurationJson' ? '' : prefix
        const tool = generate({ seed, language, prefixChars: 900, side: 'tool' })
        const args = JSON.parse(tool.text)
        expect(typeof args.path).toBe('string')
        expect(args.content).toBe(toolPrefix + bare.text)
        expect(JSON.parse(`"${tool.text.slice(tool.text.indexOf('"content":"') + 11, tool.onset)}"`)).toBe(toolPrefix + leadIn)
      }
    }
  })

  it('normal prefixes are the prose fixtures, then productive prose, without a repeated sentence', () => {
    for (const language of languages) {
      const prefix = normalPrefix(6000, language, 9)
      expect(prefix.length).toBeGreaterThanOrEqual(6000)
      const sentences = prefix.split(language === 'zh' ? '。' : '. ').map((s) => s.trim()).filter((s) => s.length > 20)
      expect(new Set(sentences).size).toBe(sentences.length)
    }
  })

  it('data rows as an insert_rows array: onset is the first identical row after distinct ones', () => {
    for (const language of languages) {
      const { text, onset } = dataLoop({ side: 'tool', rowsAsArray: true, language, seed: 4 })
      const rows = JSON.parse(text).rows as { id: number, name: string }[]
      const head = JSON.parse(text.slice(0, onset - 1) + ']}').rows as { id: number, name: string }[]
      expect(new Set(head.map((row) => row.name)).size).toBe(head.length)
      const loop = rows.slice(head.length)
      expect(loop.length).toBeGreaterThan(50)
      expect(new Set(loop.map((row) => row.name)).size).toBe(1)
      expect(loop.map((row) => row.id)).toEqual(loop.map((_, i) => head.length + 1 + i))
    }
  })

  it('counters, ids and changing slots never repeat a 400-char stretch verbatim (why exact rules miss them)', () => {
    for (const name of ['counter', 'chatTemplate', 'retryBlock', 'nounFrame', 'synonymChain', 'code', 'data'] as const) {
      for (const language of languages) {
        for (const seed of [1, 2, 3, 4]) {
          const { text } = LOOP_SHAPES[name]({ seed, language, prefixChars: 0 })
          expect(text.length).toBeGreaterThanOrEqual(6000)
          for (let at = 0; at + 400 <= text.length; at += 50) {
            expect(text.indexOf(text.slice(at, at + 400), at + 1), `${name} ${language} seed ${seed} at ${at}`).toBe(-1)
          }
        }
      }
    }
  })
})
