// near pool: units that are the same once what changes is masked. The shapes: one sentence or block
// with a counter ("Step 12: retrying the request.", "第 3 次尝试……", `<|im_start|>12`), a retry
// block whose request id, hash or timestamp changes, one sentence frame with a changing word (a chain
// of near-synonyms in one template, a changing noun), the same function emitted again with a new name
// or number, data rows with an incrementing index; and, because its window is long, pools of many
// distinct long sentences and long passages restated verbatim (a 1,200-char paragraph, A-B-A-B with
// 1.3 K periods: every unit of the passage comes back). No exact rule sees the first shapes: the cycle
// has no period, every unit is distinct, the token-period run restarts at the counter.
//
// A unit (units.ts) joins the frame of an earlier unit when
//   - their masked keys are equal (every number, id, hash or timestamp masked) and at most
//     `nearMaxChangedSlots` of their masked tokens hold a different value (1 for data-like units: a
//     row whose index alone changes is a loop's, a row whose several values change is data), or
//   - they are prose, have the same number of tokens (4 to 32), one half of them equal, and at most
//     one token different in all, a plain word (one slot: a changing word; in code and data a changing
//     identifier, path or key is normal: generated declarations, export lists).
// Frames are then the units of a pool (unit-pool.ts) over a long window (`nearPoolWindowChars`,
// `nearPoolWindowUnits`), with its own thresholds: near repetition is weaker evidence than verbatim
// repetition, so it asks for more repeated mass than the phrase pool, and text that looks like data or
// quoted tool output asks for `nearPoolDataMinRepeatedChars`, more again (docs/detector.md#confidence).
// Deliberately let through: data rows whose several values change (CSV, generated tables, logs with
// varying messages), numbered lists whose items differ in more than one word, quoted logs and
// identical data rows shorter than the data threshold, a block quoted two or three times
// (concentration), see docs/detector.md#near-pool.
//
// Cost: two lookups in direct-mapped tables per unit (a later unit overwrites an earlier one in the
// same slot, so memory is fixed: `TABLE_SIZE` entries of `UNIT_TOKENS` ints each) and a comparison of
// at most `UNIT_TOKENS` token hashes; the pool's window is bounded as in unit-pool.ts.

import { FNV_OFFSET, FNV_PRIME } from './char-classes.ts'
import type { Finding } from './finding.ts'
import { UnitPool, type PoolThresholds } from './unit-pool.ts'
import { UNIT_TOKENS, type Unit, type UnitRule } from './units.ts'

export interface NearPoolThresholds extends PoolThresholds {
  readonly maxChangedSlots: number
}

const TABLE_BITS = 9
const TABLE_SIZE = 1 << TABLE_BITS
const TABLE_MASK = TABLE_SIZE - 1
/** A frame with one changing word needs this many tokens: in shorter units one word is half the unit. */
const MIN_FRAME_TOKENS = 4
/** Longest period (units) of a data loop: a row, a retry block, a function of a few lines. */
const MAX_PERIOD = 16
const RECENT_MASK = 31
const HEAD_SEED = 0x68656164
const TAIL_SEED = 0x7461696c

function slotOf(key: number): number {
  return (key ^ (key >>> 13) ^ (key >>> 22)) & TABLE_MASK
}

/** One direct-mapped table: per slot a key, a frame, a count and up to `UNIT_TOKENS` stored ints. */
class FrameTable {
  readonly keys = new Int32Array(TABLE_SIZE)
  readonly frames = new Int32Array(TABLE_SIZE).fill(-1)
  readonly counts = new Int32Array(TABLE_SIZE)
  readonly values = new Int32Array(TABLE_SIZE * UNIT_TOKENS)

  /** The slot holding `key`, or -1. */
  find(key: number): number {
    const slot = slotOf(key)
    return this.frames[slot] >= 0 && this.keys[slot] === key ? slot : -1
  }

  store(key: number, frame: number, count: number, values: Int32Array): void {
    const slot = slotOf(key)
    this.keys[slot] = key
    this.frames[slot] = frame
    this.counts[slot] = count
    const kept = Math.min(count, UNIT_TOKENS)
    const stored = this.values
    const offset = slot * UNIT_TOKENS
    for (let i = 0; i < kept; i++) stored[offset + i] = values[i]
  }

  /** How many of the first `count` stored values at `slot` differ from `values`. */
  differences(slot: number, values: Int32Array, count: number): number {
    const stored = this.values
    const offset = slot * UNIT_TOKENS
    let different = 0
    for (let i = 0; i < count; i++) if (stored[offset + i] !== values[i]) different++
    return different
  }
}

function rangeHash(seed: number, values: Int32Array, from: number, to: number, count: number): number {
  let hash = Math.imul(FNV_OFFSET ^ seed, FNV_PRIME)
  for (let i = from; i < to; i++) hash = Math.imul(hash ^ values[i], FNV_PRIME)
  return Math.imul(hash ^ count, FNV_PRIME)
}

