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

/**
 * The distinct 4-grams of `text` from `from` on, hashed to 32 bits, in an open-addressing table of
 * typed slots: a JS Set of numbers made a fifth of the session analyzer's time (its adds, and the
 * garbage of one Set per long call). 0 marks an empty slot, so a gram hashing to 0 is a flag.
 */
class FourGrams {
  private readonly slots: Int32Array
  private readonly mask: number
  private hasZero = false
  /** How many distinct grams it holds. */
  size = 0

  constructor(text: string, from: number) {
    const grams = Math.max(text.length - from - 3, 0)
    let capacity = 16
    while (capacity < 2 * grams) capacity *= 2
    this.slots = new Int32Array(capacity)
    this.mask = capacity - 1
    for (let i = from; i + 4 <= text.length; i++) {
      let hash = 0x811c9dc5
      for (let j = i; j < i + 4; j++) hash = Math.imul(hash ^ text.charCodeAt(j), 0x01000193)
      this.add(hash)
    }
  }

  private add(hash: number): void {
    if (hash === 0) {
      if (!this.hasZero) this.size++
      this.hasZero = true
      return
    }
    const slot = this.slotOf(hash)
    if (this.slots[slot] === 0) {
      this.slots[slot] = hash
      this.size++
    }
  }

  private has(hash: number): boolean {
    return hash === 0 ? this.hasZero : this.slots[this.slotOf(hash)] === hash
  }

  /** The slot holding the non-zero `hash`, or the empty slot where it goes (the table is never full). */
  private slotOf(hash: number): number {
    const { slots, mask } = this
    let slot = (hash ^ (hash >>> 16)) & mask
    while (slots[slot] !== hash && slots[slot] !== 0) slot = (slot + 1) & mask
    return slot
  }

  /** The share of its grams that `within` holds too (0 when it holds none). */
  containedIn(within: FourGrams): number {
    if (this.size === 0) return 0
    let shared = this.hasZero && within.hasZero ? 1 : 0
    for (const hash of this.slots) if (hash !== 0 && within.has(hash)) shared++
    return shared / this.size
  }
}

/**
 * The cross-call judge of one agent: it reports calls that only reason (long reasoning, no output) or
 * restate the previous call's reasoning, when `maxThinkingSteps` such calls come in a row. See docs/judges.md.
 */
export class CallJudge {
  private readonly config: DetectorConfig
  private previousGrams: FourGrams | undefined
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
    const grams = new FourGrams(call.reasoning, Math.max(call.reasoning.length - callJudgeWindowChars, 0))
    const previous = this.previousGrams
    const restated = similarityThreshold > 0 && previous !== undefined
      && grams.containedIn(previous) >= similarityThreshold
      && new FourGrams(call.reasoning, Math.max(call.reasoning.length - restatementTailChars, 0)).containedIn(previous) >= similarityThreshold
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
