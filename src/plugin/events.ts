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

/** A cancelled turn followed up with the notice once the agent was idle (`resumeAfterBreak`). */
export interface LoopBreakerResumeEventData {
  /** The turn that was cancelled and the step it was cancelled in. */
  turn: number
  step: number
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
