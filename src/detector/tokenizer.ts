// Splits one side's text into normalised tokens, the material the token-period and phrase-pool rules
// read: ASCII case folded, white space collapsed, every CJK character a token of its own (the seed's
// tokenizer), and on the tool side through the JSON-string decoder. A token travels as a 32-bit FNV
// hash with its offsets, so a line of any length costs O(1) per character and no text is kept.

import { FNV_OFFSET, FNV_PRIME, isCjk, isWhitespace, isWordChar, lowerAscii } from './char-classes.ts'
import type { Finding } from './finding.ts'
import type { JsonUnescaper } from './json-unescape.ts'

export interface Token {
  hash: number
  /** Offsets in the side's text: [start, end). */
  start: number
  end: number
  /** Holds a letter or digit of any script. */
  hasWordChar: boolean
  /** Ends with . ! ? 。 ！ ？ (a sentence ends here). */
  endsSentence: boolean
  /** White space separates it from the previous token. */
  spaced: boolean
}

export interface TokenReader {
  token(token: Token): Finding | undefined
  /** A line break at `position`. */
  lineEnd(position: number): Finding | undefined
}

function endsSentence(code: number): boolean {
  return code === 46 || code === 33 || code === 63 || code === 0x3002 || code === 0xff01 || code === 0xff1f
}

export class Tokenizer {
  private hash = FNV_OFFSET
  private inToken = false
  private start = 0
  private hasWordChar = false
  private lastCode = 0
  private spaced = false
  private readonly current: Token = { hash: 0, start: 0, end: 0, hasWordChar: false, endsSentence: false, spaced: false }

  /** `unescaper` is given on the tool side, whose text is JSON. */
  constructor(private readonly first: TokenReader, private readonly second: TokenReader, private readonly unescaper?: JsonUnescaper) {}

  /** Reads the characters at offsets [from, to) from `ring` (offset i at `i & mask`); returns the first finding. */
  scan(ring: Uint16Array, mask: number, from: number, to: number): Finding | undefined {
    const unescaper = this.unescaper
    let { hash, inToken, start, hasWordChar, lastCode, spaced } = this
    for (let position = from; position < to; position++) {
      let code = ring[position & mask]
      if (unescaper !== undefined && (code = unescaper.next(code)) < 0) continue
      if (isWhitespace(code)) {
        if (inToken) {
          inToken = false
          const finding = this.emit(hash, start, position, hasWordChar, lastCode, spaced)
          spaced = false
          if (finding) return finding
        }
        if (code === 10 || code === 13) {
          const finding = this.first.lineEnd(position) ?? this.second.lineEnd(position)
          if (finding) return finding
        }
        spaced = true
        continue
      }
      if (code >= 0x3000 && isCjk(code)) {
        if (inToken) {
          inToken = false
          const finding = this.emit(hash, start, position, hasWordChar, lastCode, spaced)
          spaced = false
          if (finding) return finding
        }
        const finding = this.emit(Math.imul(FNV_OFFSET ^ code, FNV_PRIME), position, position + 1, isWordChar(code), code, spaced)
        spaced = false
        if (finding) return finding
        continue
      }
      if (!inToken) {
        inToken = true
        start = position
        hash = FNV_OFFSET
        hasWordChar = false
      }
      hash = Math.imul(hash ^ lowerAscii(code), FNV_PRIME)
      if (!hasWordChar && isWordChar(code)) hasWordChar = true
      lastCode = code
    }
    this.hash = hash
    this.inToken = inToken
    this.start = start
    this.hasWordChar = hasWordChar
    this.lastCode = lastCode
    this.spaced = spaced
    return undefined
  }

  private emit(hash: number, start: number, end: number, hasWordChar: boolean, lastCode: number, spaced: boolean): Finding | undefined {
    const token = this.current
    token.hash = hash
    token.start = start
    token.end = end
    token.hasWordChar = hasWordChar
    token.endsSentence = endsSentence(lastCode)
    token.spaced = spaced
    return this.first.token(token) ?? this.second.token(token)
  }
}
