/**
 * The per-agent escalation ladder. Every finding (an in-stream cut, a stalled call, a repeated step) asks
 * it for a reaction; consecutive findings climb from remind to replan to cancelling the turn, a call that
 * ends cleanly starts the ladder again, and a user message resets everything, so every cap counts per user
 * turn. Once `maxFires` reactions are spent, every later finding is a `stop`, whatever `escalate` says: a
 * loop that persists past the cap ends its turn, so no setting lets a user turn run for ever. It decides;
 * it does not act (the plugin's index carries the reaction out).
 */

/** The strongest reaction the user allows. */
export type EscalateMode = 'warn' | 'steer' | 'cancel'

/**
 * - `warn`: the notice waits for the next request the agent makes anyway (never wakes or extends a turn);
 * - `remind` / `replan`: the notice is steered into the same turn, with the gentle or the stronger text;
 * - `cancel`: the turn is cancelled (and resumed with a notice when `resume` is true);
 * - `stop`: the reaction cap is spent; the finding is still cut, without a notice, and the turn is
 *   cancelled, never resumed (resuming would let a persisting loop go on without end).
 */
export type Action = 'warn' | 'remind' | 'replan' | 'cancel' | 'stop'

export interface Reaction {
  /** Position on the ladder: the number of consecutive findings, this one included. */
  level: number
  action: Action
  /** For `cancel`: whether the plugin should follow up with the notice once the agent is idle. */
  resume: boolean
}

export interface EscalationSettings {
  escalate: EscalateMode
  maxBreaksPerTurn: number
  maxFires: number
  resumeAfterBreak: boolean
}

export class Escalation {
  private streak = 0
  private fires = 0

  constructor(private readonly settings: EscalationSettings) {}

  /** The reaction to one finding; past the cap it is `stop`, which is not counted as a reaction. */
  react(): Reaction {
    const { escalate, maxBreaksPerTurn, maxFires, resumeAfterBreak } = this.settings
    this.streak++
    const level = this.streak
    if (this.fires >= maxFires) return { level, action: 'stop', resume: false }
    this.fires++
    const lastFire = this.fires === maxFires
    if (escalate === 'warn') return { level, action: 'warn', resume: false }
    if (escalate === 'cancel' && (level >= maxBreaksPerTurn || lastFire)) {
      // A cancelled turn starts the ladder again if it is resumed; the last allowed reaction never resumes.
      this.streak = 0
      return { level, action: 'cancel', resume: resumeAfterBreak && !lastFire }
    }
    return { level, action: level === 1 ? 'remind' : 'replan', resume: false }
  }

  /** A call ended cleanly: the next finding is a first one again. */
  settle(): void {
    this.streak = 0
  }
}
