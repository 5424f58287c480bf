/**
 * Streaming session-log reader: file bytes → (all zstd frames, or plain JSONL,
 * told apart by the magic bytes, never by the name) → lines → records → calls.
 * Never holds the whole file: memory is one read buffer, one decoded batch and
 * the call being rebuilt. Damage never throws; it is reported as a
 * {@link ReadIssue} and everything readable is kept: a malformed line is
 * skipped, a damaged zstd frame is skipped (reported with its byte range and
 * the seq gap it leaves; the call open across it is marked damaged) and the
 * read goes on with the next frame.
 */
import { createReadStream } from 'node:fs'
import { SessionAssembler } from './session-assembler.ts'
import { startsWithZstdFrame, ZstdFramesDecoder } from './zstd-frames.ts'
import type { ZstdDamage } from './zstd-frames.ts'
import type { PluginEvent, ReadIssue, SessionCall, SessionFormat, SessionItem } from './types.ts'

/** Read size; large enough that per-read overhead vanishes, small enough to keep memory flat. */
const READ_CHUNK = 1 << 20

/** How a read reports on itself while it runs. */
export interface ReadOptions {
  /** Called with the number of file bytes consumed so far (for progress lines). */
  onProgress?: (bytesRead: number) => void
}

/**
 * One pass over one session file. Iterate it for the calls and plugin events
 * in log order; `format`, `header`, `issues` and `skipped` fill in as it goes
 * and are final once the iteration ends.
 */
export class SessionReader implements AsyncIterable<SessionItem> {
  /** The damage found so far, in the order found; a read never throws for it. */
  readonly issues: ReadIssue[] = []
  /** Compressed (`'zstd'`) or plain (`'jsonl'`) file; undefined until the first bytes are read. */
  encoding: 'zstd' | 'jsonl' | undefined
  /** Complete zstd frames decoded (0 for plain JSONL). */
  frames = 0
  /** Lines read so far (after decompression), blank ones included: the numbering of `issues`' `line`. */
  lines = 0
  private readonly assembler: SessionAssembler
  /** The last seq of the records read so far (a packed row spans several). */
  private lastSeq: number | undefined
  /** Skipped frames still waiting for the first seq after them. */
  private openGaps: SkippedFrame[] = []
  private readonly queue: SessionItem[] = []

  /**
   * Prepare a read of one file; nothing is opened until the iteration starts.
   * @param file - the session log's path, plain JSONL or zstd (told apart by its first bytes).
   * @param options - a progress callback, called with the bytes consumed after each read.
   */
  constructor(readonly file: string, private readonly options: ReadOptions = {}) {
    this.assembler = new SessionAssembler((item) => this.queue.push(item), (issue) => this.issues.push(issue))
  }

  /** The log's format, from its header line; `unknown` until (or unless) one is read. */
  get format(): SessionFormat { return this.assembler.format }
  /** The log's header record (`{type: 'session', ...}`), once read. */
  get header(): Record<string, unknown> | undefined { return this.assembler.header }
  /** Records and chunks skipped, by type. */
  get skipped(): ReadonlyMap<string, number> { return this.assembler.skipped }

  /**
   * Read the file once, start to end, and yield its model calls, the loop-breaker records that belong
   * to no call, and the points where the user spoke, in log order. Iterate a reader once: the counters
   * and `issues` belong to one pass.
   * @returns an iterator over the session's items; it ends early (with a `not-a-session` issue) when the
   * file is neither zstd frames nor JSONL, or is empty.
   * @throws never for the file's content or for I/O: damage is added to `issues` and skipped, and an I/O
   * error (missing file, read failure) becomes an `unreadable` issue that ends the read.
   */
  async *[Symbol.asyncIterator](): AsyncIterator<SessionItem> {
    let decoder: ZstdFramesDecoder | undefined
    const text = new TextDecoder('utf-8')
    let carry = ''
    let bytesRead = 0
    const takeLines = (decoded: string) => {
      // Only split when a line ends: re-splitting a long line's growing prefix would be quadratic.
      if (!decoded.includes('\n')) {
        carry += decoded
        return
      }
      const parts = (carry + decoded).split('\n')
      carry = parts.pop() ?? ''
      for (const line of parts) this.line(line)
    }
    const damaged = (damage: ZstdDamage) => {
      if (damage.kind === 'truncated-frame') {
        this.issues.push({ kind: damage.kind, offset: damage.offset, message: damage.message })
        return
      }
      // The text on either side of a skipped frame does not join: drop the unfinished line and character.
      carry = ''
      text.decode()
      const issue: SkippedFrame = {
        kind: damage.kind, offset: damage.offset, end: damage.end, resynced: damage.resynced,
        seqBefore: this.lastSeq ?? null, seqAfter: null, message: damage.message,
      }
      this.issues.push(issue)
      this.openGaps.push(issue)
      this.assembler.gap(`bytes ${damage.offset}-${damage.end - 1} skipped (${damage.kind})`)
    }
    try {
      for await (const chunk of createReadStream(this.file, { highWaterMark: READ_CHUNK }) as AsyncIterable<Buffer>) {
        if (this.encoding === undefined) {
          this.encoding = startsWithZstdFrame(chunk) ? 'zstd' : 'jsonl'
          if (this.encoding === 'jsonl' && !looksLikeJsonl(chunk)) {
            this.issues.push({ kind: 'not-a-session', message: `not a session log (neither zstd frames nor JSONL; starts with ${hex(chunk)})` })
            return
          }
          if (this.encoding === 'zstd') decoder = new ZstdFramesDecoder((bytes) => takeLines(text.decode(bytes, { stream: true })), damaged)
        }
        bytesRead += chunk.length
        if (decoder) decoder.push(chunk)
        else takeLines(text.decode(chunk, { stream: true }))
        this.options.onProgress?.(bytesRead)
        yield* this.drain()
      }
      if (this.encoding === undefined) {
        this.issues.push({ kind: 'not-a-session', message: 'empty file' })
        return
      }
      decoder?.end()
      carry += text.decode()
      if (carry.trim() !== '') {
        // A writer appends whole lines; a last line without its newline is a torn write.
        const line = this.lines + 1
        this.issues.push({ kind: 'truncated-line', line, message: `line ${line}: incomplete last line (${carry.length} characters without a newline), skipped` })
      }
      this.assembler.end()
      this.closeGaps(null)
      yield* this.drain()
      if (this.assembler.sessionRecords === 0 && !this.issues.some((issue) => 'offset' in issue)) {
        this.issues.push({ kind: 'not-a-session', message: `no session header and no session event in ${this.lines} lines` })
      }
    } catch (error) {
      this.issues.push({ kind: 'unreadable', message: error instanceof Error ? error.message : String(error) })
    } finally {
      if (decoder) this.frames = decoder.frames
    }
  }

