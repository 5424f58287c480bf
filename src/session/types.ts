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
}

/** A tool call as assembled at the end of its block (or from its deltas when the block never closed). */
export interface ToolCall {
  id: string
  name: string
  arguments: string
}

/** The stream's terminal `finish` reason as recorded; absent when the stream has none (crash, truncation). */
export type FinishReason = { kind: string; [field: string]: unknown }

/** An event a `loop-breaker` plugin recorded in the session (`loop-breaker/break`, `loop-breaker/stall`, ...). */
export interface PluginEvent {
  type: string
  seq?: number
  time?: number
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
  toolCalls: ToolCall[]
  finish: FinishReason | undefined
  /** True when the call produced an `assistant/message` (false: failed, retried or cut-off attempt). */
  hasMessage: boolean
  /** The plugin's own events recorded for this call's turn and step while it was the latest call. */
  recorded: PluginEvent[]
  /**
   * The `tool/result` messages logged since the last `assistant/message`, as logged: the results of the
   * model's previous step that this call's request carried (what the plugin hands the StepJudge).
   */
  previousResults: unknown[]
}

/** What the reader yields, in log order. */
export type SessionItem =
  | { kind: 'call'; call: SessionCall }
  /** A `loop-breaker/*` event that belongs to no call in the log (e.g. its call was not recorded). */
  | { kind: 'event'; event: PluginEvent }
  /** The user spoke (a `user/message` not sent by a plugin): the live plugin starts its per-turn state afresh. */
  | { kind: 'user-message' }

/** `rc.8` (header version 0), `v4`, `v1`..`v3` by header version; `unknown` when the log has no header line. */
export type SessionFormat = 'rc.8' | 'v1' | 'v2' | 'v3' | 'v4' | `v${number}` | 'unknown'

/** Damage found while reading; the read keeps everything before it (and, for lines, after it). */
export type ReadIssue =
  | { kind: 'malformed-line'; line: number; message: string }
  | { kind: 'malformed-record'; line: number; message: string }
  | { kind: 'truncated-frame'; offset: number; message: string }
  | { kind: 'corrupt-frame'; offset: number; message: string }
  | { kind: 'truncated-line'; line: number; message: string }
  | { kind: 'not-a-session'; message: string }
  | { kind: 'unreadable'; message: string }

/** Prefix of the event types the `loop-breaker` plugin records. */
export const PLUGIN_EVENT_PREFIX = 'loop-breaker/'
