import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import fc from 'fast-check'
import { afterAll, describe, expect, it } from 'vitest'
import { readSession } from '../../src/session/index.ts'

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
