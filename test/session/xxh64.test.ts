import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import fc from 'fast-check'
import { decompress } from 'fzstd'
import { describe, expect, it } from 'vitest'
import { Xxh64, xxh64Hex } from '../../src/session/xxh64.ts'
import { frameLayout } from './zstd-layout.ts'

const fixtures = join(import.meta.dirname, '../fixtures/sessions')
const ascii = (text: string) => new TextEncoder().encode(text)

describe('XXH64 (seed 0)', () => {
  it.each([
    // The xxHash specification's and reference implementation's published values.
    ['', 'ef46db3751d8e999'],
    ['a', 'd24ec4f1a98c6e5b'],
    ['abc', '44bc2cf5ad770999'],
    // 39 bytes: one 32-byte stripe, then an 8-byte lane is not whole: a 4-byte word and 3 single bytes.
    ['Nobody inspects the spammish repetition', 'fbcea83c8a378bf1'],
  ])('%j hashes to %s', (text, hash) => {
    expect(xxh64Hex(ascii(text))).toBe(hash)
  })

  it('agrees with zstd\'s own content checksum on every frame of the session samples', async () => {
    let checked = 0
    for (const name of ['work.rc8.jsonl.zstd', 'work.v4.jsonl.zstd', 'stall.rc8.jsonl.zstd', 'phrase-pool.rc8.jsonl.zstd', 'phrase-pool-uncut.rc8.jsonl.zstd']) {
      const bytes = new Uint8Array(await readFile(join(fixtures, name)))
      for (const frame of frameLayout(bytes)) {
        const content = decompress(bytes.subarray(frame.start, frame.end))
        const hash = new Xxh64()
        hash.update(content)
        expect(frame.checksum).toBeDefined()
        expect(hash.digest()[1]).toBe(frame.checksum)
        checked++
      }
    }
    // Frames of about 100 bytes to over 90 KB of content: every stripe and tail path.
    expect(checked).toBeGreaterThan(20)
  })

  it('gives the same hash however the input is sliced', () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 300 }), fc.array(fc.nat(300), { maxLength: 8 }), (bytes, cuts) => {
      const hash = new Xxh64()
      let at = 0
      for (const cut of [...cuts.sort((a, b) => a - b), bytes.length]) {
        const to = Math.min(Math.max(at, cut), bytes.length)
        hash.update(bytes.subarray(at, to))
        at = to
      }
      const [high, low] = hash.digest()
      expect(high.toString(16).padStart(8, '0') + low.toString(16).padStart(8, '0')).toBe(xxh64Hex(bytes))
    }), { numRuns: 200, seed: 15 })
  })
})
