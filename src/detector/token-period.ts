// token period: a block of tokens repeated back to back, modulo case and white space, the way the
// seed's reference agent counts it (lower-cased, white space collapsed, split on white space, every
// CJK character one token): "我再检查一下这个文件。" is 11 tokens, and said `minRepeats` times in a
// row it is a loop even when the spacing or capitalisation drifts and the cycle rule's exact period
// breaks. For every block length p up to `maxBlock` it keeps the run of tokens equal to the token p
// back; a run of p × (minRepeats − 1) means the block appeared minRepeats times.
// Deliberately let through: blocks with fewer than `minDistinct` distinct tokens ("哈哈哈",
// "| --- | --- |", "0, 0, 0"), and anything repeated fewer times (a list of similar items).
//
// Tokens are hashed (32-bit FNV) as they stream; the per-token cost is one comparison per block
// length, and memory is a ring of `maxBlock` + 1 token hashes.

import { FNV_OFFSET, FNV_PRIME, isCjk, isWhitespace, lowerAscii } from './char-classes.ts'
import type { Finding } from './finding.ts'

export interface TokenPeriodThresholds {
  readonly minRepeats: number
  readonly maxBlock: number
  readonly minDistinct: number
}

export class TokenPeriodRule {
  private hash = FNV_OFFSET
  private inToken = false
  private tokenStart = 0
  private tokenCount = 0
  private readonly ring: Int32Array
  private readonly mask: number
  private readonly runs: Int32Array
  private readonly runStarts: Float64Array
  private readonly shortestBlock: number

  constructor(private readonly thresholds: TokenPeriodThresholds) {
    let size = 2
    while (size < thresholds.maxBlock + 1) size *= 2
    this.ring = new Int32Array(size)
    this.mask = size - 1
    this.runs = new Int32Array(thresholds.maxBlock + 1)
    this.runStarts = new Float64Array(thresholds.maxBlock + 1)
    // A block of p tokens holds at most p distinct ones.
    this.shortestBlock = Math.max(1, thresholds.minDistinct)
  }

  add(position: number, code: number): Finding | undefined {
    if (isWhitespace(code)) return this.inToken ? this.endToken(position) : undefined
    if (isCjk(code)) {
      const finding = this.inToken ? this.endToken(position) : undefined
      if (finding) return finding
      this.tokenStart = position
      this.hash = Math.imul(FNV_OFFSET ^ code, FNV_PRIME)
      return this.endToken(position + 1)
    }
    if (!this.inToken) {
      this.inToken = true
      this.tokenStart = position
      this.hash = FNV_OFFSET
    }
    this.hash = Math.imul(this.hash ^ lowerAscii(code), FNV_PRIME)
    return undefined
  }

  private endToken(end: number): Finding | undefined {
    this.inToken = false
    const hash = this.hash
    const index = this.tokenCount++
    const { ring, mask, runs } = this
    ring[index & mask] = hash
    const minRepeats = this.thresholds.minRepeats
    if (minRepeats === 0) return undefined
    const longest = Math.min(this.thresholds.maxBlock, index)
    for (let block = this.shortestBlock; block <= longest; block++) {
      if (ring[(index - block) & mask] !== hash) {
        runs[block] = 0
        continue
      }
      if (++runs[block] === 1) this.runStarts[block] = this.tokenStart
      if (runs[block] < block * (minRepeats - 1)) continue
      if (this.distinctInBlock(index, block) >= this.thresholds.minDistinct) {
        const loopStart = this.runStarts[block]
        return { rule: 'token-period', loopStart, repeatedChars: end - loopStart }
      }
      runs[block] = 0
    }
    return undefined
  }

  private distinctInBlock(index: number, block: number): number {
    const distinct = new Set<number>()
    for (let i = 0; i < block; i++) distinct.add(this.ring[(index - i) & this.mask])
    return distinct.size
  }
}
