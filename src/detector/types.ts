// Public types of the detector core (shared by the rules, the plugin and the offline tools).

import type { DetectorConfig } from './settings.ts'

/** Which stream of one model call a delta belongs to: reasoning, visible text, or tool-call arguments. */
export type Side = 'reasoning' | 'text' | 'tool'

/** The in-call rules; tool-side trips carry the same names with `side: 'tool'`. */
export type RuleName = 'cycle' | 'phrase-pool' | 'novelty' | 'symbol-run' | 'identical-chunks' | 'token-period' | 'letter-cycle' | 'growing-line'

/** The first rule that fired in one call. */
export interface Trip {
  readonly rule: RuleName
  readonly side: Side
  /** UTF-16 length of that side's text streamed so far, including the tripping delta. */
  readonly at: number
  /**
   * How much text is repetition: for phrase-pool the repeated units' mass from `loopStart` on
   * (Σ (sightings − 1) × length); for the other rules the stretch from `loopStart` to where the rule verified the loop.
   */
  readonly repeatedChars: number
  /**
   * UTF-16 offset in that side's text where the repeated stretch begins: for cycle, token-period and
   * identical-chunks after one copy of the material, so `text.slice(0, loopStart)` still shows what the
   * model kept saying; for phrase-pool the pool's first unit; for novelty where the familiar run began;
   * for symbol-run the run's first character; for letter-cycle the start of the near-periodic stretch;
   * for growing-line the first grown line.
   */
  readonly loopStart: number
}

/** Why the cross-call judge reports a stall. */
export type StallReason = 'reasoning-only' | 'repeated-material'

/** Why the cross-step judge reports a repeat. */
export type StepVerdict = 'repeated-step' | 'alternating-steps' | 'step-cycle'

/**
 * What the detector watches on one side: `'full'` every rule; `'verbatim'` only repetition written
 * again as it was (the near-repetition rule, novelty, is off); `'off'` nothing.
 */
export type SideGuard = 'full' | 'verbatim' | 'off'

/** Which sides the in-call rules watch, and whether the cross-call and cross-step judges run. */
export interface DetectorGuards {
  readonly reasoning: SideGuard
  readonly text: SideGuard
  readonly tool: SideGuard
  /** The judges of completed calls: reasoning restated across calls, the same step again, steps alternating. */
  readonly steps: boolean
}

/** A detector config resolved once (`DetectorPlan`): every threshold and every guard. */
export interface ResolvedDetector {
  readonly config: DetectorConfig
  readonly guards: DetectorGuards
}
