#!/usr/bin/env node
// Prints the sweep of test/fixtures/detector/shape-sweep.mjs over the built detector (lib/detector.js):
// per loop shape and side, the cut's latency after onset (min/median/max), the rules that cut and every
// problem (a miss, a latency over its bound, a verdict that depends on the delta size); then every
// look-alike that tripped. `node dev/shape-sweep.mjs [name-filter] [--set key=value ...] [--seeds N]`: a
// quick way to try a setting before the test (test/detector/shape-sweep.test.ts) pins the defaults.
// The test reads seeds 1-6; `--seeds 48` reads 1-48, where the tails lie (four defects the six seeds
// hid were found so: a decision circled cut 1,791 chars in, a retry transcript and a long pool cut far
// too late, an emoji run whose verdict depended on the deltas).
import { parseArgs } from 'node:util'
import { settingsFromArgs } from './settings-args.mjs'
import { StreamDetector } from '../lib/detector.js'
import { LOOK_ALIKES, LOOP_SHAPES } from '../test/fixtures/detector/shapes.mjs'
import { SWEEP_SIDES, sweepLookAlike, sweepShape } from '../test/fixtures/detector/shape-sweep.mjs'

const { values, positionals } = parseArgs({ options: { set: { type: 'string', multiple: true }, seeds: { type: 'string' } }, allowPositionals: true })
const filter = positionals[0] ?? ''
const config = settingsFromArgs(values.set)
const seeds = values.seeds === undefined ? undefined : Array.from({ length: Number(values.seeds) }, (_, i) => i + 1)

let failures = 0
for (const name of Object.keys(LOOP_SHAPES)) {
  if (!name.includes(filter)) continue
  for (const side of SWEEP_SIDES) {
    const { latencies, rules, problems } = sweepShape(StreamDetector, config, name, side, seeds)
    const summary = latencies.length ? `${latencies[0]}/${latencies[latencies.length >> 1]}/${latencies[latencies.length - 1]}` : '-'
    failures += problems.length
    console.log(`${problems.length ? 'FAIL' : 'ok  '} ${name.padEnd(16)} ${side.padEnd(9)} latency min/med/max ${summary.padEnd(18)} ${rules.join(',')}${problems.length ? '  ' + problems.slice(0, 4).join('; ') + (problems.length > 4 ? ` (+${problems.length - 4})` : '') : ''}`)
  }
}
for (const name of Object.keys(LOOK_ALIKES)) {
  if (!name.includes(filter)) continue
  for (const side of SWEEP_SIDES) {
    const trips = sweepLookAlike(StreamDetector, config, name, side, seeds)
    failures += trips.length
    for (const trip of trips) console.log(`FAIL look-alike ${name} ${side} ${trip}`)
  }
}
console.log(failures ? `${failures} problems` : 'every shape cut within its bound, no look-alike tripped')
process.exitCode = failures ? 1 : 0
