/**
 * Rewrites a session log written by loop-breaker 0.1.0, whose `loop-breaker/*` event types DSH rc.8
 * refuses to load, into one rc.8 loads: each such event becomes the `hook/result` event of
 * `../journal.ts` (same `seq` and `time`, every other field in place) and every other line is copied
 * byte for byte. Streams: memory is one read buffer and one output frame. The output keeps the input's
 * encoding: plain JSONL stays plain; zstd becomes independent frames as rc.8 writes them, the header
 * line alone in the first (rc.8 checks that), then the following lines in frames of whole lines.
 */
import { createReadStream } from 'node:fs'
import { isLegacyJournalType, JOURNAL_EVENT_TYPE, upgradeLegacyRecord } from '../journal.ts'
import { startsWithZstdFrame, ZstdFramesDecoder } from './zstd-frames.ts'
import type { ZstdDamage } from './zstd-frames.ts'
import { zstdFrame } from './zstd-encode.ts'

/** Read size, as the session reader's. */
const READ_CHUNK = 1 << 20
/** Text per output frame: frames decode one at a time, so this bounds the reader's memory as rc.8's own batches do. */
const FRAME_TEXT = 1 << 20
/** Every line that can hold an old-form event holds this; the others are copied without parsing. */
const LEGACY_HINT = Buffer.from('"loop-breaker/')

/** How `repairSessionLog` writes its output. */
export interface RepairOptions {
  /** Write zstd output as frames of Raw blocks even where node:zlib could compress (see `./zstd-encode.ts`). */
  rawFrames?: boolean
}

/** What a repair read and rewrote. */
export interface RepairReport {
  /** The input's (and so the output's) encoding. */
  encoding: 'zstd' | 'jsonl'
  /** Lines read. */
  lines: number
  /** Old-form events rewritten as `hook/result`, by their old type. */
  rewritten: Record<string, number>
}

/** Why a log cannot be repaired; the message names the file. */
export class RepairError extends Error {
  /**
   * A repair refused, with what kind of fault stopped it.
   * @param kind - `not-a-session`: empty file or no session header on line 1; `damaged`: a zstd frame
   * is corrupt or torn; `unknown-event`: a `loop-breaker/*` event the plugin never wrote.
   * @param message - one line naming the file (and the line, for `unknown-event`).
   */
  constructor(readonly kind: 'not-a-session' | 'damaged' | 'unknown-event', message: string) {
    super(message)
  }
}

/**
 * Reads `file` once and hands the repaired log's bytes to `write` in order (nothing is written when
 * `write` is absent: a dry run that only counts).
 * @param file - the session log to repair, plain JSONL or zstd.
 * @param write - receives the repaired log's bytes, chunk by chunk, awaited in order; `undefined` for a dry run.
 * @param options - `rawFrames` to write zstd output uncompressed.
 * @returns the encoding, the number of lines, and the old-form events rewritten by type.
 * @throws {@link RepairError} when the file is not a session log, is damaged, or holds a `loop-breaker/*`
 * event no version of the plugin wrote; `write` may have received the lines before the fault, so write
 * to a temporary file. File system errors and whatever `write` throws pass through.
 */
