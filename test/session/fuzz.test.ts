import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import fc from 'fast-check'
import { afterAll, describe, expect, it } from 'vitest'
import { decompress } from 'fzstd'
import { readSession, ZstdFramesDecoder } from '../../src/session/index.ts'
import type { ZstdDamage } from '../../src/session/index.ts'
import { concatBytes, frameLayout, rawFrame } from './zstd-layout.ts'

const fixtures = join(import.meta.dirname, '../fixtures/sessions')
const scratch = await mkdtemp(join(tmpdir(), 'session-fuzz-'))
afterAll(() => rm(scratch, { recursive: true, force: true }))
const samples = await Promise.all(['work.rc8.jsonl.zstd', 'phrase-pool.rc8.jsonl.zstd', 'work.v4.jsonl.zstd', 'work.v4.jsonl']
  .map(async (name) => new Uint8Array(await readFile(join(fixtures, name)))))

let files = 0
/** Reads `bytes` as a session file; it must settle quickly, never throw, and explain any damage. */
async function readsSafely(bytes: Uint8Array) {
  const file = join(scratch, `fuzz-${files++}`)
  await writeFile(file, bytes)
  const started = performance.now()
  const log = await readSession(file)
  expect(performance.now() - started).toBeLessThan(2000)
  for (const issue of log.issues) expect(issue.message.length).toBeGreaterThan(0)
  await rm(file)
  return log
}

describe('fuzz: no crash, no hang', () => {
  it('random bytes', async () => {
    await fc.assert(fc.asyncProperty(fc.uint8Array({ maxLength: 4096 }), async (bytes) => {
      const log = await readsSafely(bytes)
      expect(log.calls).toEqual([])
    }), { numRuns: 150 })
  })

  it('random bytes behind a zstd frame magic (exercises the frame walker and fzstd)', async () => {
    await fc.assert(fc.asyncProperty(fc.uint8Array({ minLength: 1, maxLength: 4096 }), async (bytes) => {
      const framed = new Uint8Array([0x28, 0xb5, 0x2f, 0xfd, ...bytes])
      const log = await readsSafely(framed)
      expect(log.issues.length).toBeGreaterThan(0)
    }), { numRuns: 200 })
  })

  it('random truncations of real samples keep a prefix of the calls', async () => {
    const intact = await Promise.all(samples.map(async (bytes) => (await readsSafely(bytes)).calls))
    await fc.assert(fc.asyncProperty(fc.nat(samples.length - 1), fc.double({ min: 0, max: 1, noNaN: true }), async (which, share) => {
      const bytes = samples[which]!
      const log = await readsSafely(bytes.subarray(0, Math.floor(bytes.length * share)))
      const whole = intact[which]!
      // Every call but the last read is exactly the intact call; the last may be cut short.
      expect(log.calls.length).toBeLessThanOrEqual(whole.length)
      expect(log.calls.slice(0, -1)).toEqual(whole.slice(0, Math.max(0, log.calls.length - 1)))
    }), { numRuns: 150 })
  })

  it('random byte flips in real samples', async () => {
    await fc.assert(fc.asyncProperty(
      fc.nat(samples.length - 1),
      fc.array(fc.tuple(fc.double({ min: 0, max: 1, noNaN: true, maxExcluded: true }), fc.integer({ min: 1, max: 255 })), { minLength: 1, maxLength: 8 }),
      async (which, flips) => {
        const bytes = Uint8Array.from(samples[which]!)
        for (const [where, mask] of flips) bytes[Math.floor(where * bytes.length)]! ^= mask
        await readsSafely(bytes)
      }), { numRuns: 200 })
  })
})

describe('fuzz: a byte flip loses only the frames it touches', () => {
  // The zstd samples as written, and the work log re-framed with raw blocks (payload flips decode, to wrong bytes).
  const work = samples[0]!
  const zstdSamples = [...samples.slice(0, 3), concatBytes(frameLayout(work).map((frame) => rawFrame(decompress(work.subarray(frame.start, frame.end)))))]

  it('every frame no flip touched is decoded, in order; every damage names a byte range inside the file', () => {
    fc.assert(fc.property(
      fc.nat(zstdSamples.length - 1),
      fc.array(fc.tuple(fc.double({ min: 0, max: 1, noNaN: true, maxExcluded: true }), fc.integer({ min: 1, max: 255 })), { minLength: 1, maxLength: 6 }),
      fc.array(fc.nat(), { maxLength: 4 }),
      (which, flips, cuts) => {
        const original = zstdSamples[which]!
        const bytes = Uint8Array.from(original)
        const touched = new Set<number>()
        for (const [where, mask] of flips) {
          const at = Math.floor(where * bytes.length)
          bytes[at]! ^= mask
          touched.add(at)
        }
        const outputs: Uint8Array[] = []
        const damages: ZstdDamage[] = []
        const decoder = new ZstdFramesDecoder((data) => outputs.push(data.slice()), (damage) => damages.push(damage))
        let at = 0
        for (const cut of [...cuts.map((cut) => cut % (bytes.length + 1)).sort((a, b) => a - b), bytes.length]) {
          decoder.push(bytes.subarray(at, Math.max(at, cut)))
          at = Math.max(at, cut)
        }
        decoder.end()
        for (const damage of damages) {
          expect(damage.offset).toBeGreaterThanOrEqual(0)
          expect(damage.end).toBeGreaterThan(damage.offset)
          expect(damage.end).toBeLessThanOrEqual(bytes.length)
        }
        // The content of every untouched frame comes out whole and in order (frames decode in one piece).
        const expected = frameLayout(original)
          .filter((frame) => ![...touched].some((byte) => byte >= frame.start && byte < frame.end))
          .map((frame) => Buffer.from(decompress(original.subarray(frame.start, frame.end))))
        let next = 0
        for (const output of outputs) if (next < expected.length && expected[next]!.equals(output)) next++
        expect(next).toBe(expected.length)
      }), { numRuns: 300, seed: 1515 })
  })
})
