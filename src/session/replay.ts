/**
 * Replays recorded calls through the detector exactly as the live
 * `loop-breaker` plugin feeds it (src/plugin/guard-stream.ts, index.ts), so
 * "would it fire?" has one answer offline and live:
 * - one `StreamDetector` per call; every non-empty delta in stream order
 *   (reasoning → 'reasoning', text → 'text', tool-call arguments → 'tool');
 *   the first trip is the call's break (the plugin stops watching there);
 * - a call that did not trip and ended by itself (a finish other than
 *   error/aborted) goes to the per-agent `CallJudge` ({reasoning, hasOutput:
 *   non-blank text or a tool call}) and then `StepJudge` ({text, toolCalls,
 *   previousResults: the tool results logged since the last assistant message});
 *   the call judge's reason wins, as in the plugin's one `loop-breaker/stall`;
 * - the cross-step judge starts afresh when the user speaks; the cross-call
 *   judge is carried over, as the plugin carries it (at rc.8 a call with
 *   reasoning and no output ends its turn, so stalled calls only line up
 *   across the user's "continue" messages).
 * The detector module is passed in (the analyzer passes `lib/detector.js`), so
 * this entry never carries a second copy of it.
 */
import type { SessionCall } from './types.ts'

type Side = 'reasoning' | 'text' | 'tool'
interface Trip { rule: string; side: Side; at: number; repeatedChars: number }

/** The part of `dsh-loop-breaker/detector` the replay uses. */
export interface DetectorModule {
  StreamDetector: new (config?: any) => { push(side: Side, delta: string): Trip | undefined }
  CallJudge: new (config?: any) => { observe(call: { reasoning: string; hasOutput: boolean }): string | undefined }
  StepJudge: new (config?: any) => { observe(step: { text: string; toolCalls: Array<{ name: string; arguments: string }>; previousResults: unknown[] }): string | undefined }
}

export interface CallVerdict {
  break: { rule: string; side: Side; at: number; repeatedChars: number } | null
  /** The cross-call judge's reason (`reasoning-only`, `repeated-material`) or else the cross-step judge's. */
  stall: string | null
}

/** One agent's replay: feed its calls in log order, and `userMessage()` where the user spoke. */
export class SessionReplay {
  private readonly callJudge: InstanceType<DetectorModule['CallJudge']>
  private stepJudge: InstanceType<DetectorModule['StepJudge']>

  constructor(private readonly detector: DetectorModule, private readonly config?: object) {
    this.callJudge = new detector.CallJudge(config)
    this.stepJudge = new detector.StepJudge(config)
  }

  userMessage(): void {
    this.stepJudge = new this.detector.StepJudge(this.config)
  }

  call(call: SessionCall): CallVerdict {
    const detector = new this.detector.StreamDetector(this.config)
    let reasoning = ''
    let text = ''
    for (const delta of call.deltas) {
      if (delta.text.length === 0) continue
      const trip = detector.push(delta.side, delta.text)
      if (trip !== undefined) {
        return { break: { rule: trip.rule, side: trip.side, at: trip.at, repeatedChars: trip.repeatedChars }, stall: null }
      }
      if (delta.side === 'reasoning') reasoning += delta.text
      else if (delta.side === 'text') text += delta.text
    }
    const kind = call.finish?.kind
    if (kind === undefined || kind === 'error' || kind === 'aborted') return { break: null, stall: null }
    const hasOutput = text.trim() !== '' || call.toolCalls.length > 0
    const stall = this.callJudge.observe({ reasoning, hasOutput })
    const toolCalls = call.toolCalls.map(({ name, arguments: args }) => ({ name, arguments: args }))
    const repeat = this.stepJudge.observe({ text, toolCalls, previousResults: call.previousResults })
    return { break: null, stall: stall ?? repeat ?? null }
  }
}
