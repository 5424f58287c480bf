/**
 * The durable session events the loop-breaker writes, one per reaction, declared on DSH's session event
 * map by declaration merging (as `dsh-llm-retry` declares `llm/retry`). The offline analyzer, UIs and the
 * user read them back from the session log; `at` and `rule` are the detector's own values, so a replay of
 * the recorded deltas through the same detector reproduces them.
 */
import type {} from '@deepseek-ai/dsh-session/types'
import type { Side } from '../detector/index.ts'
import type { Action } from './escalation.ts'

/** One in-stream cut (or, with `action: 'observe'`, a trip past the reaction cap that was only recorded). */
export interface LoopBreakerBreakEventData {
  turn: number
  step: number
  /** The detector rule that tripped. */
  rule: string
  /** The stream the loop was in: `reasoning`, `text`, or `tool` (tool-call arguments). */
  side: Side
  /** UTF-16 length of that side's text when it tripped, the tripping delta included. */
  at: number
  /** How much of that text was repetition. */
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

declare module '@deepseek-ai/dsh-session/types' {
  interface SessionEventMap {
    /** Durable record of one loop the loop-breaker cut inside a model call. */
    'loop-breaker/break': LoopBreakerBreakEventData
    /** Durable record of one stalled call or repeated step the loop-breaker reacted to. */
    'loop-breaker/stall': LoopBreakerStallEventData
  }
}
