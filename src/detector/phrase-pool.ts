// phrase pool: a small vocabulary of short units reshuffled without any period. The seed's shape is
// "Go. / OK. / Writing. / Let me write." for 330,188 chars of reasoning (26 phrases, 5,569 sightings),
// and the same in visible text (44,387 chars), sometimes on one line with no newline at all. Units
// are lines, and sentences inside a line (ended by . ! ? before white space, or by 。！？), so a pool
// written on one long line is seen too. A unit is normalised (trimmed, white space collapsed, ASCII
// lower-cased) and counts only if it has at least 2 chars and a letter or digit: "}" and "|---|" are
// syntax, not phrases. Over a recent window of `windowChars` normalised chars (a long productive
// prefix cannot dilute it) the rule trips when all three hold:
//   repeated mass  Σ (sightings − 1) × length  ≥ minRepeatedChars   (enough text is repetition)
//   coverage       repeated mass / window      ≥ poolMinCoverage    (most of the window is repetition)
//   concentration  sightings / distinct units  ≥ poolMinConcentration
// Concentration is what lets a code block quoted twice (before/after: every line seen ~2 times)
// through, while a pool sees each phrase 7–23 times (seed measurements).
//
// Units are read as runs of tokens (tokenizer.ts) and kept as a hash of their tokens plus their
// length, so a long line costs O(1) per char and nothing is kept beyond the window's units. The
// verdict is taken when a unit ends, at a fixed offset of the text, so it does not depend on delta
// boundaries.

import { FNV_OFFSET, FNV_PRIME } from './char-classes.ts'
import type { Finding } from './finding.ts'
import type { Token, TokenReader } from './tokenizer.ts'

export interface PoolThresholds {
  readonly minRepeatedChars: number
  readonly windowChars: number
  readonly minCoverage: number
  readonly minConcentration: number
}

const SPACE = 32
const LENGTH_FACTOR = 2 ** 32
const MAX_KEYED_LENGTH = 2 ** 20

export class PhrasePoolRule implements TokenReader {
  // The unit being read.
  private hash = FNV_OFFSET
  private length = 0
  private hasWordChar = false
  private start = 0
  // The window: parallel arrays from `head` on, oldest first.
  private keys: number[] = []
  private lengths: number[] = []
  private starts: number[] = []
  private counted: boolean[] = []
  private head = 0
  private windowLength = 0
  private readonly sightingsByKey = new Map<number, number>()
  private repeatedMass = 0
  private sightings = 0

  constructor(private readonly thresholds: PoolThresholds) {}

  token(token: Token): Finding | undefined {
    if (this.length === 0) this.start = token.start
    else if (token.spaced) {
      this.hash = Math.imul(this.hash ^ SPACE, FNV_PRIME)
      this.length++
    }
    this.hash = Math.imul(this.hash ^ token.hash, FNV_PRIME)
    this.length += token.end - token.start
    if (token.hasWordChar) this.hasWordChar = true
    return token.endsSentence ? this.endUnit(token.end) : undefined
  }

  lineEnd(position: number): Finding | undefined {
    return this.endUnit(position + 1)
  }

  private endUnit(verifiedAt: number): Finding | undefined {
    const length = this.length
    if (length === 0) return undefined
    const counted = length >= 2 && this.hasWordChar
    this.enter((this.hash >>> 0) + Math.min(length, MAX_KEYED_LENGTH) * LENGTH_FACTOR, length, this.start, counted)
    this.hash = FNV_OFFSET
    this.length = 0
    this.hasWordChar = false
    return this.verdict(verifiedAt)
  }

  private enter(key: number, length: number, start: number, counted: boolean): void {
    this.keys.push(key)
    this.lengths.push(length)
    this.starts.push(start)
    this.counted.push(counted)
    this.windowLength += length
    if (counted) {
      const seen = this.sightingsByKey.get(key) ?? 0
      if (seen > 0) this.repeatedMass += length
      this.sightingsByKey.set(key, seen + 1)
      this.sightings++
    }
    while (this.windowLength > this.thresholds.windowChars && this.keys.length - this.head > 1) this.leaveOldest()
    if (this.head > 1024 && this.head * 2 > this.keys.length) {
      this.keys = this.keys.slice(this.head)
      this.lengths = this.lengths.slice(this.head)
      this.starts = this.starts.slice(this.head)
      this.counted = this.counted.slice(this.head)
      this.head = 0
    }
  }

  private leaveOldest(): void {
    const index = this.head++
    const length = this.lengths[index]
    this.windowLength -= length
    if (!this.counted[index]) return
    const key = this.keys[index]
    const seen = this.sightingsByKey.get(key) as number
    if (seen > 1) {
      this.repeatedMass -= length
      this.sightingsByKey.set(key, seen - 1)
    } else {
      this.sightingsByKey.delete(key)
    }
    this.sightings--
  }

  private verdict(verifiedAt: number): Finding | undefined {
    const { minRepeatedChars, minCoverage, minConcentration } = this.thresholds
    if (minRepeatedChars === 0 || this.repeatedMass < minRepeatedChars) return undefined
    if (this.repeatedMass < minCoverage * this.windowLength) return undefined
    if (this.sightings < minConcentration * this.sightingsByKey.size) return undefined
    return { rule: 'phrase-pool', loopStart: this.firstRepeatStart(), repeatedChars: this.repeatedMass, verifiedAt }
  }

  /** Where the first unit of the window that repeats an earlier one begins. */
  private firstRepeatStart(): number {
    const seen = new Set<number>()
    for (let i = this.head; i < this.keys.length; i++) {
      if (!this.counted[i]) continue
      if (seen.has(this.keys[i])) return this.starts[i]
      seen.add(this.keys[i])
    }
    return this.starts[this.keys.length - 1]
  }
}
