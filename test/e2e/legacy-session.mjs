/**
 * Writes the log dsh-loop-breaker 0.1.0 would have written for a session: a copy of a session log in
 * which every loop-breaker `hook/result` record is turned back into the event 0.1.0 appended, type
 * `loop-breaker/<kind>` with the record itself as data (same seq and time), every other record
 * unchanged. The copy gets its own session id (header `id`), so DSH lists it beside the original. rc.8
 * refuses to load such a log (SessionFormatUnsupportedError); `tools/repair-session.mjs` makes it loadable.
 * Usage: `node test/e2e/legacy-session.mjs <session.jsonl> <out session.jsonl.zstd> <new session id>`: the
 * input is the decompressed log (`tools/decompress-session.mjs`: DSH writes several zstd frames, Node's
 * zstdDecompressSync reads only the first); the output is laid out as DSH writes it, the header line alone
 * in the first zstd frame (rc.8 refuses anything else as corrupt), the events in the next (Node >= 22.15).
 * Prints how many records it turned back.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { zstdCompressSync } from 'node:zlib'

const [input, output, id] = process.argv.slice(2)
if (input === undefined || output === undefined || id === undefined) {
  process.stderr.write('usage: legacy-session.mjs <session.jsonl> <out session.jsonl.zstd> <new session id>\n')
  process.exit(2)
}
let turnedBack = 0
const lines = readFileSync(input, 'utf8').split('\n').filter(Boolean).map((line) => {
  const record = JSON.parse(line)
  if (record.type === 'session') return JSON.stringify({ ...record, id })
  if (record.type !== 'hook/result' || record.data?.handlerId !== 'loop-breaker') return line
  turnedBack++
  return JSON.stringify({ type: record.data.point, seq: record.seq, time: record.time, data: record.data.record })
})
if (turnedBack === 0) {
  process.stderr.write(`legacy-session: ${input} holds no loop-breaker hook/result record\n`)
  process.exit(1)
}
const [header, ...events] = lines
writeFileSync(output, Buffer.concat([header, events.join('\n')].map((text) => zstdCompressSync(Buffer.from(text + '\n')))))
console.log(`legacy-session: wrote ${output} (session ${id}) with ${turnedBack} record(s) as loop-breaker/* events`)