  private line(line: string): void {
    const number = ++this.lines
    if (line === '' || line === '\r') return
    let value: unknown
    try {
      value = JSON.parse(line)
    } catch (error) {
      this.issues.push({ kind: 'malformed-line', line: number, message: `line ${number}: malformed JSON (${(error as Error).message}), skipped` })
      return
    }
    const seqs = seqRange(value)
    if (seqs !== undefined) {
      this.closeGaps(seqs[0])
      this.lastSeq = seqs[1]
    }
    this.assembler.record(value, number)
  }

  /** Completes the skipped frames' reports with the first seq read after them (null: none). */
  private closeGaps(seqAfter: number | null): void {
    for (const gap of this.openGaps) {
      gap.seqAfter = seqAfter
      gap.message += `; seq gap: last seq before it ${gap.seqBefore ?? 'none'}, first seq after it ${seqAfter ?? 'none'}`
    }
    this.openGaps = []
  }

  private *drain(): Generator<SessionItem> {
    for (let item = this.queue.shift(); item !== undefined; item = this.queue.shift()) yield item
  }
}

/** The whole session in memory, for small files and tests: a finished `SessionReader`'s fields and items. */
export interface SessionLog {
  /** The path read. */
  file: string
  format: SessionFormat
  /** Compressed (`'zstd'`) or plain (`'jsonl'`); undefined when no byte was read (missing or empty file). */
  encoding: 'zstd' | 'jsonl' | undefined
  /** The header record, when the log has one. */
  header: Record<string, unknown> | undefined
  /** Every model call, in log order. */
  calls: SessionCall[]
  /** Loop-breaker records (`loop-breaker/break`, ...) that belong to no recorded call. */
  events: PluginEvent[]
  /** The damage found; empty for an intact log. */
  issues: ReadIssue[]
  /** Records and chunks skipped, by type. */
  skipped: Record<string, number>
}

/**
 * Read a whole session log into memory (for large logs iterate a `SessionReader`, which keeps memory flat).
 * @param file - the session log's path, plain JSONL or zstd.
 * @param options - a progress callback, as for `SessionReader`.
 * @returns the calls, the records outside any call, the header, format and encoding, and the damage found.
 * @throws never for damage or I/O errors: they are in the result's `issues` (see `SessionReader`).
 */
export async function readSession(file: string, options?: ReadOptions): Promise<SessionLog> {
  const reader = new SessionReader(file, options)
  const calls: SessionCall[] = []
  const events: PluginEvent[] = []
  for await (const item of reader) {
    if (item.kind === 'call') calls.push(item.call)
    else if (item.kind === 'event') events.push(item.event)
  }
  return {
    file,
    format: reader.format,
    encoding: reader.encoding,
    header: reader.header,
    calls,
    events,
    issues: reader.issues,
    skipped: Object.fromEntries(reader.skipped),
  }
}

type SkippedFrame = Extract<ReadIssue, { kind: 'corrupt-frame' | 'checksum-mismatch' }>

/** First and last seq of a record: `seq` of an event, `seq0` plus one per packed delta of an rc.8 row. */
function seqRange(value: unknown): [number, number] | undefined {
  if (typeof value !== 'object' || value === null) return undefined
  const record = value as { seq?: unknown; seq0?: unknown; data?: { texts?: unknown; args?: unknown } }
  if (typeof record.seq === 'number') return [record.seq, record.seq]
  if (typeof record.seq0 !== 'number') return undefined
  const deltas = record.data?.texts ?? record.data?.args
  const count = Array.isArray(deltas) ? deltas.length : 1
  return [record.seq0, record.seq0 + Math.max(0, count - 1)]
}

/** A JSONL log starts with a JSON object (after an optional BOM and white space). */
function looksLikeJsonl(bytes: Uint8Array): boolean {
  let at = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0
  while (at < bytes.length && (bytes[at] === 0x20 || bytes[at] === 0x0a || bytes[at] === 0x0d || bytes[at] === 0x09)) at++
  return bytes[at] === 0x7b
}

function hex(bytes: Uint8Array): string {
  return Array.from(bytes.subarray(0, 4), (byte) => byte.toString(16).padStart(2, '0')).join(' ')
}