export async function repairSessionLog(
  file: string,
  write: ((bytes: Uint8Array) => void | Promise<void>) | undefined,
  options: RepairOptions = {},
): Promise<RepairReport> {
  const report: RepairReport = { encoding: 'jsonl', lines: 0, rewritten: {} }
  let decoder: ZstdFramesDecoder | undefined
  let decoded: Buffer[] = []
  let carry: Buffer[] = []
  let batch: Buffer[] = []
  let batchBytes = 0

  const flushBatch = async () => {
    if (batch.length === 0) return
    const text = Buffer.concat(batch)
    batch = []
    batchBytes = 0
    if (write !== undefined) await write(decoder === undefined ? text : zstdFrame(text, { raw: options.rawFrames }))
  }
  const line = async (bytes: Buffer) => {
    const number = ++report.lines
    const out = repairLine(file, bytes, number, report)
    if (write === undefined) return
    batch.push(out)
    batchBytes += out.length
    if (number === 1 || batchBytes >= FRAME_TEXT) await flushBatch()
  }
  const takeLines = async (chunk: Buffer) => {
    let start = 0
    for (let end = chunk.indexOf(10); end >= 0; end = chunk.indexOf(10, start)) {
      const piece = chunk.subarray(start, end + 1)
      await line(carry.length === 0 ? piece : Buffer.concat([...carry, piece]))
      carry = []
      start = end + 1
    }
    if (start < chunk.length) carry.push(chunk.subarray(start))
  }
  /** The first damaged frame: a repair never rewrites a log it cannot read whole. */
  let damage: ZstdDamage | undefined
  const decode = (push: () => void) => {
    push()
    if (damage !== undefined) throw new RepairError('damaged', `${file}: ${damage.message}; nothing written (decompress-session salvages every other frame)`)
  }

  let first = true
  for await (const chunk of createReadStream(file, { highWaterMark: READ_CHUNK }) as AsyncIterable<Buffer>) {
    if (first) {
      first = false
      if (startsWithZstdFrame(chunk)) {
        report.encoding = 'zstd'
        // The decoder may reuse what it hands out: keep a copy.
        decoder = new ZstdFramesDecoder((bytes) => decoded.push(Buffer.from(bytes)), (found) => {
          damage ??= found
        })
      }
    }
    if (decoder === undefined) {
      await takeLines(chunk)
      continue
    }
    const active = decoder
    decode(() => active.push(chunk))
    for (const bytes of decoded.splice(0)) await takeLines(bytes)
  }
  if (first) throw new RepairError('not-a-session', `${file}: not a DSH session log (empty file)`)
  if (decoder !== undefined) {
    const active = decoder
    decode(() => active.end())
    for (const bytes of decoded.splice(0)) await takeLines(bytes)
  }
  // A last line without its newline (a torn write) is copied as it is.
  if (carry.length > 0) await line(Buffer.concat(carry))
  await flushBatch()
  return report
}

/** One line of the log, repaired: an old-form event rewritten, any other line the very same bytes. */
function repairLine(file: string, bytes: Buffer, number: number, report: RepairReport): Buffer {
  if (number === 1) {
    if (recordType(bytes) !== 'session') throw new RepairError('not-a-session', `${file}: not a DSH session log (no session header on line 1)`)
    return bytes
  }
  if (bytes.indexOf(LEGACY_HINT) < 0) return bytes
  let record: Record<string, unknown>
  try {
    record = JSON.parse(bytes.toString('utf8'))
  } catch {
    return bytes
  }
  if (typeof record !== 'object' || record === null || !isLegacyJournalType(record.type)) return bytes
  const data = upgradeLegacyRecord(record.type, record.data)
  if (data === undefined) {
    throw new RepairError('unknown-event', `${file}: line ${number}: a ${record.type} event that loop-breaker never wrote (unknown record, or no numeric turn and step); nothing written`)
  }
  report.rewritten[record.type] = (report.rewritten[record.type] ?? 0) + 1
  // Same keys in the same order: only the type and the data change.
  const repaired = Object.fromEntries(Object.entries(record).map(([key, value]) =>
    [key, key === 'type' ? JOURNAL_EVENT_TYPE : key === 'data' ? data : value]))
  const ending = bytes.subarray(bytes.length - (bytes.at(-2) === 13 && bytes.at(-1) === 10 ? 2 : bytes.at(-1) === 10 ? 1 : 0))
  return Buffer.concat([Buffer.from(JSON.stringify(repaired)), ending])
}

function recordType(bytes: Buffer): unknown {
  try {
    const record = JSON.parse(bytes.toString('utf8'))
    return typeof record === 'object' && record !== null ? record.type : undefined
  } catch {
    return undefined
  }
}
