#!/usr/bin/env node
// Runs the false-trip corpus (test/fixtures/detector/corpus.mjs) through the built detector
// (lib/detector.js) on the passes given (reasoning, text, tool, tool-json; default all), two at a time
// in worker threads, and prints every trip with an excerpt of where its cut begins.
// `node dev/corpus-sweep.mjs [pass ...] [--set key=value ...] [--json file]`: a quick way to try a
// setting on the whole corpus before the corpus tests (test/detector/corpus-*.test.ts) pin the defaults;
// --json also writes every trip ({ pass, file, part, rule, side }) to a file (dev/calibrate.mjs reads it).
import { writeFileSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { settingsFromArgs } from './settings-args.mjs'
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads'

if (isMainThread) {
  const { values, positionals } = parseArgs({ options: { set: { type: 'string', multiple: true }, json: { type: 'string' } }, allowPositionals: true })
  const config = settingsFromArgs(values.set)
  const passes = positionals.length ? positionals : ['reasoning', 'text', 'tool', 'tool-json']
  const queue = [...passes]
  let trips = 0
  const found = []
  const run = () => {
    const pass = queue.shift()
    if (!pass) return Promise.resolve()
    return new Promise((resolve, reject) => {
      const worker = new Worker(new URL(import.meta.url), { workerData: { pass, config } })
      worker.on('message', ({ line, trip }) => {
        trips++
        found.push(trip)
        console.log(line)
      })
      worker.on('error', reject)
      worker.on('exit', () => resolve(run()))
    })
  }
  await Promise.all([run(), run()])
  console.log(trips ? `${trips} trips` : `no trip on ${passes.join(', ')}`)
  if (values.json) writeFileSync(values.json, JSON.stringify({ passes, trips: found }))
  process.exitCode = trips ? 1 : 0
} else {
  const { StreamDetector } = await import('../lib/detector.js')
  const { corpusDocuments, splitDeltas } = await import('../test/fixtures/detector/corpus.mjs')
  const { writeArguments } = await import('../test/fixtures/detector/loops.mjs')
  const { pass, config } = workerData
  const side = pass === 'tool-json' ? 'tool' : pass
  let documents = 0
  for (const document of corpusDocuments()) {
    documents++
    const text = pass === 'tool-json' ? writeArguments(document.file, document.text) : document.text
    const detector = new StreamDetector(config)
    for (const delta of splitDeltas(text, documents)) {
      const trip = detector.push(side, delta)
      if (trip) {
        parentPort.postMessage({
          line: `${pass} ${document.file}#${document.part} ${trip.rule}@${trip.at} loopStart ${trip.loopStart}: ${JSON.stringify(text.slice(trip.loopStart, trip.loopStart + 100))}`,
          trip: { pass, file: document.file, part: document.part, rule: trip.rule, side },
        })
        break
      }
    }
  }
}
