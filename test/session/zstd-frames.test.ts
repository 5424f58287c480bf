import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import fc from 'fast-check'
import { Decompress, decompress } from 'fzstd'
import { describe, expect, it } from 'vitest'
import { ZstdFramesDecoder, startsWithZstdFrame } from '../../src/session/index.ts'

const fixtures = join(import.meta.dirname, '../fixtures/sessions')
const sample = new Uint8Array(await readFile(join(fixtures, 'work.rc8.jsonl.zstd')))

function decodeInSlices(bytes: Uint8Array, cuts: number[]) {
  const out: Uint8Array[] = []
  const decoder = new ZstdFramesDecoder((data) => out.push(data.slice()), (damage) => { throw new Error(damage.message) })
  let at = 0
  for (const cut of [...cuts, bytes.length]) {
    decoder.push(bytes.subarray(at, Math.max(at, cut)))
    at = Math.max(at, cut)
  }
  decoder.end()
  return { text: Buffer.concat(out).toString('utf8'), frames: decoder.frames }
}

describe('ZstdFramesDecoder', () => {
  const reference = Buffer.from(decompress(sample)).toString('utf8')

  it('decodes every frame of a real DSH log, as fzstd does over the whole file', () => {
    const { text, frames } = decodeInSlices(sample, [])
    expect(frames).toBeGreaterThan(5)
    expect(text).toBe(reference)
    expect(text.split('\n')[0]).toMatch(/^\{"type":"session","version":0,/)
  })

  it('fzstd\'s streaming decoder continues across frames too', () => {
    const out: Uint8Array[] = []
    const stream = new Decompress((data) => out.push(data.slice()))
    stream.push(sample, true)
    expect(Buffer.concat(out).toString('utf8')).toBe(reference)
  })

  it('gives the same bytes however the input is sliced', () => {
    fc.assert(fc.property(fc.array(fc.nat(sample.length), { maxLength: 40 }), (cuts) => {
      expect(decodeInSlices(sample, cuts.sort((a, b) => a - b)).text).toBe(reference)
    }), { numRuns: 100 })
  })

  it('skips skippable frames', () => {
    const skippable = new Uint8Array([0x50, 0x2a, 0x4d, 0x18, 3, 0, 0, 0, 1, 2, 3])
    const bytes = new Uint8Array([...skippable, ...sample, ...skippable])
    expect(startsWithZstdFrame(bytes)).toBe(true)
    expect(decodeInSlices(bytes, [5, 9]).text).toBe(reference)
  })
})
