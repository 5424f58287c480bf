// One side of one call (reasoning, visible text or tool arguments). Characters go into a ring of recent
// text the rules share (the cycle rule writes and indexes each char in one pass). At each multiple of
// `cycleCheckStride` the tokenizer reads that stride for the token and unit rules, in text order, then
// the growing-line rule reads the lines that ended in it, and the symbol-run, letter-cycle and cycle
// checks run at its end. So every rule but identical-chunks decides on the text alone, whatever the
// delta boundaries, and memory is the ring and the rules' bounded state.
// The ring starts small and doubles while it holds the whole side at most half full, up to the plan's
// size: most calls are far shorter than the 64 K chars the longest period needs, and zeroing the whole
// ring and its index for each made a tenth of the detector's time on the npm corpus. Every offset the
// rules read then lies in a slot no char has been written to in either size, so the verdicts are the
// same as with the full ring from the start.

import { CycleRule } from './rules/cycle.ts'
import type { RuleFinding } from './finding.ts'
import { GrowingLineRule } from './rules/growing-line.ts'
import { IdenticalChunksRule } from './rules/identical-chunks.ts'
import { JsonUnescaper } from './text/json-unescape.ts'
import { LetterCycleRule } from './rules/letter-cycle.ts'
import { NoveltyRule } from './rules/novelty.ts'
import { PhrasePoolRule } from './rules/phrase-pool.ts'
import type { SidePlan } from './plan.ts'
import { SymbolRunRule } from './rules/symbol-run.ts'
import { TokenPeriodRule } from './rules/token-period.ts'
import { Tokenizer } from './text/tokenizer.ts'
import { UnitReader } from './text/units.ts'

const INITIAL_RING_SIZE = 4096

export class SideScanner {
  /** UTF-16 length of the side's text so far. */
  length = 0
  /** The side's recent characters, offset i at `i & mask`; shared by the rules. */
  private ring: Uint16Array
  private mask: number
  /** The plan's ring size, which the ring grows to. */
  private readonly fullRingSize: number
  /** The side's length up to which the ring holds the side at most half full. */
  private roomUntil: number
  private readonly cycle: CycleRule
  private readonly tokenPeriod: TokenPeriodRule
  /** Feeds the token-period and unit rules. */
  private readonly tokenizer: Tokenizer
  private readonly symbolRun: SymbolRunRule
  private readonly letterCycle: LetterCycleRule
  private readonly growingLine: GrowingLineRule
  private readonly chunks: IdenticalChunksRule
  private readonly stride: number
  private untilStrideEnd: number

  constructor(plan: SidePlan) {
    this.fullRingSize = plan.ringSize
    const size = Math.min(INITIAL_RING_SIZE, plan.ringSize)
    this.ring = new Uint16Array(size)
    this.mask = size - 1
    this.roomUntil = size < plan.ringSize ? size / 2 : Infinity
    this.cycle = new CycleRule(plan.cycle, this.ring)
    const novelty = new NoveltyRule(plan.novelty)
    this.tokenPeriod = new TokenPeriodRule(plan.tokenPeriod, this.ring, this.mask)
    const units = new UnitReader(new PhrasePoolRule(plan.pool), novelty, plan.tool)
    this.tokenizer = new Tokenizer(novelty, units, this.tokenPeriod, plan.tool ? new JsonUnescaper() : undefined)
    this.growingLine = new GrowingLineRule(plan.growingLine)
    this.symbolRun = new SymbolRunRule(plan.symbolRun, plan.tool)
    this.letterCycle = new LetterCycleRule(plan.letterCycle)
    this.chunks = new IdenticalChunksRule(plan.maxIdenticalChunks)
    this.stride = plan.stride
    this.untilStrideEnd = this.stride
  }

  push(delta: string): RuleFinding | undefined {
    let length = this.length
    for (let i = 0; i < delta.length;) {
      const take = Math.min(delta.length - i, this.untilStrideEnd)
      this.cycle.write(delta, i, i + take, length)
      i += take
      length += take
      this.untilStrideEnd -= take
      if (this.untilStrideEnd > 0) break
      this.untilStrideEnd = this.stride
      const found = this.examine(length - this.stride, length)
      if (found) {
        this.length = length + delta.length - i
        return found
      }
    }
    this.length = length
    return this.chunks.add(delta, length)
  }

  /** Doubles the ring until it holds `length` chars at most half full, or reaches the plan's size. */
  private growRing(length: number): void {
    let size = this.ring.length
    while (size < 2 * length && size < this.fullRingSize) size *= 2
    const ring = new Uint16Array(size)
    ring.set(this.ring)
    this.ring = ring
    this.mask = size - 1
    this.roomUntil = size < this.fullRingSize ? size / 2 : Infinity
    this.cycle.useRing(ring)
    this.tokenPeriod.useRing(ring)
  }

  /** Runs the rules over the stride at offsets [from, to), then the cycle check at its end. */
  private examine(from: number, to: number): RuleFinding | undefined {
    // Grown here, not per delta: the next stride's chars then fit as well (a check per push costs more).
    if (to + this.stride > this.roomUntil) this.growRing(to + this.stride)
    const tokenizer = this.tokenizer
    return tokenizer.scan(this.ring, this.mask, from, to)
      ?? this.growingLine.scan(this.ring, this.mask, tokenizer.lineBreaks, tokenizer.lineBreakCount)
      ?? this.symbolRun.scan(this.ring, this.mask, from, to) ?? this.letterCycle.scan(this.ring, this.mask, to) ?? this.cycle.check(to)
  }
}
