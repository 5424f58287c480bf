#!/usr/bin/env node
// Runs the real-model-output corpus (test/fixtures/real-output) through the built detector
// (lib/detector.js), two workers at a time, and prints every trip on a normal (with an excerpt where its
// cut begins), every loop not cut within max(1,000, 3 periods) of its onset, and a summary.
// `node dev/real-output-sweep.mjs [--set key=value ...] [--json file]`: a quick way to try a setting on
// real model output before the corpus test (test/detector/corpus-real-output.test.ts) pins the
// defaults; --json also writes every document's verdict to a file (dev/calibrate.mjs reads it).
import { writeFileSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { settingsFromArgs } from './settings-args.mjs'
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads'

const WORKERS = 2

if (isMainThread) {
  const { values } = parseArgs({ options: { set: { type: 'string', multiple: true }, json: { type: 'string' } } })
  const config = settingsFromArgs(values.set)
  const { realOutputDocuments } = await import('../test/fixtures/real-output/corpus.mjs')
  const documents = new Map(realOutputDocuments().map((document) => [document.id, document]))
  const results = (await Promise.all(Array.from({ length: WORKERS }, (_, shard) => new Promise((resolve, reject) => {
    const worker = new Worker(new URL(import.meta.url), { workerData: { shard, shards: WORKERS, config } })
    worker.on('message', resolve)
    worker.on('error', reject)
  })))).flat().sort((a, b) => (a.id < b.id ? -1 : 1))
  const excerpt = (id, at) => JSON.stringify(documents.get(id).text.slice(at, at + 120))
  const normals = results.filter((r) => r.label === 'normal')
  const trips = normals.filter((r) => r.trip)
  for (const r of trips) console.log(`TRIP ${r.id} (${r.chars} chars) ${r.trip.rule}@${r.trip.at} loopStart ${r.trip.loopStart}: ${excerpt(r.id, r.trip.loopStart)}`)
  const loops = results.filter((r) => r.label === 'loop')
  for (const r of loops.filter((r) => r.verdict !== 'cut')) {
    console.log(`${r.verdict.toUpperCase()} ${r.id} period ${r.period} onset ${r.onset} of ${r.chars}: ${r.trip ? `${r.trip.rule}@${r.trip.at} (+${r.latency})` : 'not cut'}: ${excerpt(r.id, r.onset)}`)
  }
  const count = (list, side) => `${list.filter((r) => r.side === side && r.trip).length}/${list.filter((r) => r.side === side).length}`
  console.log(`${results.length} documents; normals: ${trips.length} trips of ${normals.length} (reasoning ${count(normals, 'reasoning')}, text ${count(normals, 'text')})`)
  const latencies = loops.filter((r) => r.trip).map((r) => r.latency).sort((a, b) => a - b)
  const verdicts = (name) => loops.filter((r) => r.verdict === name).length
  console.log(`loops: ${verdicts('cut')} of ${loops.length} cut within max(1,000, 3 periods) of onset, ${verdicts('late')} later, ${verdicts('uncut')} not before the output ends; latency median ${latencies[latencies.length >> 1]}, p90 ${latencies[Math.floor(latencies.length * 0.9)]}`)
  if (values.json) writeFileSync(values.json, JSON.stringify(results))
  process.exitCode = trips.length ? 1 : 0
} else {
  const { StreamDetector } = await import('../lib/detector.js')
  const { sweepRealOutput } = await import('../test/fixtures/real-output/sweep.mjs')
  parentPort.postMessage(sweepRealOutput(StreamDetector, workerData.config, workerData))
}
