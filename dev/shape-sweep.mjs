#!/usr/bin/env node
// Streams every loop shape of test/fixtures/detector/shapes.mjs (each side, en and zh, seeds 1-6, after
// a 3,000-char normal prefix, in 3/16/64-char deltas) and every look-alike through the built detector
// (lib/detector.js), and prints per shape and side: misses, the cut's latency after onset against its
// bound (latencyBound), whether the verdict depended on the delta size, and the rules that cut; then
// every look-alike that tripped. `node dev/shape-sweep.mjs [name-filter] [--set key=value ...]`.
import { parseArgs } from 'node:util'
import { StreamDetector } from '../lib/detector.js'
import { LOOK_ALIKES, LOOP_SHAPES, latencyBound } from '../test/fixtures/detector/shapes.mjs'

const { values, positionals } = parseArgs({ options: { set: { type: 'string', multiple: true } }, allowPositionals: true })
const filter = positionals[0] ?? ''
const config = Object.fromEntries((values.set ?? []).map((pair) => [pair.slice(0, pair.indexOf('=')), Number(pair.slice(pair.indexOf('=') + 1))]))
const DELTAS = [3, 16, 64]
const SIDES = ['reasoning', 'text', 'tool']
const feed = (text, side, delta) => {
  const detector = new StreamDetector(config)
  for (let at = 0; at < text.length; at += delta) {
    const trip = detector.push(side, text.slice(at, at + delta))
    if (trip) return trip
  }
  return undefined
}

let failures = 0
for (const [name, generate] of Object.entries(LOOP_SHAPES)) {
  if (!name.includes(filter)) continue
  for (const side of SIDES) {
    const latencies = []
    const rules = new Set()
    const problems = []
    for (const language of ['en', 'zh']) for (const seed of [1, 2, 3, 4, 5, 6]) {
      const bound = latencyBound(name, side, { seed, language })
      const { text, onset } = generate({ seed, language, side, prefixChars: 3000, loopChars: Math.ceil(bound + 6000) })
      const trips = DELTAS.map((delta) => feed(text, side, delta))
      if (trips.some((trip) => !trip)) {
        problems.push(`${language}/${seed} ${trips.every((trip) => !trip) ? 'miss' : 'miss at some deltas'}`)
        continue
      }
      const [first] = trips
      if (trips.some((trip) => trip.rule !== first.rule || trip.loopStart !== first.loopStart)) problems.push(`${language}/${seed} verdict depends on deltas`)
      const latency = Math.max(...trips.map((trip) => trip.at)) - onset
      if (latency > bound) problems.push(`${language}/${seed} ${latency} > ${Math.round(bound)}`)
      if (first.loopStart < onset - 200) problems.push(`${language}/${seed} loopStart ${first.loopStart} before onset ${onset}`)
      latencies.push(latency)
      for (const trip of trips) rules.add(trip.rule)
    }
    latencies.sort((a, b) => a - b)
    const summary = latencies.length ? `${latencies[0]}/${latencies[latencies.length >> 1]}/${latencies[latencies.length - 1]}` : '-'
    failures += problems.length
    console.log(`${problems.length ? 'FAIL' : 'ok  '} ${name.padEnd(16)} ${side.padEnd(9)} latency min/med/max ${summary.padEnd(18)} ${[...rules].join(',')}${problems.length ? '  ' + problems.slice(0, 4).join('; ') + (problems.length > 4 ? ` (+${problems.length - 4})` : '') : ''}`)
  }
}
for (const [name, generate] of Object.entries(LOOK_ALIKES)) {
  if (!name.includes(filter)) continue
  for (const side of SIDES) for (const language of ['en', 'zh']) for (const seed of [1, 2, 3, 4, 5, 6]) {
    const { text } = generate({ seed, language, side })
    for (const delta of DELTAS) {
      const trip = feed(text, side, delta)
      if (!trip) continue
      failures++
      console.log(`FAIL look-alike ${name} ${side} ${language}/${seed} delta ${delta}: ${trip.rule} at ${trip.at}`)
      break
    }
  }
}
console.log(failures ? `${failures} problems` : 'every shape cut within its bound, no look-alike tripped')
process.exitCode = failures ? 1 : 0
