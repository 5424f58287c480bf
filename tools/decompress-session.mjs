#!/usr/bin/env node
// Decompresses a DSH session log (every zstd frame, not just the first one as Node's and most
// libraries' one-shot decoders do), streaming, to a file or stdout. A damaged frame is skipped and named
// on stderr, the frames after it are still written, and the exit status is 1. A thin shell over
// lib/session.js; run `npm run build` first.
import { createReadStream } from 'node:fs'
import { open } from 'node:fs/promises'
import { once } from 'node:events'
import { resolve } from 'node:path'
import { ZstdFramesDecoder, startsWithZstdFrame } from '../lib/session.js'
import { UsageError, parseFlags } from './cli-flags.mjs'

const HELP = `Usage: node tools/decompress-session.mjs <in> [out] [--force]

Writes the JSONL text of a session log: all zstd frames of a .jsonl.zstd file decoded in
order (a plain .jsonl file is copied as is; the content decides, not the name). Without
[out], or with -, the text goes to stdout, e.g. to pipe into grep or jq. An [out] file
must not exist yet.

Options
  --force            overwrite an existing [out] (never <in> itself)
  --help             this text

A frame that fails to decode, or whose content checksum does not match, is skipped: its
byte range is reported on stderr and the frames after it are written as usual (when its
headers are damaged too, the next frame is found by searching for the zstd magic, and
stderr says so). A truncated last frame: what its complete blocks yield is written and
the byte offset of the torn frame is reported. See docs/tools.md#damaged-logs.

Exit status: 0 done; 1 damaged or unreadable input (everything that could be decoded is
written); 2 bad usage, or an [out] that exists without --force or cannot be created.`

process.exitCode = await main(process.argv.slice(2))

async function main(argv) {
  let flags
  try {
    flags = parseFlags(argv, { help: { type: 'boolean', short: 'h' }, force: { type: 'boolean' } })
    if (!flags.values.help && (flags.positionals.length < 1 || flags.positionals.length > 2)) throw new UsageError('expects <in> [out]')
  } catch (error) {
    if (!(error instanceof UsageError)) throw error
    process.stderr.write(`decompress-session: ${error.message}\nRun with --help for usage.\n`)
    return 2
  }
  if (flags.values.help) {
    process.stdout.write(HELP + '\n')
    return 0
  }
  const [input, output = '-'] = flags.positionals
  let sink = process.stdout
  if (output !== '-') {
    const refused = (message) => {
      process.stderr.write(`decompress-session: ${message}\nRun with --help for usage.\n`)
      return 2
    }
    // Writing over the input would truncate what is still to be read.
    if (resolve(output) === resolve(input)) return refused(`${output} is the input: give another [out] file`)
    try {
      // 'wx' refuses an existing file in the same call that creates it: no window between a check and the write.
      sink = (await open(output, flags.values.force ? 'w' : 'wx')).createWriteStream()
    } catch (error) {
      if (error.code === 'EEXIST') return refused(`${output} exists: pass --force to overwrite it`)
      process.stderr.write(`decompress-session: ${output}: ${error.message}\n`)
      return 2
    }
  }
  // A reader that stops early (`| head`) closes the pipe: that ends the job, it is not a failure.
  let closed = false
  sink.on('error', (error) => {
    if (error.code !== 'EPIPE') throw error
    closed = true
  })
  const write = async (bytes) => {
    if (closed || sink.write(bytes)) return
    await new Promise((resolve) => {
      const done = () => {
        sink.off('drain', done)
        sink.off('error', done)
        resolve()
      }
      sink.on('drain', done)
      sink.on('error', done)
    })
  }
  let decoder
  let pending = []
  let bytesOut = 0
  let status = 0
  let skipped = 0
  const damaged = (damage) => {
    process.stderr.write(`decompress-session: ${damage.message}\n`)
    if (damage.kind !== 'truncated-frame') skipped++
    status = 1
  }
  try {
    for await (const chunk of createReadStream(input, { highWaterMark: 1 << 20 })) {
      if (decoder === undefined) {
        decoder = startsWithZstdFrame(chunk) ? new ZstdFramesDecoder((bytes) => pending.push(bytes), damaged) : null
      }
      if (decoder === null) pending.push(chunk)
      else decoder.push(chunk)
      for (const bytes of pending) {
        bytesOut += bytes.length
        await write(bytes)
      }
      pending = []
      if (closed) return status
    }
    if (decoder) {
      decoder.end()
      for (const bytes of pending) {
        bytesOut += bytes.length
        await write(bytes)
      }
    }
    if (decoder === undefined) {
      process.stderr.write(`decompress-session: ${input}: empty file\n`)
      status = 1
    }
  } catch (error) {
    process.stderr.write(`decompress-session: ${input}: ${error.message}\n`)
    status = 1
  }
  if (sink !== process.stdout) {
    sink.end()
    await once(sink, 'close')
  }
  if (status !== 0 && decoder) {
    process.stderr.write(`decompress-session: wrote ${bytesOut} decoded bytes: ${decoder.frames} complete frame(s), ${skipped} damaged stretch(es) skipped\n`)
  }
  return status
}