export class NearPoolRule implements UnitRule {
  private readonly pool: UnitPool
  /** By masked key: the masked values. */
  private readonly masked = new FrameTable()
  /** By the hash of either half of the whole tokens: the whole tokens. */
  private readonly halves = new FrameTable()
  private nextFrame = 0
  /** The latest frames (ring) and, per period p, how many units in a row equal the one p back. */
  private readonly recentFrames = new Int32Array(RECENT_MASK + 1)
  private readonly periodRuns = new Int32Array(MAX_PERIOD + 1)
  private recentCount = 0
  /** The current unit's whole tokens (masked hash and values). */
  private readonly tokens = new Int32Array(UNIT_TOKENS)

  constructor(private readonly thresholds: NearPoolThresholds) {
    this.pool = new UnitPool('near-pool', thresholds)
  }

  unit(unit: Unit): Finding | undefined {
    if (!unit.counted || this.thresholds.minRepeatedChars === 0) {
      return this.pool.add(0, unit.length, unit.start, false, unit.dataLike, unit.end)
    }
    const count = Math.min(unit.tokenCount, UNIT_TOKENS)
    let frame = -1
    const maskedSlot = this.masked.find(unit.maskedKey)
    if (maskedSlot >= 0 && this.masked.counts[maskedSlot] === unit.slots) {
      const allowed = unit.dataLike ? 1 : this.thresholds.maxChangedSlots
      if (this.masked.differences(maskedSlot, unit.slotValues, Math.min(unit.slots, UNIT_TOKENS)) <= allowed) frame = this.masked.frames[maskedSlot]
    }
    const framed = unit.tokenCount >= MIN_FRAME_TOKENS && unit.tokenCount <= UNIT_TOKENS
    // Halves compare whole tokens, values included: a row whose values all change is not one slot.
    const tokens = this.tokens
    for (let i = 0; i < count; i++) tokens[i] = unit.tokenSlots[i] === 0 ? unit.tokens[i] : Math.imul(unit.tokens[i] ^ unit.tokenSlots[i], FNV_PRIME)
    const half = count >> 1
    const headKey = framed ? rangeHash(HEAD_SEED, tokens, 0, half, count) : 0
    const tailKey = framed ? rangeHash(TAIL_SEED, tokens, half, count, count) : 0
    // One changing word is a loop's in prose; in code and data it is an identifier, a path or a key
    // (generated declarations, export lists), so data-like units only join a frame through masked values.
    if (frame < 0 && framed && !unit.dataLike) {
      frame = this.oneSlotFrame(headKey, tokens, count, unit.tokenPlain) ?? this.oneSlotFrame(tailKey, tokens, count, unit.tokenPlain) ?? -1
    }
    if (frame < 0) frame = this.nextFrame++ & 0x3fffffff
    const periodic = this.followsPeriod(frame)
    this.masked.store(unit.maskedKey, frame, unit.slots, unit.slotValues)
    if (framed) {
      this.halves.store(headKey, frame, count, tokens)
      this.halves.store(tailKey, frame, count, tokens)
    }
    // Data repeats in its own order (a log's messages come as they come); a loop of data repeats its
    // rows in a fixed order, so a data-like unit only counts as a sighting inside a periodic stretch.
    const key = unit.dataLike && !periodic ? this.nextFrame++ & 0x3fffffff : frame
    return this.pool.add(key, unit.length, unit.start, true, unit.dataLike, unit.end)
  }

  /**
   * Records `frame` as the newest unit's; returns whether the frames now repeat with some period of
   * 1–`MAX_PERIOD` units over at least two periods.
   */
  private followsPeriod(frame: number): boolean {
    const recent = this.recentFrames
    const runs = this.periodRuns
    const index = this.recentCount++
    let periodic = false
    for (let period = 1; period <= MAX_PERIOD; period++) {
      if (index >= period && recent[(index - period) & RECENT_MASK] === frame) {
        if (++runs[period] >= 2 * period) periodic = true
      } else runs[period] = 0
    }
    recent[index & RECENT_MASK] = frame
    return periodic
  }

  /**
   * The frame of the unit stored under this half's key when it has as many tokens and differs in at
   * most one, a plain word (not a path, a quoted string or an identifier with symbols).
   */
  private oneSlotFrame(key: number, tokens: Int32Array, count: number, plain: Uint8Array): number | undefined {
    const slot = this.halves.find(key)
    if (slot < 0 || this.halves.counts[slot] !== count) return undefined
    const stored = this.halves.values
    const offset = slot * UNIT_TOKENS
    let different = -1
    for (let i = 0; i < count; i++) {
      if (stored[offset + i] === tokens[i]) continue
      if (different >= 0) return undefined
      different = i
    }
    if (different >= 0 && plain[different] === 0) return undefined
    return this.halves.frames[slot]
  }
}
