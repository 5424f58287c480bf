/**
 * Turns parsed log records, in order, into model calls and the plugin's own
 * events. Works by record shape, not by format version, so rc.8 (header
 * version 0: `assistant/chunk` events and packed `*-chunks` rows), v4
 * (`assistant/message` / `assistant/attempt` embedding their `stream`) and the
 * v1–v3 generations in between (which share one shape or the other) all read.
 * Every record it does not use is counted by type and skipped, never fatal.
 *
 * The loop-breaker's records (`hook/result` events, or the older `loop-breaker/*` events; see
 * `../journal.ts`) are read back under their record name (`loop-breaker/break`, ...) and land beside
 * their call: a call is held back
 * until the next call starts (or the log ends), since rc.8 logs the plugin's
 * event among or after the call's chunks; and an event whose call has not
 * started yet waits for it, since v4 writes the call as one record when the
 * stream is over, after the events the plugin appended while it streamed.
 *
 * A skipped stretch of a damaged log (`gap`) marks the calls it may have cut:
 * the call whose stream was still open at the gap, and every call that starts
 * after it before the next `step/start` (its beginning, or the earlier attempts
 * that number it, may lie in the gap).
 */
import { CallBuilder } from './call-builder.ts'
import { readJournalRecord } from '../journal.ts'
import type { PluginEvent, ReadIssue, SessionFormat, SessionItem } from './types.ts'
import { isMapping } from '../mapping.ts'
import { isLoopBreakerNotice, isUserSource } from '../message-source.ts'

const ROW_SIDES = { 'text-chunks': 'text', 'reasoning-chunks': 'reasoning' } as const

/** Event types whose content the reader uses as is; everything else is counted in `skipped`. */
const CALL_EVENTS = new Set(['assistant/chunk', 'assistant/message', 'assistant/attempt'])

export class SessionAssembler {
  format: SessionFormat = 'unknown'
  header: Record<string, unknown> | undefined
  /** Records and stream chunks the reader skipped, by type (`chunk:<type>` for stream chunks). */
  readonly skipped = new Map<string, number>()
  /** Records that looked like session events at all (so a file of unrelated JSON is told apart). */
  sessionRecords = 0
  private pending: CallBuilder | undefined
  /** Plugin events for a turn and step whose call has not started yet (v4). */
  private early: PluginEvent[] = []
  /** Attempts seen per `turn:step`, for numbering retries. */
  private lastStep = ''
  private lastAttempt = 0
  /** Why the log skipped a stretch since the last `step/start`, if it did. */
  private gapReason: string | undefined
  /** `tool/result` messages since the last `assistant/message`: the next call's previous results. */
  private results: unknown[] = []

  constructor(
    private readonly emit: (item: SessionItem) => void,
    private readonly report: (issue: ReadIssue) => void,
  ) {}

