// Detector cost on real text: throughput on the node_modules corpus streamed in 3-char deltas, as a
// ratio to the floor of merely concatenating the same deltas (target ≥ 1/15), and heap growth after
// 64 Mi chars of productive prose through one StreamDetector (target < 2 MiB; run with --expose-gc, as bench/run.mjs does).
// Prints both figures; a missed target sets exit code 3 (see bench/run.mjs). A trip in the heap run is a
// false positive on normal text, not a missed target: it fails the bench (exit 1).

import { StreamDetector } from '../lib/detector.js'
import { loadCorpus } from '../test/fixtures/detector/corpus.mjs'
import { productiveProse } from '../test/fixtures/detector/loops.mjs'

const DELTA = 3
const HEAP_CHARS = 64 * 1024 * 1024
const SIDES = ['reasoning', 'text', 'tool']

if (typeof globalThis.gc !== 'function') {
  console.error('detector.bench: run with node --expose-gc (npm run bench does)')
  process.exit(2)
}

const documents = loadCorpus().map((document) => document.text)
const corpusChars = documents.reduce((sum, text) => sum + text.length, 0)

function concatenate() {
  let total = 0
  for (const text of documents) {
    let streamed = ''
    for (let at = 0; at < text.length; at += DELTA) streamed += text.slice(at, at + DELTA)
    total += streamed.length
  }
  return total
}

function detect(side) {
  let trips = 0
  for (const text of documents) {
    const detector = new StreamDetector()
    for (let at = 0; at < text.length; at += DELTA) {
      if (detector.push(side, text.slice(at, at + DELTA))) {
        trips++
        break
      }
    }
  }
  return trips
}

// CPU time of this process, not wall time: the figure then holds on a busy machine too.
function cpuSeconds() {
  const { user, system } = process.cpuUsage()
  return (user + system) / 1e6
}

function secondsOf(run) {
  const started = cpuSeconds()
  run()
  return cpuSeconds() - started
}

const mega = (charsPerSecond) => `${(charsPerSecond / 1e6).toFixed(1)} M chars/s`
// Rounds interleave the floor and the three sides, and each keeps its best round, so a burst of load
// from elsewhere on the machine does not favour one over the other. The sides' order turns by one each
// round, so each side runs twice right after the floor: with the defaults the reasoning and text sides
// do the same work, yet in a fixed order the side run first measured about a tenth faster than the
// later ones (1/14.0-1/15.0 of the floor against 1/15.6-1/16.4, four runs of one build), and with
// three rounds two sides still differed by a tenth. Six rounds take about 95 s.
const ROUNDS = 2 * SIDES.length
let floorSeconds = Infinity
const sideSeconds = Object.fromEntries(SIDES.map((side) => [side, Infinity]))
const sideTrips = {}
for (let round = 0; round < ROUNDS; round++) {
  floorSeconds = Math.min(floorSeconds, secondsOf(concatenate))
  const turn = round % SIDES.length
  const order = [...SIDES.slice(turn), ...SIDES.slice(0, turn)]
  for (const side of order) sideSeconds[side] = Math.min(sideSeconds[side], secondsOf(() => { sideTrips[side] = detect(side) }))
}
console.log(`corpus: ${documents.length} documents, ${(corpusChars / 1e6).toFixed(1)} M chars, ${DELTA}-char deltas`)
console.log(`floor (concatenating the deltas): ${mega(corpusChars / floorSeconds)} (CPU time, best of ${ROUNDS})`)
let slowestRatio = Infinity
for (const side of SIDES) {
  const ratio = floorSeconds / sideSeconds[side]
  slowestRatio = Math.min(slowestRatio, ratio)
  console.log(`detector, ${side.padEnd(9)}: ${mega(corpusChars / sideSeconds[side])} = 1/${(1 / ratio).toFixed(1)} of the floor (${sideTrips[side]} trips)`)
}

// Heap: one detector, 64 Mi chars of productive prose on the reasoning side, made 1 Mi chars at a
// time with a new seed each (the corpus cycled is no normal call: one file three times over, as
// packages ship cjs, esm and types copies, is a familiar run the novelty rule cuts).
const detector = new StreamDetector()
detector.push('reasoning', productiveProse(4096, 'en', 1))
globalThis.gc()
const before = process.memoryUsage().heapUsed
let pushed = 0
let tripped
outer: for (let seed = 2; pushed < HEAP_CHARS; seed++) {
  const text = productiveProse(1048576, seed % 2 === 0 ? 'en' : 'zh', seed)
  for (let at = 0; at < text.length && pushed < HEAP_CHARS; at += DELTA) {
    const delta = text.slice(at, at + DELTA)
    pushed += delta.length
    tripped = detector.push('reasoning', delta)
    if (tripped) break outer
  }
}
globalThis.gc()
const growth = process.memoryUsage().heapUsed - before
console.log(`heap growth after ${(pushed / 1048576).toFixed(0)} Mi chars through one detector: ${(growth / 1048576).toFixed(2)} MiB`)

if (tripped) throw new Error(`the heap run tripped (${tripped.rule} at ${tripped.at}) on normal text, so it did not push 64 Mi chars`)
const missed = []
if (slowestRatio < 1 / 15) missed.push(`throughput 1/${(1 / slowestRatio).toFixed(1)} of the floor is below the 1/15 target`)
if (growth >= 2 * 1048576) missed.push(`heap growth ${(growth / 1048576).toFixed(2)} MiB is not under 2 MiB`)
for (const target of missed) console.log(`MISSED: ${target}`)
if (missed.length > 0) process.exitCode = 3
