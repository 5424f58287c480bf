import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import fc from 'fast-check'
import { Decompress, decompress } from 'fzstd'
import { describe, expect, it } from 'vitest'
import { ZstdFramesDecoder, startsWithZstdFrame } from '../../src/session/index.ts'
import type { ZstdDamage } from '../../src/session/index.ts'
import { frameLayout } from './zstd-layout.ts'

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

describe('ZstdFramesDecoder on damaged input', () => {
  /** Decoded text and damages, with the input pushed in the given slices. */
  function decodeDamaged(bytes: Uint8Array, cuts: number[]) {
    const out: Uint8Array[] = []
    const damages: ZstdDamage[] = []
    const decoder = new ZstdFramesDecoder((data) => out.push(data.slice()), (damage) => damages.push(damage))
    let at = 0
    for (const cut of [...cuts, bytes.length]) {
      decoder.push(bytes.subarray(at, Math.max(at, cut)))
      at = Math.max(at, cut)
    }
    decoder.end()
    return { text: Buffer.concat(out).toString('utf8'), damages, frames: decoder.frames }
  }

  const frames = frameLayout(sample)
  // Frame 2 undecodable (block sizes intact), frame 5's block header reserved (found again by its magic), frame 7's magic gone.
  const damaged = Uint8Array.from(sample)
  const block = frames[2]!.blocks.find((candidate) => candidate.type === 'compressed')!
  damaged.fill(0xff, block.body, block.body + block.size)
  damaged[frames[5]!.blocks[0]!.header] |= 0x06
  damaged[frames[7]!.start + 1] = 0
  const whole = decodeDamaged(damaged, [])

  it('skips exactly the damaged frames and decodes all the others', () => {
    expect(whole.damages.map(({ kind, offset, end, resynced }) => ({ kind, offset, end, resynced }))).toEqual([
      { kind: 'corrupt-frame', offset: frames[2]!.start, end: frames[2]!.end, resynced: false },
      { kind: 'corrupt-frame', offset: frames[5]!.start, end: frames[5]!.end, resynced: true },
      { kind: 'corrupt-frame', offset: frames[7]!.start, end: frames[7]!.end, resynced: true },
    ])
    const others = frames.filter((_, index) => ![2, 5, 7].includes(index))
    expect(whole.frames).toBe(others.length)
    expect(whole.text).toBe(others.map((frame) => Buffer.from(decompress(sample.subarray(frame.start, frame.end))).toString('utf8')).join(''))
  })

  it('reports the same damage and data however the input is sliced', () => {
    fc.assert(fc.property(fc.array(fc.nat(damaged.length), { maxLength: 40 }), (cuts) => {
      expect(decodeDamaged(damaged, cuts.sort((a, b) => a - b))).toEqual(whole)
    }), { numRuns: 100, seed: 15 })
  })
})
