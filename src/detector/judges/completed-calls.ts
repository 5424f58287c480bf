// The protocol for judging model calls that ended by themselves, in one place for the live plugin
// (src/plugin/guard-wiring.ts) and the offline replay (src/session/replay.ts), so the two cannot drift: which
// calls are judged (`isJudgedFinish`: a cut call is the stream detector's, a failed one never completed),
// what counts as output, and which verdict wins (the cross-call judge's: one finding a call). See docs/judges.md.

import { CallJudge } from './call-judge.ts'
import { resolveDetectorConfig, type DetectorConfig } from '../settings.ts'
import { StepJudge } from './step-judge.ts'
import type { StepToolCall } from './step-judge.ts'
import type { ResolvedDetector, StallReason, StepVerdict } from '../types.ts'

/** What the judges are given of one completed call. */
export interface CompletedCallObservation {
  /** The call's reasoning: all of it, or at least its last `callJudgeWindowChars` chars. */
  readonly reasoning: string
  /** The length of the call's whole reasoning when `reasoning` is only its tail (default: its length). */
  readonly reasoningLength?: number
  /** The call's visible text (a head of it is enough: the step judge reads the first 200 chars). */
  readonly text: string
  /** The call's tool calls, in order. */
  readonly toolCalls: ReadonlyArray<StepToolCall>
  /** What the previous step's tool calls returned, as this call's request carried them. */
  readonly previousResults?: ReadonlyArray<unknown>
}

/** A judge's finding on a completed call: which judge, and its reason. */
export type CompletedCallFinding =
  | { readonly judge: 'call'; readonly reason: StallReason }
  | { readonly judge: 'step'; readonly reason: StepVerdict }

/**
 * Whether a call that no rule cut is judged, by how its stream finished.
 * @param finishKind - the `finish` chunk's `reason.kind` (`stop`, `tool-calls`, `max-tokens`, `error`,
 *   `aborted`, ...), or `undefined` when the stream never finished.
 * @returns true when the call ended by itself (any finish but `error` and `aborted`).
 */
export function isJudgedFinish<Kind extends string>(finishKind: Kind | undefined): finishKind is Exclude<Kind, 'error' | 'aborted'> {
  return finishKind !== undefined && finishKind !== 'error' && finishKind !== 'aborted'
}

/** One agent's cross-call and cross-step judges, fed the agent's judged calls in order. */
export class CompletedCallJudges {
  private readonly callJudge: CallJudge
  private stepJudge: StepJudge
  private readonly config: DetectorConfig
  private readonly silent: boolean

  /**
   * Both judges of one agent, with no history yet.
   * @param config - a `DetectorPlan` (whose `guards.steps` false silences both judges), or thresholds to
   *   override: every field left out takes its default.
   * @throws Error naming the field and the value, on a config the detector refuses.
   */
  constructor(config?: Partial<DetectorConfig> | ResolvedDetector) {
    const resolved = config !== undefined && 'guards' in config ? config : undefined
    this.config = resolveDetectorConfig(resolved === undefined ? config as Partial<DetectorConfig> | undefined : resolved.config)
    this.silent = resolved?.guards.steps === false
    this.callJudge = new CallJudge(this.config)
    this.stepJudge = new StepJudge(this.config)
  }

  /**
   * The user spoke: the cross-step judge starts afresh. The cross-call judge keeps its history: at rc.8 a
   * call with reasoning and no output ends its turn, so stalled calls line up only across the user's "continue".
   */
  userSpoke(): void {
    this.stepJudge = new StepJudge(this.config)
  }

  /**
   * Judge one completed call (call it only for calls `isJudgedFinish` admits, in the agent's order).
   * @param call - the call's reasoning, text, tool calls and the previous step's results.
   * @returns the cross-call judge's finding, else the cross-step judge's, else `undefined`.
   */
  observe(call: CompletedCallObservation): CompletedCallFinding | undefined {
    if (this.silent) return undefined
    const hasOutput = call.text.trim() !== '' || call.toolCalls.length > 0
    const stall = this.callJudge.observe({ reasoning: call.reasoning, reasoningLength: call.reasoningLength, hasOutput })
    const repeat = this.stepJudge.observe({ text: call.text, toolCalls: call.toolCalls, previousResults: call.previousResults })
    if (stall !== undefined) return { judge: 'call', reason: stall }
    return repeat === undefined ? undefined : { judge: 'step', reason: repeat }
  }
}
