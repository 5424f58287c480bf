// The false-trip check over the whole corpus (test/fixtures/detector/corpus.mjs: the project's
// node_modules and ~100 pinned popular packages in .cache/corpus), one side per test file so vitest
// runs the four passes in parallel. Each document is fed in deltas of 1–16 chars whose sizes vary per
// document. The requirement is zero trips; until the rules get there, every trip today's rules make is
// listed in test/fixtures/detector/corpus-known-trips/<pass>.txt (one `file#part rule` a line,
// summarised in docs/corpus-findings.md), and the test fails on any trip not listed and on any listed
// trip that no longer happens, so the lists only shrink. `LOOP_BREAKER_UPDATE_KNOWN_TRIPS=1` rewrites
// the pass's list (and .cache/corpus-trips-<pass>.txt with an excerpt of each) instead of comparing.
import { readFileSync, writeFileSync } from 'node:fs'
import { expect } from 'vitest'
import { StreamDetector, type Side } from '../../src/detector/index.ts'
import { corpusDocuments, splitDeltas } from '../fixtures/detector/corpus.mjs'
import { writeArguments } from '../fixtures/detector/loops.mjs'

export type CorpusPass = Side | 'tool-json'

const knownTripsFile = (pass: CorpusPass) => new URL(`../fixtures/detector/corpus-known-trips/${pass}.txt`, import.meta.url)

/** `file#part rule` of every document the pass trips on, plus how much it read. */
export function corpusTrips(pass: CorpusPass) {
  const side: Side = pass === 'tool-json' ? 'tool' : pass
  const trips: string[] = []
  const excerpts: string[] = []
  let documents = 0
  let chars = 0
  for (const document of corpusDocuments()) {
    documents++
    // As a write_file call would carry the file: JSON-escaped inside the arguments.
    const text = pass === 'tool-json' ? writeArguments(document.file, document.text) : document.text
    chars += text.length
    const detector = new StreamDetector()
    for (const delta of splitDeltas(text, documents)) {
      const trip = detector.push(side, delta)
      if (trip) {
        trips.push(`${document.file}#${document.part} ${trip.rule}`)
        excerpts.push(`${document.file}#${document.part} ${trip.rule}@${trip.at}: ${JSON.stringify(text.slice(trip.loopStart, trip.loopStart + 80))}`)
        break
      }
    }
  }
  return { trips, excerpts, documents, chars }
}

/** Runs the pass and compares its trips with the known list (or rewrites the list). */
export function checkCorpusPass(pass: CorpusPass) {
  const { trips, excerpts, documents, chars } = corpusTrips(pass)
  if (process.env.LOOP_BREAKER_UPDATE_KNOWN_TRIPS === '1') {
    writeFileSync(knownTripsFile(pass), trips.map((trip) => `${trip}\n`).join(''))
    writeFileSync(new URL(`../../.cache/corpus-trips-${pass}.txt`, import.meta.url), excerpts.map((excerpt) => `${excerpt}\n`).join(''))
    return
  }
  const known = readFileSync(knownTripsFile(pass), 'utf8').split('\n').filter(Boolean)
  expect(documents).toBeGreaterThan(15_000)
  expect(chars).toBeGreaterThan(300_000_000)
  const unexpected = excerpts.filter((_, i) => !known.includes(trips[i]))
  expect(unexpected, 'new false trips').toEqual([])
  expect(known.filter((entry) => !trips.includes(entry)), `listed trips that no longer happen: remove them from corpus-known-trips/${pass}.txt`).toEqual([])
}
