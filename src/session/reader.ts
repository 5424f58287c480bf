/**
 * Streaming session-log reader: file bytes → (all zstd frames, or plain JSONL,
 * told apart by the magic bytes, never by the name) → lines → records → calls.
 * Never holds the whole file: memory is one read buffer, one decoded batch and
 * the call being rebuilt. Damage never throws; it is reported as a
 * {@link ReadIssue} and everything readable is kept: a malformed line is
 * skipped, a damaged zstd frame ends the read with all frames before it.
 */
import { createReadStream } from 'node:fs'
import { SessionAssembler } from './session-assembler.ts'
import { startsWithZstdFrame, ZstdDamage, ZstdFramesDecoder } from './zstd-frames.ts'
import type { PluginEvent, ReadIssue, SessionCall, SessionFormat, SessionItem } from './types.ts'

/** Read size; large enough that per-read overhead vanishes, small enough to keep memory flat. */
const READ_CHUNK = 1 << 20

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
  readonly issues: ReadIssue[] = []
  /** Compressed (`'zstd'`) or plain (`'jsonl'`) file; undefined until the first bytes are read. */
  encoding: 'zstd' | 'jsonl' | undefined
  /** Complete zstd frames decoded (0 for plain JSONL). */
  frames = 0
  lines = 0
  private readonly assembler: SessionAssembler
  private readonly queue: SessionItem[] = []

  constructor(readonly file: string, private readonly options: ReadOptions = {}) {
    this.assembler = new SessionAssembler((item) => this.queue.push(item), (issue) => this.issues.push(issue))
  }

  get format(): SessionFormat { return this.assembler.format }
  get header(): Record<string, unknown> | undefined { return this.assembler.header }
  /** Records and chunks skipped, by type. */
  get skipped(): ReadonlyMap<string, number> { return this.assembler.skipped }

  async *[Symbol.asyncIterator](): AsyncIterator<SessionItem> {
    let decoder: ZstdFramesDecoder | undefined
    const text = new TextDecoder('utf-8')
    let carry = ''
    let bytesRead = 0
    let stopped = false
    const takeLines = (decoded: string) => {
      // Only split when a line ends: re-splitting a long line's growing prefix would be quadratic.
      if (!decoded.includes('\n')) {
        carry += decoded
        return
      }
      const parts = (carry + decoded).split('\n')
      carry = parts.pop()!
      for (const line of parts) this.line(line)
    }
    try {
      for await (const chunk of createReadStream(this.file, { highWaterMark: READ_CHUNK }) as AsyncIterable<Buffer>) {
        if (this.encoding === undefined) {
          this.encoding = startsWithZstdFrame(chunk) ? 'zstd' : 'jsonl'
          if (this.encoding === 'jsonl' && !looksLikeJsonl(chunk)) {
            this.issues.push({ kind: 'not-a-session', message: `not a session log (neither zstd frames nor JSONL; starts with ${hex(chunk)})` })
            return
          }
          if (this.encoding === 'zstd') decoder = new ZstdFramesDecoder((bytes) => takeLines(text.decode(bytes, { stream: true })))
        }
        bytesRead += chunk.length
        try {
          if (decoder) decoder.push(chunk)
          else takeLines(text.decode(chunk, { stream: true }))
        } catch (error) {
          if (!(error instanceof ZstdDamage)) throw error
          this.issues.push({ kind: error.kind, offset: error.offset, message: error.message })
          stopped = true
        }
        this.options.onProgress?.(bytesRead)
        yield* this.drain()
        if (stopped) break
      }
      if (this.encoding === undefined) {
        this.issues.push({ kind: 'not-a-session', message: 'empty file' })
        return
      }
      if (!stopped && decoder) {
        try {
          decoder.end()
        } catch (error) {
          if (!(error instanceof ZstdDamage)) throw error
          this.issues.push({ kind: error.kind, offset: error.offset, message: error.message })
          stopped = true
        }
      }
      carry += text.decode()
      if (carry.trim() !== '') {
        // A writer appends whole lines; a last line without its newline is a torn write.
        const line = this.lines + 1
        this.issues.push({ kind: 'truncated-line', line, message: `line ${line}: incomplete last line (${carry.length} characters without a newline), skipped` })
      }
      this.assembler.end()
      yield* this.drain()
      if (this.assembler.sessionRecords === 0 && !this.issues.some((issue) => issue.kind === 'corrupt-frame' || issue.kind === 'truncated-frame')) {
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
    this.assembler.record(value, number)
  }

  private *drain(): Generator<SessionItem> {
    while (this.queue.length > 0) yield this.queue.shift()!
  }
}

/** The whole session in memory, for small files and tests. */
export interface SessionLog {
  file: string
  format: SessionFormat
  encoding: 'zstd' | 'jsonl' | undefined
  header: Record<string, unknown> | undefined
  calls: SessionCall[]
  /** `loop-breaker/*` events that belong to no recorded call. */
  events: PluginEvent[]
  issues: ReadIssue[]
  skipped: Record<string, number>
}

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

/** A JSONL log starts with a JSON object (after an optional BOM and white space). */
function looksLikeJsonl(bytes: Uint8Array): boolean {
  let at = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0
  while (at < bytes.length && (bytes[at] === 0x20 || bytes[at] === 0x0a || bytes[at] === 0x0d || bytes[at] === 0x09)) at++
  return bytes[at] === 0x7b
}

function hex(bytes: Uint8Array): string {
  return Array.from(bytes.subarray(0, 4), (byte) => byte.toString(16).padStart(2, '0')).join(' ')
}
