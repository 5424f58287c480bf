/**
 * Replays recorded calls through the detector exactly as the live `loop-breaker` plugin feeds it
 * (src/plugin/guard-wiring.ts, guard-stream.ts), so "would it fire?" has one answer offline and live: one
 * `StreamDetector` per call, every non-empty delta in stream order (reasoning → 'reasoning', text →
 * 'text', tool-call arguments → 'tool'), the first trip being the call's break; then, for a call that
 * did not trip, the detector's own completed-call protocol (`CompletedCallJudges`, `isJudgedFinish`:
 * which calls are judged, what counts as output, which judge wins, what the user's message resets),
 * the very code the plugin judges with. The detector module is passed in (the analyzer passes
 * `lib/detector.js`), so this entry never carries a second copy of it.
 */
import type { CompletedCallJudges, DetectorConfig, DetectorGuards, DetectorPlan, Trip, isJudgedFinish } from '../detector/index.ts'
import type { SessionCall } from './types.ts'

type Side = Trip['side']

/** The part of `dsh-loop-breaker/detector` the replay uses. */
export interface DetectorModule {
  DetectorPlan: new (thresholds?: Partial<DetectorConfig>, guards?: Partial<DetectorGuards>) => DetectorPlan
  StreamDetector: new (plan: DetectorPlan) => { push(side: Side, delta: string): Trip | undefined }
  CompletedCallJudges: new (plan: DetectorPlan) => Pick<CompletedCallJudges, 'observe' | 'userSpoke'>
  isJudgedFinish: typeof isJudgedFinish
}

/**
 * A config to replay with, as plain data (it crosses to worker threads): the detector's thresholds (the
 * analyzer's `--set`), and the guards of the `loop-breaker` row (`reasoning`, `text`, `tool`, `steps`).
 */
export interface ReplayConfig {
  readonly thresholds?: Partial<DetectorConfig>
  readonly guards?: Partial<DetectorGuards>
}

/** What the detector makes of one call: the break it trips, or else the stall the judges find. */
export interface CallVerdict {
  /**
   * The stream detector's first trip: its rule, the side, the side's character offset, and the repeated
   * characters the live plugin's cut would report (and trim): that side's text from the loop's start to
   * the cut, in the block the tripping delta belongs to; null when none.
   */
  break: { rule: string; side: Side; at: number; repeatedChars: number } | null
  /** The cross-call judge's reason (`reasoning-only`, `repeated-material`) or else the cross-step judge's. */
  stall: string | null
}

/** One agent's replay: feed its calls in log order, and `userMessage()` where the user spoke. */
export class SessionReplay {
  private readonly judges: InstanceType<DetectorModule['CompletedCallJudges']>
  /** The config resolved once, as the live plugin resolves its own once per config. */
  private readonly plan: DetectorPlan

  /**
   * One agent's judges, fresh.
   * @param detector - the detector module (`lib/detector.js`, or `dsh-loop-breaker/detector`).
   * @param config - the thresholds and guards to replay with; omitted for the defaults.
   * @throws whatever the detector throws for a config it refuses.
   */
  constructor(private readonly detector: DetectorModule, config: ReplayConfig = {}) {
    this.plan = new detector.DetectorPlan(config.thresholds, config.guards)
    this.judges = new detector.CompletedCallJudges(this.plan)
  }

  /** The user spoke: the judges are told, as the plugin tells them each turn. */
  userMessage(): void {
    this.judges.userSpoke()
  }

  /**
   * Replay one call: its deltas through a fresh stream detector, then, when it did not trip and ended by
   * itself, the call through the cross-call and cross-step judges.
   * @param call - the next call of this agent, in log order.
   * @returns the break, or the stall reason (the cross-call judge's first), or neither.
   */
  call(call: SessionCall): CallVerdict {
    const detector = new this.detector.StreamDetector(this.plan)
    let reasoning = ''
    let text = ''
    for (const [index, delta] of call.deltas.entries()) {
      if (delta.text.length === 0) continue
      const trip = detector.push(delta.side, delta.text)
      if (trip !== undefined) {
        return { break: { rule: trip.rule, side: trip.side, at: trip.at, repeatedChars: loopChars(call.deltas, index, trip) }, stall: null }
      }
      if (delta.side === 'reasoning') reasoning += delta.text
      else if (delta.side === 'text') text += delta.text
    }
    if (!this.detector.isJudgedFinish(call.finish?.kind)) return { break: null, stall: null }
    const toolCalls = call.toolCalls.map(({ name, arguments: args }) => ({ name, arguments: args }))
    const finding = this.judges.observe({ reasoning, text, toolCalls, previousResults: call.previousResults })
    return { break: null, stall: finding?.reason ?? null }
  }
}

/**
 * What the plugin's cut reports for a trip at delta `tripIndex` (src/plugin/open-blocks.ts `loopChars`):
 * the trip side's characters at or after `loopStart`, in the block the tripping delta was streamed into
 * (the block the cut closes; that side's earlier blocks were already delivered). Deltas whose block the
 * log does not name count as one block.
 */
function loopChars(deltas: SessionCall['deltas'], tripIndex: number, trip: Pick<Trip, 'side' | 'loopStart'>): number {
  const block = deltas[tripIndex].block
  let sideOffset = 0
  let chars = 0
  for (let index = 0; index <= tripIndex; index++) {
    const delta = deltas[index]
    if (delta.side !== trip.side) continue
    const end = sideOffset + delta.text.length
    if (delta.block === block) chars += Math.max(0, end - Math.max(sideOffset, trip.loopStart))
    sideOffset = end
  }
  return chars
}
