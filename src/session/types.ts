/**
 * Public shapes of the session-log reader: what one model call looks like once
 * rebuilt from a log, the plugin's own recorded events, and the damage a read
 * can report. Shared by every stage of `src/session/`.
 */

/** The stream a delta belongs to; the same names the detector's `push(side, delta)` takes. */
export type DeltaSide = 'reasoning' | 'text' | 'tool'

/** One recorded delta, with its original boundaries (never merged or split). */
export interface Delta {
  side: DeltaSide
  text: string
  /** The stream index of the block it was streamed into; absent when the log does not say. */
  block?: number
}

/** A tool call as assembled at the end of its block (or from its deltas when the block never closed). */
export interface ToolCall {
  id: string
  name: string
  arguments: string
}

/** The stream's terminal `finish` reason as recorded; absent when the stream has none (crash, truncation). */
export type FinishReason = { kind: string; [field: string]: unknown }

/** A record the `loop-breaker` plugin wrote in the session, under its record name (`loop-breaker/break`, ...; see `../journal.ts`). */
export interface PluginEvent {
  /** The record's name (`loop-breaker/break`, `loop-breaker/stall`, ...), whichever event type carried it. */
  type: string
  /** The carrying event's `seq` and `time` (epoch ms), when the log has them. */
  seq?: number
  time?: number
  /** The record's own data, with the `turn` and `step` it belongs to. */
  data: Record<string, unknown>
}

/** One model call (one request attempt) rebuilt from the log. */
export interface SessionCall {
  turn: number
  step: number
  /** 1 for the first request of a step, 2 for its first retry, ... */
  attempt: number
  deltas: Delta[]
  reasoningChars: number
  textChars: number
  /** UTF-16 length of the call's tool-call arguments deltas. */
  toolChars: number
  toolCalls: ToolCall[]
  finish: FinishReason | undefined
  /** True when the call produced an `assistant/message` (false: failed, retried or cut-off attempt). */
  hasMessage: boolean
  /** The plugin's own events recorded for this call's turn and step while it was the latest call. */
  recorded: PluginEvent[]
  /** Set when the call spans a skipped stretch of a damaged log: part of it may be missing (says which stretch). */
  damaged?: string
  /**
   * The trace a cut leaves without the journal: a block closed with the loop-breaker's trim marker
   * (`../trim-marker.ts`), its side and the count the marker gives.
   */
  trimmed: { side: DeltaSide; removedChars: number } | undefined
  /** The summaries of the loop-breaker notices that followed this call (`loop-breaker remind: phrase-pool / ...`). */
  notices: string[]
  /**
   * The `tool/result` messages logged since the last `assistant/message`, as logged: the results of the
   * model's previous step that this call's request carried (what the plugin hands the StepJudge).
   */
  previousResults: unknown[]
}

/** What the reader yields, in log order. */
export type SessionItem =
  | { kind: 'call'; call: SessionCall }
  /** A loop-breaker record that belongs to no call in the log (e.g. its call was not recorded). */
  | { kind: 'event'; event: PluginEvent }
  /** The user spoke (a `user/message` not sent by a plugin): the live plugin starts its per-turn state afresh. */
  | { kind: 'user-message' }

/** `rc.8` (header version 0), `v4`, `v1`..`v3` by header version; `unknown` when the log has no header line. */
export type SessionFormat = 'rc.8' | 'v1' | 'v2' | 'v3' | 'v4' | `v${number}` | 'unknown'

/** Damage found while reading; the read keeps everything before it and, but for a truncated frame, after it. */
export type ReadIssue =
  | { kind: 'malformed-line'; line: number; message: string }
  | { kind: 'malformed-record'; line: number; message: string }
  | { kind: 'truncated-frame'; offset: number; message: string }
  /**
   * A zstd frame that failed to decode or whose content checksum did not match, skipped: bytes
   * `offset` to `end` (exclusive), and the last seq read before it and the first after it (null: none).
   */
  | { kind: 'corrupt-frame' | 'checksum-mismatch'; offset: number; end: number; resynced: boolean; seqBefore: number | null; seqAfter: number | null; message: string }
  | { kind: 'truncated-line'; line: number; message: string }
  | { kind: 'not-a-session'; message: string }
  | { kind: 'unreadable'; message: string }
