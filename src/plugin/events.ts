/**
 * The records the loop-breaker writes, one per reaction, as DSH `hook/result` events (the format and why
 * it is `hook/result` are in `../journal.ts`), declared on DSH's session event map by declaration merging
 * (as `dsh-llm-retry` declares `llm/retry`). The offline analyzer, UIs and the user read them back from
 * the session log; `at` and `rule` are the detector's own values, so a replay of the recorded deltas
 * through the same detector reproduces them.
 */
import type {} from '@deepseek-ai/dsh-session/types'
import type { Side } from '../detector/index.ts'
import type { JournalEventData } from '../journal.ts'
import type { Action } from './escalation.ts'

/** One in-stream cut (with `action: 'stop'`, one past the reaction cap: no notice, and the turn was cancelled). */
export interface LoopBreakerBreakEventData {
  turn: number
  step: number
  /** The detector rule that tripped. */
  rule: string
  /** The stream the loop was in: `reasoning`, `text`, or `tool` (tool-call arguments). */
  side: Side
  /** UTF-16 length of that side's text when it tripped, the tripping delta included. */
  at: number
  /**
   * The repeated characters of the cut: that side's text from where the loop starts to the cut, in the
   * blocks the cut closed. The trim removes exactly these (the marker gives the same count); with
   * `trimHistory: false` they stay. The notice and the log line give it too.
   */
  repeatedChars: number
  /** Consecutive findings in this user turn, this one included. */
  level: number
  action: Action
}

/** One verdict of the cross-call (`call`) or cross-step (`step`) judge on a call that ended by itself. */
export interface LoopBreakerStallEventData {
  turn: number
  step: number
  judge: 'call' | 'step'
  /** The judge's reason, e.g. `reasoning-only` or `repeated-material`. */
  reason: string
  level: number
  action: Action
}

/** A cancelled turn resumed (`resumeAfterBreak`): the request that carries the resume notice went to the model. */
export interface LoopBreakerResumeEventData {
  /** The turn and step of that request (the turn after the cancelled one, or after what the user queued). */
  turn: number
  step: number
}

/**
 * A call the output length limit cut (`finish: max-tokens`) that was not a loop: `decision` `continue`
 * (its finish was replaced and the turn continued with the continuation notice) or `end` (the cap was
 * spent, the finish went to the agent loop and the turn ended as DSH ends it).
 */
export interface LoopBreakerContinueEventData {
  turn: number
  step: number
  /** `continue` (the turn went on) or `end` (the cap was spent); the record's `decision` too. */
  action: 'continue' | 'end'
  /** Continuations in this user turn, this one included (for `end`: the ones used). */
  count: number
  /** The cap, `maxContinuations`. */
  max: number
  /** The tool call the limit cut inside its arguments, closed so it never ran, to be re-issued. */
  cutToolCall?: { id: string; name: string }
}

/**
 * Repeated steps left out of every request from this step on (see step-crops.ts): a resumed session
 * reads these back and builds the same requests. The log keeps the messages.
 */
export interface LoopBreakerCropEventData {
  /** The turn and step of the first request built without them. */
  turn: number
  step: number
  /** First 16 hex digits of the SHA-256 of the repeated steps' shared identity. */
  key: string
  /** The streak's first step, kept. */
  anchorId: string
  /** How many steps this crop leaves out. */
  steps: number
  /** The ids of their assistant messages and tool results. */
  messageIds: string[]
}

declare module '@deepseek-ai/dsh-session/types' {
  interface SessionEventMap {
    /**
     * A hook's outcome. rc.8 knows the type and gives it no shape; the loop-breaker writes its records
     * as `{hook: 'loop-breaker/<kind>', result}` (see `../journal.ts`).
     */
    'hook/result': JournalEventData
  }
}
