// Cross-call stall: the model thinks at length and produces nothing, or its reasoning restates the
// previous call's material, call after call (docs/judges.md#the-call-judge). Restatement is the share of
// the distinct 4-grams of a call's last `callJudgeWindowChars` chars of reasoning present in the same
// window of the previous long call, hashed to 32 bits (a collision inflates the share by < 1e-4 at 100k
// distinct 4-grams); the window bounds time and memory whatever a call's length.

import { resolveDetectorConfig, type DetectorConfig } from '../settings.ts'
import type { StallReason } from '../types.ts'

/** What the cross-call judge is given of one completed call. */
export interface CallObservation {
  /** The call's reasoning: all of it, or at least its last `callJudgeWindowChars` chars. */
  readonly reasoning: string
  /** The length of the call's whole reasoning when `reasoning` is only its tail (default: `reasoning.length`). */
  readonly reasoningLength?: number
  /** Whether the call produced visible text or a tool call. */
  readonly hasOutput: boolean
}

function distinctFourGrams(text: string, from: number): Set<number> {
  const grams = new Set<number>()
  for (let i = from; i + 4 <= text.length; i++) {
    let hash = 0x811c9dc5
    for (let j = i; j < i + 4; j++) hash = Math.imul(hash ^ text.charCodeAt(j), 0x01000193)
    grams.add(hash >>> 0)
  }
  return grams
}

function containment(grams: Set<number>, within: Set<number>): number {
  if (grams.size === 0) return 0
  let shared = 0
  for (const gram of grams) if (within.has(gram)) shared++
  return shared / grams.size
}

/**
 * The cross-call judge of one agent: it reports calls that only reason (long reasoning, no output) or
 * restate the previous call's reasoning, when `maxThinkingSteps` such calls come in a row. See docs/judges.md.
 */
export class CallJudge {
  private readonly config: DetectorConfig
  private previousGrams: Set<number> | undefined
  private stalledCalls = 0

  /**
   * A judge with no history yet.
   * @param config - thresholds to override; every field left out takes its default.
   * @throws Error naming the field and the value, on a config the detector refuses.
   */
  constructor(config?: Partial<DetectorConfig>) {
    this.config = resolveDetectorConfig(config)
  }

  /**
   * Judge the agent's next completed call.
   * @param call - its reasoning (or the tail of it, with the whole length), and whether it produced output.
   * @returns `'reasoning-only'` or `'repeated-material'` when the stall threshold is reached, else `undefined`.
   */
  observe(call: CallObservation): StallReason | undefined {
    const { maxThinkingSteps, minReasoningChars, similarityThreshold, callJudgeWindowChars, restatementTailChars } = this.config
    const length = call.reasoningLength ?? call.reasoning.length
    if (maxThinkingSteps === 0 || length < minReasoningChars) return undefined
    const grams = distinctFourGrams(call.reasoning, Math.max(call.reasoning.length - callJudgeWindowChars, 0))
    const previous = this.previousGrams
    const restated = similarityThreshold > 0 && previous !== undefined
      && containment(grams, previous) >= similarityThreshold
      && containment(distinctFourGrams(call.reasoning, Math.max(call.reasoning.length - restatementTailChars, 0)), previous) >= similarityThreshold
    this.previousGrams = grams
    if (!restated && call.hasOutput) {
      this.stalledCalls = 0
      return undefined
    }
    this.stalledCalls++
    if (this.stalledCalls < maxThinkingSteps) return undefined
    this.stalledCalls = 0
    return restated ? 'repeated-material' : 'reasoning-only'
  }
}
