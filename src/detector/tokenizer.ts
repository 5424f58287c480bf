// Splits one side's text into normalised tokens, the material the token-period rule and the unit
// rules (units.ts) read: ASCII case folded, white space collapsed, every CJK character a token of its
// own (the seed's tokenizer), and on the tool side through the JSON-string decoder. A token travels as
// a 32-bit FNV hash with its offsets, so a line of any length costs O(1) per character and no text is
// kept. Each token also carries a masked hash, in which every run of letters and digits that holds a
// digit (a number, a counter, an id, a hash, a part of a timestamp) stands as one placeholder, and the
// hash of those runs' values, so near-repetition can compare units with what changes masked.

import { FNV_OFFSET, FNV_PRIME, isCjk, isWhitespace, isWordChar, lowerAscii } from './char-classes.ts'
import type { Finding } from './finding.ts'
import type { JsonUnescaper } from './json-unescape.ts'

export interface Token {
  hash: number
  /** The hash without case folding. */
  caseHash: number
  /** Offsets in the side's text: [start, end). */
  start: number
  end: number
  /** Holds a letter or digit of any script. */
  hasWordChar: boolean
  /** Ends with . ! ? 。 ！ ？ (a sentence ends here). */
  endsSentence: boolean
  /** White space other than a line break comes before it (for the first token of a line: it is indented). */
  spaced: boolean
  /** The hash with every letter-and-digit run that holds a digit replaced by one placeholder. */
  maskedHash: number
  /** Hash of the masked runs' values (0 when there is none). */
  slotHash: number
  /** How many runs were masked. */
  slots: number
  /** The masked runs' value hashes, the first `MAX_SLOT_VALUES` (reused for the next token). */
  slotValues: Int32Array
  /** Letters (not digits) in it, any script. */
  letters: number
  /** Its first character. */
  firstCode: number
  /** Its last character. */
  lastCode: number
  /** How many times its first character opens it in a row (3 for "```ts"). */
  leadingRepeats: number
}

export interface TokenReader {
  token(token: Token): Finding | undefined
  /** A line break at `position`. */
  lineEnd(position: number): Finding | undefined
}

const SLOT_PLACEHOLDER = 35 // '#'
export const MAX_SLOT_VALUES = 32

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
  // The masked form of the token being read: its hash so far, the letter-and-digit run in progress.
  private masked = FNV_OFFSET
  private runHash = FNV_OFFSET
  private runLength = 0
  private runHasDigit = false
  private slotHash = 0
  private slots = 0
  private letters = 0
  private firstCode = 0
  private leadingRepeats = 0
  private caseHash = FNV_OFFSET
  private readonly current: Token = {
    hash: 0, caseHash: 0, start: 0, end: 0, hasWordChar: false, endsSentence: false, spaced: false,
    maskedHash: 0, slotHash: 0, slots: 0, slotValues: new Int32Array(MAX_SLOT_VALUES), letters: 0, firstCode: 0, lastCode: 0, leadingRepeats: 0,
  }

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
          spaced = false
          const finding = this.first.lineEnd(position) ?? this.second.lineEnd(position)
          if (finding) return finding
          continue
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
        const cjkHash = Math.imul(FNV_OFFSET ^ code, FNV_PRIME)
        const word = isWordChar(code)
        this.masked = cjkHash
        this.caseHash = cjkHash
        this.slotHash = 0
        this.slots = 0
        this.letters = word ? 1 : 0
        this.firstCode = code
        this.leadingRepeats = 1
        const finding = this.emit(cjkHash, position, position + 1, word, code, spaced)
        spaced = false
        if (finding) return finding
        continue
      }
      if (!inToken) {
        inToken = true
        start = position
        hash = FNV_OFFSET
        hasWordChar = false
        this.masked = FNV_OFFSET
        this.caseHash = FNV_OFFSET
        this.slotHash = 0
        this.slots = 0
        this.letters = 0
        this.firstCode = code
        this.leadingRepeats = 0
      }
      if (code === this.firstCode && this.leadingRepeats === position - start) this.leadingRepeats++
      const lower = lowerAscii(code)
      hash = Math.imul(hash ^ lower, FNV_PRIME)
      this.caseHash = Math.imul(this.caseHash ^ code, FNV_PRIME)
      if (isWordChar(code)) {
        hasWordChar = true
        this.runHash = Math.imul(this.runHash ^ lower, FNV_PRIME)
        this.runLength++
        if (code >= 48 && code <= 57) this.runHasDigit = true
        else this.letters++
      } else {
        if (this.runLength > 0) this.endRun()
        this.masked = Math.imul(this.masked ^ code, FNV_PRIME)
      }
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

  /** Closes the letter-and-digit run in progress: masked when it holds a digit. */
  private endRun(): void {
    if (this.runHasDigit) {
      this.masked = Math.imul(this.masked ^ SLOT_PLACEHOLDER, FNV_PRIME)
      this.slotHash = Math.imul((this.slotHash || FNV_OFFSET) ^ this.runHash, FNV_PRIME)
      if (this.slots < MAX_SLOT_VALUES) this.current.slotValues[this.slots] = this.runHash
      this.slots++
    } else {
      this.masked = Math.imul(this.masked ^ this.runHash, FNV_PRIME)
    }
    this.runHash = FNV_OFFSET
    this.runLength = 0
    this.runHasDigit = false
  }

  private emit(hash: number, start: number, end: number, hasWordChar: boolean, lastCode: number, spaced: boolean): Finding | undefined {
    const token = this.current
    if (this.runLength > 0) this.endRun()
    token.maskedHash = this.masked
    token.caseHash = this.caseHash
    token.slotHash = this.slotHash
    token.slots = this.slots
    token.letters = this.letters
    token.firstCode = this.firstCode
    token.leadingRepeats = this.leadingRepeats
    token.hash = hash
    token.start = start
    token.end = end
    token.hasWordChar = hasWordChar
    token.endsSentence = endsSentence(lastCode)
    token.lastCode = lastCode
    token.spaced = spaced
    return this.first.token(token) ?? this.second.token(token)
  }
}
