/**
 * The loop-breaker's durable record format, shared by the writer (the plugin) and the readers (the
 * session reader, the repair tool). Dependency-free.
 *
 * DSH rc.8 refuses to load a session log holding an event type outside its fixed vocabulary
 * (`dsh-session` `KNOWN_SESSION_EVENT_TYPES`), so every reaction is written as `hook/result`, a type rc.8
 * knows and nothing in rc.8 interprets, in the envelope DSH's `dsh-hook-protocol` gives it. The old form
 * (the reaction name as the event type, `loop-breaker/break {data}`) does not load: readers accept it,
 * and `tools/repair-session.mjs` rewrites it into this one.
 */

import { isMapping } from './mapping.ts'

/** The DSH event type that carries every loop-breaker record. */
export const JOURNAL_EVENT_TYPE = 'hook/result'

/** Every record name starts with this (also the event type prefix of the pre-`hook/result` format). */
export const JOURNAL_PREFIX = 'loop-breaker/'

/** The reactions the plugin records, by name. */
export const JOURNAL_RECORDS = ['break', 'stall', 'resume', 'continue', 'crop'] as const
/** One of `JOURNAL_RECORDS`: `break`, `stall`, ... */
export type JournalRecordKind = (typeof JOURNAL_RECORDS)[number]
/** `loop-breaker/break`, `loop-breaker/stall`, ... */
export type JournalRecordName = `${typeof JOURNAL_PREFIX}${JournalRecordKind}`

/** The `handlerId` of every loop-breaker `hook/result`. */
export const JOURNAL_HANDLER_ID = 'loop-breaker'

/** The data of one `hook/result` event the loop-breaker writes. */
export interface JournalEventData<T extends object = Record<string, unknown>> {
  /** The open turn the reaction happened in. */
  turn: number
  /** The record's name, `loop-breaker/<kind>`. */
  point: JournalRecordName
  /** Always `loop-breaker`: tells the plugin's results from other hooks'. */
  handlerId: typeof JOURNAL_HANDLER_ID
  /** What the plugin did (`remind`, `replan`, `cancel`, `warn`, `observe`, `resume`, ...). */
  decision: string
  /** The reaction runs inside the call it judges: no time of its own. */
  durationMs: 0
  /** The record itself; every record has the `turn` and `step` it belongs to. */
  record: T & { turn: number; step: number }
}

/** A record read back from a log, in either format: its name and its data. */
export interface JournalRecord {
  /** `loop-breaker/break`, `loop-breaker/stall`, ... */
  name: JournalRecordName
  /** The record's own data (the envelope's `record`, or the old event's `data`). */
  data: Record<string, unknown> & { turn: number; step: number }
}

/**
 * The `hook/result` data for one record.
 * @param kind - the reaction recorded (`break`, `stall`, ...).
 * @param decision - what the plugin did about it (`remind`, `cancel`, ...).
 * @param record - the reaction's data, with the `turn` and `step` it belongs to.
 * @returns the event data to append as a `hook/result` event.
 */
export function journalEvent<T extends { turn: number; step: number }>(kind: JournalRecordKind, decision: string, record: T): JournalEventData<T> {
  return { turn: record.turn, point: `${JOURNAL_PREFIX}${kind}`, handlerId: JOURNAL_HANDLER_ID, decision, durationMs: 0, record }
}

/**
 * The loop-breaker record an event holds, in either format (`hook/result {point, record, ...}` or the old
 * `loop-breaker/<kind> {data}`).
 * @param type - the event's `type`.
 * @param data - the event's `data`.
 * @returns the record's name and data, or `undefined` for any other event (other hooks' results
 * included) and for a record without a numeric `turn` and `step`.
 */
export function readJournalRecord(type: unknown, data: unknown): JournalRecord | undefined {
  if (type === JOURNAL_EVENT_TYPE) {
    if (!isMapping(data) || data.handlerId !== JOURNAL_HANDLER_ID || !isRecordName(data.point) || !hasTurnAndStep(data.record)) return undefined
    return { name: data.point, data: data.record }
  }
  if (isRecordName(type) && hasTurnAndStep(data)) return { name: type, data }
  return undefined
}

/**
 * Whether an event type is the old, unloadable form of a loop-breaker record (`loop-breaker/break`, ...).
 * @param type - an event's `type`.
 * @returns true for any type starting with `loop-breaker/`, a known record name or not.
 */
export function isLegacyJournalType(type: unknown): type is string {
  return typeof type === 'string' && type.startsWith(JOURNAL_PREFIX)
}

function isRecordName(value: unknown): value is JournalRecordName {
  return typeof value === 'string' && value.startsWith(JOURNAL_PREFIX) &&
    (JOURNAL_RECORDS as readonly string[]).includes(value.slice(JOURNAL_PREFIX.length))
}

function hasTurnAndStep(value: unknown): value is Record<string, unknown> & { turn: number; step: number } {
  return isMapping(value) && typeof value.turn === 'number' && typeof value.step === 'number'
}


/**
 * The `hook/result` data that replaces an old-form record (`loop-breaker/break {data}`), for the repair
 * tool. Its `decision` is the old record's `action`, or `record` when it has none.
 * @param type - the old event's `type`.
 * @param data - the old event's `data`.
 * @returns the replacement event data, or `undefined` when the event is not an old-form record of a
 * known kind with a numeric `turn` and `step`.
 */
export function upgradeLegacyRecord(type: unknown, data: unknown): JournalEventData | undefined {
  if (!isRecordName(type) || !hasTurnAndStep(data)) return undefined
  const decision = typeof data.action === 'string' ? data.action : 'record'
  return journalEvent(type.slice(JOURNAL_PREFIX.length) as JournalRecordKind, decision, data)
}
