#!/usr/bin/env node
// The calibration report (`npm run calibrate`): the built detector (lib/detector.js) on the three corpora
// at once, so a threshold change shows its whole trade-off. Per rule and side: trips on real model
// output (test/fixtures/real-output) and on real third-party text (the npm corpus, its four passes), and
// loops cut with their latency after onset, on the real loops and on the generated shapes. Writes
// bench/calibration.md (not committed) and prints it.
// `node dev/calibrate.mjs [--set key=value ...]` reports a setting you try the same way.
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { settingsFromArgs } from './settings-args.mjs'
import { StreamDetector } from '../lib/detector.js'
import { LOOK_ALIKES, LOOP_SHAPES, latencyBound } from '../test/fixtures/detector/shapes.mjs'
import { SWEEP_SIDES, sweepLookAlike, sweepShape } from '../test/fixtures/detector/shape-sweep.mjs'
import { realOutputAvailable } from '../test/fixtures/real-output/corpus.mjs'

const { values } = parseArgs({ options: { set: { type: 'string', multiple: true } } })
const sets = (values.set ?? []).flatMap((pair) => ['--set', pair])
const config = settingsFromArgs(values.set)
const root = new URL('../', import.meta.url)
const work = mkdtempSync(join(tmpdir(), 'calibrate-'))
const SIDES = ['reasoning', 'text', 'tool']
const RULES = ['cycle', 'phrase-pool', 'novelty', 'token-period', 'symbol-run', 'letter-cycle', 'growing-line', 'identical-chunks']

const progress = (line) => process.stderr.write(`[calibrate] ${line}\n`)
/** Runs a sweep script that writes its JSON to `file` (it exits 1 when it finds a trip: that is data here). */
function sweep(script, file) {
  const { status, error } = spawnSync(process.execPath, [script, ...sets, '--json', file], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] })
  if (error || status > 1) throw new Error(`${script} failed (${error?.message ?? `exit ${status}`})`)
  return JSON.parse(readFileSync(file, 'utf8'))
}
const median = (list) => (list.length ? list[list.length >> 1] : '-')
const sorted = (list) => [...list].sort((a, b) => a - b)

// Real model output.
const available = realOutputAvailable()
let real = []
if (available.ok) {
  progress('real model output (test/fixtures/real-output)')
  real = sweep('dev/real-output-sweep.mjs', join(work, 'real.json'))
} else progress(`real model output not run: ${available.reason}`)

// The npm corpus, every pass.
progress('npm corpus (reasoning, text, tool, tool-json), a few minutes')
const npm = sweep('dev/corpus-sweep.mjs', join(work, 'npm.json')).trips
rmSync(work, { recursive: true, force: true })

// The generated shapes (seeds 1-6, 3/16/64-char deltas) and their look-alikes.
progress('generated shapes')
const shapes = []
for (const name of Object.keys(LOOP_SHAPES)) {
  for (const side of SWEEP_SIDES) shapes.push({ name, side, ...sweepShape(StreamDetector, config, name, side) })
}
let lookAlikeTrips = 0
for (const name of Object.keys(LOOK_ALIKES)) for (const side of SWEEP_SIDES) lookAlikeTrips += sweepLookAlike(StreamDetector, config, name, side).length

const lines = []
const say = (line = '') => lines.push(line)
say('# Calibration report')
say()
say(`Detector: lib/detector.js${values.set?.length ? `, with ${values.set.join(', ')}` : ', defaults'}. How to read it: docs/detector.md, "Calibration".`)
say()
say('## Trips on normal text, per rule and side')
say()
const realNormals = real.filter((r) => r.label === 'normal')
say(`Real model output: ${realNormals.length} normals (${realNormals.filter((r) => r.side === 'reasoning').length} reasoning, ${realNormals.filter((r) => r.side === 'text').length} text). npm corpus: the reasoning, text, tool and tool-json passes. Look-alike shapes: ${lookAlikeTrips} trips.`)
say()
say('| rule | side | real normals | npm corpus |')
say('|---|---|---|---|')
for (const rule of RULES) {
  for (const side of SIDES) {
    const realTrips = realNormals.filter((r) => r.side === side && r.trip?.rule === rule).length
    const npmTrips = npm.filter((t) => t.side === side && t.rule === rule).length
    say(`| ${rule} | ${side} | ${side === 'tool' ? '-' : realTrips} | ${npmTrips} |`)
  }
}
say(`| all | all | ${realNormals.filter((r) => r.trip).length} | ${npm.length} |`)
say()
say('## Real loops')
say()
const loops = real.filter((r) => r.label === 'loop')
say(`${loops.length} outputs that repeat verbatim until the length limit, or that reading showed to be loops (test/fixtures/real-output/labels.json). Bound: max(1,000, 3 periods) after onset. Late: cut after the bound; uncut: the output ended first.`)
say()
say('| rule | side | cut within bound | late | latency median / max (cut ones) |')
say('|---|---|---|---|---|')
for (const rule of RULES) {
  for (const side of ['reasoning', 'text']) {
    const mine = loops.filter((r) => r.side === side && r.trip?.rule === rule)
    if (mine.length === 0) continue
    const latencies = sorted(mine.map((r) => r.latency))
    say(`| ${rule} | ${side} | ${mine.filter((r) => r.verdict === 'cut').length} | ${mine.filter((r) => r.verdict === 'late').length} | ${median(latencies)} / ${latencies[latencies.length - 1]} |`)
  }
}
say(`| none | all | - | - | uncut: ${loops.filter((r) => r.verdict === 'uncut').length} |`)
say()
say('## Generated shapes')
say()
say('Seeds 1-6, en and zh, 3/16/64-char deltas. Latency after onset (min / median / max) against the shape\'s bound (`latencyBound`, test/fixtures/detector/shapes.mjs).')
say()
say('| shape | side | rules | latency min / median / max | bound (seed 1) | problems |')
say('|---|---|---|---|---|---|')
for (const { name, side, latencies, rules, problems } of shapes) {
  const l = latencies.length ? `${latencies[0]} / ${median(latencies)} / ${latencies[latencies.length - 1]}` : '-'
  say(`| ${name} | ${side} | ${rules.join(', ')} | ${l} | ${Math.round(latencyBound(name, side, { seed: 1, language: 'en' }))} | ${problems.length} |`)
}
const report = lines.join('\n') + '\n'
writeFileSync(new URL('bench/calibration.md', root), report)
process.stdout.write(report)
progress('written to bench/calibration.md')
