// The real-model-output corpus (test/fixtures/real-output: whole reasoning traces and answers of many
// models, judged correct or, where no judge read them, not ending in a loop, and outputs that loop until
// their length limit), fed through the detector as the npm corpus is. Normals: every trip must be listed
// in real-output/known-trips.txt; loops: every loop not cut within max(1,000, 3 periods) of its onset
// must be listed in known-not-cut.txt. A new trip or a new late loop fails, and so does a listed one that
// no longer happens: the lists only shrink.
// `LOOP_BREAKER_UPDATE_KNOWN_TRIPS=1` rewrites both lists instead of comparing.
// The dumps' text is read from a copy of each repository (corpus.mjs says where it looks); on a machine
// with none, this file says so and runs nothing.
import { readFileSync, writeFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { StreamDetector } from '../../src/detector/index.ts'
import { realOutputAvailable, realOutputDocuments } from '../fixtures/real-output/corpus.mjs'
import { sweepRealOutput } from '../fixtures/real-output/sweep.mjs'

const listFile = (name: string) => new URL(`../fixtures/real-output/${name}`, import.meta.url)
const readList = (name: string) => readFileSync(listFile(name), 'utf8').split('\n').filter((line) => line && !line.startsWith('#'))

const available = realOutputAvailable()
if (!available.ok) console.warn(`real-output corpus not run: ${available.reason}`)

describe.runIf(available.ok)('real-model-output corpus', () => {
  it('holds what the calibration needs: 300+ normals of 6 K+ chars from 10+ models, 50+ over 20 K, and loops', () => {
    const documents = realOutputDocuments()
    const long = documents.filter((d) => d.label === 'normal' && d.text.length >= 6000)
    expect(long.length).toBeGreaterThanOrEqual(300)
    expect(new Set(long.map((d) => d.model)).size).toBeGreaterThanOrEqual(10)
    expect(long.filter((d) => d.text.length > 20000).length).toBeGreaterThanOrEqual(50)
    expect(documents.filter((d) => d.label === 'loop').length).toBeGreaterThanOrEqual(100)
  })

  it('trips on no normal but the known ones, and cuts every loop within max(1,000, 3 periods) of its onset but the known ones', () => {
    const results = sweepRealOutput(StreamDetector)
    const trips = results.filter((r) => r.label === 'normal' && r.trip).map((r) => `${r.id} ${r.trip!.rule}`)
    const notCut = results.filter((r) => r.label === 'loop' && r.verdict !== 'cut').map((r) => `${r.id} ${r.verdict}`)
    if (process.env.LOOP_BREAKER_UPDATE_KNOWN_TRIPS === '1') {
      const header = (what: string) => `# ${what} (test/detector/corpus-real-output.test.ts); docs/corpus-findings.md says why each is left.\n`
      writeFileSync(listFile('known-trips.txt'), header('Normals the detector trips on') + trips.map((line) => `${line}\n`).join(''))
      writeFileSync(listFile('known-not-cut.txt'), header('Loops not cut within max(1,000, 3 periods) of onset: late, or uncut before the output ends') + notCut.map((line) => `${line}\n`).join(''))
      return
    }
    // An optional source with no copy here (corpus.mjs SOURCES) is left out, and so are its lines.
    const read = new Set(results.map((r) => r.id.split('/')[0]))
    const knownTrips = readList('known-trips.txt').filter((line) => read.has(line.split('/')[0]))
    const knownNotCut = readList('known-not-cut.txt').filter((line) => read.has(line.split('/')[0]))
    expect(trips.filter((line) => !knownTrips.includes(line)), 'new trips on real normal output').toEqual([])
    expect(knownTrips.filter((line) => !trips.includes(line)), 'listed trips that no longer happen: remove them from known-trips.txt').toEqual([])
    expect(notCut.filter((line) => !knownNotCut.includes(line)), 'loops newly not cut within their bound').toEqual([])
    expect(knownNotCut.filter((line) => !notCut.includes(line)), 'listed loops now cut within their bound: remove them from known-not-cut.txt').toEqual([])
  }, 600_000)
})