  record(value: unknown, line: number): void {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      this.report({ kind: 'malformed-record', line, message: `line ${line}: not a JSON object` })
      return
    }
    const record = value as Record<string, unknown>
    const type = record.type
    if (typeof type !== 'string') {
      this.count('(no type)')
      return
    }
    if (type === 'session' && this.header === undefined) {
      this.header = record
      this.format = formatOf(record.version)
      this.sessionRecords++
      return
    }
    if (type in ROW_SIDES || type === 'tool-call-chunks') {
      this.sessionRecords++
      this.packedRow(type, record, line)
      return
    }
    if (type.includes('/')) this.sessionRecords++
    if (type === 'step/start') this.gapReason = undefined
    const journal = readJournalRecord(type, record.data)
    if (journal !== undefined) {
      this.pluginEvent({ type: journal.name, seq: record.seq as number | undefined, time: record.time as number | undefined, data: journal.data })
      return
    }
    if (type === 'user/message' && isMapping(record.data) && isUserSource(record.data.source)) {
      this.flush()
      this.emit({ kind: 'user-message' })
      return
    }
    if (type === 'user/message' && isMapping(record.data) && isLoopBreakerNotice(record.data.source) && this.pending !== undefined) {
      // A notice follows the call that caused it: the next call has not started yet.
      this.pending.notices.push(typeof record.data.source.summary === 'string' ? record.data.source.summary : '')
      return
    }
    if (type === 'tool/result' && isMapping(record.data)) {
      this.results.push(record.data.message)
      return
    }
    if (!CALL_EVENTS.has(type)) {
      this.count(type)
      return
    }
    const data = record.data
    if (!isMapping(data) || typeof data.turn !== 'number' || typeof data.step !== 'number') {
      this.report({ kind: 'malformed-record', line, message: `line ${line}: ${type} without numeric data.turn and data.step` })
      return
    }
    if (type === 'assistant/chunk') {
      if (!isMapping(data.chunk)) {
        this.report({ kind: 'malformed-record', line, message: `line ${line}: assistant/chunk without a chunk` })
        return
      }
      this.chunk(data.turn, data.step, data.chunk)
      return
    }
    if (Array.isArray(data.stream)) {
      // v4: the message or failed attempt carries its own stream; it is one whole call.
      const call = this.startCall(data.turn, data.step)
      this.stream(call, data.stream, line)
      call.hasMessage = type === 'assistant/message'
      if (call.hasMessage) this.results = []
      return
    }
    // rc.8: the message closes the call its chunks built.
    if (type === 'assistant/message') {
      const call = this.pending
      if (call !== undefined && call.turn === data.turn && call.step === data.step && !call.hasMessage) call.hasMessage = true
      else this.count(`${type} (no stream)`)
      this.results = []
      return
    }
    this.count(`${type} (no stream)`)
  }

  /** The log skips a stretch here (a damaged frame); `reason` says which. */
  gap(reason: string): void {
    const call = this.pending
    if (call !== undefined && call.finish === undefined && !call.hasMessage) call.damaged ??= `spans a skipped part of the log: ${reason}`
    this.gapReason = reason
  }

  /** Flushes the last call; call once after the final record. */
  end(): void {
    this.flush()
    this.releaseEarly(undefined)
  }

  private chunk(turn: number, step: number, chunk: Record<string, unknown>): void {
    const call = this.callFor(turn, step)
    if (!call.chunk(chunk)) this.count(`chunk:${String(chunk.type)}`)
  }

  /** The open call for `turn:step`, or a new one (a retry when the previous call of that step finished). */
  private callFor(turn: number, step: number): CallBuilder {
    const call = this.pending
    if (call !== undefined && call.turn === turn && call.step === step && call.finish === undefined && !call.hasMessage) return call
    return this.startCall(turn, step)
  }

  private startCall(turn: number, step: number): CallBuilder {
    this.flush()
    const key = `${turn}:${step}`
    this.lastAttempt = key === this.lastStep ? this.lastAttempt + 1 : 1
    this.lastStep = key
    this.pending = new CallBuilder(turn, step, this.lastAttempt, this.results)
    if (this.gapReason !== undefined) this.pending.damaged = `its beginning or earlier attempts may lie in a skipped part of the log: ${this.gapReason}`
    this.releaseEarly(this.pending)
    return this.pending
  }

  /** Early events go to `call` when they are its own; the others belong to no recorded call. */
  private releaseEarly(call: CallBuilder | undefined): void {
    for (const event of this.early) {
      if (call !== undefined && event.data.turn === call.turn && event.data.step === call.step) call.recorded.push(event)
      else this.emit({ kind: 'event', event })
    }
    this.early = []
  }

  private flush(): void {
    if (this.pending === undefined) return
    const call = this.pending.build()
    this.pending = undefined
    this.emit({ kind: 'call', call })
  }

  private pluginEvent(event: PluginEvent): void {
    const call = this.pending
    if (call !== undefined && event.data.turn === call.turn && event.data.step === call.step) call.recorded.push(event)
    else this.early.push(event)
  }

  /** rc.8 packed rows: `{type, seq0, time0, data:{turn, step, index, dt, texts|args, id?, name?}}`. */
  private packedRow(type: string, row: Record<string, unknown>, line: number): void {
    const data = row.data
    if (!isMapping(data) || typeof data.turn !== 'number' || typeof data.step !== 'number') {
      this.report({ kind: 'malformed-record', line, message: `line ${line}: ${type} row without numeric data.turn and data.step` })
      return
    }
    const call = this.callFor(data.turn, data.step)
    if (!this.run(call, type, data)) {
      this.report({ kind: 'malformed-record', line, message: `line ${line}: ${type} row without its ${type === 'tool-call-chunks' ? 'args' : 'texts'} array` })
    }
  }

  /** v4 stream records: `{type:'chunk', chunk}` and packed runs with the run fields at top level. */
  private stream(call: CallBuilder, records: unknown[], line: number): void {
    for (const record of records) {
      if (!isMapping(record)) continue
      if (record.type === 'chunk') {
        if (isMapping(record.chunk) && !call.chunk(record.chunk)) this.count(`chunk:${String(record.chunk.type)}`)
      } else if (typeof record.type === 'string' && (record.type in ROW_SIDES || record.type === 'tool-call-chunks')) {
        if (!this.run(call, record.type, record)) {
          this.report({ kind: 'malformed-record', line, message: `line ${line}: ${record.type} stream record without its deltas` })
        }
      } else {
        this.count(`stream:${String(record.type)}`)
      }
    }
  }

  /** A packed run; its members are type-checked one by one as they are taken (non-strings are dropped). */
  private run(call: CallBuilder, type: string, run: Record<string, unknown>): boolean {
    if (type === 'tool-call-chunks') {
      if (!Array.isArray(run.args)) return false
      call.toolRun(run.index, run.id, run.name, run.args)
      return true
    }
    if (!Array.isArray(run.texts)) return false
    call.run(ROW_SIDES[type as keyof typeof ROW_SIDES], run.index, run.texts)
    return true
  }

  private count(type: string): void {
    this.skipped.set(type, (this.skipped.get(type) ?? 0) + 1)
  }
}

function formatOf(version: unknown): SessionFormat {
  if (version === 0) return 'rc.8'
  return typeof version === 'number' && Number.isInteger(version) && version > 0 ? `v${version}` : 'unknown'
}



