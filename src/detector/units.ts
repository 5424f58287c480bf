// Units: the lines, and the sentences inside a line (ended by . ! ? before white space, or by 。！？),
// that the pool rules compare. A unit is built from the tokenizer's tokens (tokenizer.ts), so its
// text is normalised (white space collapsed, ASCII lower-cased) and never kept: it travels as hashes.
// Each unit carries what the rules need to judge it:
//   - `key`: the hash of its normalised text (exact repetition, phrase-pool.ts), case-sensitive for data;
//   - `maskedKey`, `tokens` and `tokenSlots`: the same with every number / id / hash / timestamp
//     masked, token by token, and the masked values per token (near repetition, near-pool.ts);
//   - `dataLike`: the unit looks like data or quoted tool output rather than prose (data-like.ts):
//     inside a fenced code block, on the tool side (files), three or more tokens holding numbers or
//     ids and making a quarter of its tokens or more, mostly
//     non-letters, a line that opens with a symbol, a log or stack-frame word (`INFO`, `at`, ...) or
//     indentation, or ends like code. Such text repeats legitimately (quoted logs, data rows, tables),
//     so the rules ask it for more evidence (see docs/detector.md#confidence); its key is also
//     case-sensitive, so a test matrix whose rows differ only in letter case is not a repeat.

import { FNV_OFFSET, FNV_PRIME } from './char-classes.ts'
import { endsLikeCode, opensLikeData } from './data-like.ts'
import type { Finding } from './finding.ts'
import type { Token, TokenReader } from './tokenizer.ts'

/** Tokens kept per unit for slot-by-slot comparison; a longer unit compares on its first ones. */
export const UNIT_TOKENS = 32

/** One unit, as handed to the rules: the object and its arrays are reused for the next unit, so a rule copies what it keeps. */
export interface Unit {
  /** Offset of its first character in the side's text. */
  start: number
  /** Offset just after the character that ended it (where a verdict on it is taken). */
  end: number
  /** Normalised length (chars, single spaces). */
  length: number
  key: number
  maskedKey: number
  tokenCount: number
  /** Masked token hashes, the first min(tokenCount, `UNIT_TOKENS`). */
  tokens: Int32Array
  /** Per kept token, 1 when it is a plain word (letters, and at most one other char such as a comma). */
  tokenPlain: Uint8Array
  /** Per kept token, the hash of its masked values (0: nothing masked). */
  tokenSlots: Int32Array
  /** Runs masked in the whole unit. */
  slots: number
  /** Their values, the first `UNIT_TOKENS`. */
  slotValues: Int32Array
  /** At least 2 chars and a letter or digit: syntax such as `}` or `|---|` is not a phrase. */
  counted: boolean
  dataLike: boolean
}

export interface UnitRule {
  unit(unit: Unit): Finding | undefined
}

const SPACE = 32
/** A unit this short ("a1.", "OK 2") says too little for its share of letters to mean data. */
const MIN_CHARS_FOR_LETTER_SHARE = 8
const BACKTICK = 96
const TILDE = 126

/** Hashes of the words that open a log line or a stack frame. */
function wordHash(word: string): number {
  let hash = FNV_OFFSET
  for (let i = 0; i < word.length; i++) hash = Math.imul(hash ^ word.charCodeAt(i), FNV_PRIME)
  return hash
}
// Case-sensitive: a stack frame opens with "at", a sentence with "At".
const LOG_OPENERS = new Set(['at', 'INFO', 'WARN', 'WARNING', 'ERROR', 'DEBUG', 'TRACE', 'FATAL', 'note:', 'warning:', 'error:',
  'info:', 'debug:', 'ERR!', 'npm'].map(wordHash))

export class UnitReader implements TokenReader {
  private hash = FNV_OFFSET
  private caseHash = FNV_OFFSET
  private masked = FNV_OFFSET
  private length = 0
  private hasWordChar = false
  private start = 0
  private tokenCount = 0
  private readonly unit: Unit = {
    start: 0, end: 0, length: 0, key: 0, maskedKey: 0, tokenCount: 0,
    tokens: new Int32Array(UNIT_TOKENS), tokenPlain: new Uint8Array(UNIT_TOKENS), tokenSlots: new Int32Array(UNIT_TOKENS), slots: 0, slotValues: new Int32Array(UNIT_TOKENS), counted: false, dataLike: false,
  }
  private slots = 0
  /** Tokens holding a masked run (a timestamp is one token of three runs). */
  private slottedTokens = 0
  private letters = 0
  private nonSpace = 0
  private opensLikeLog = false
  private lastCode = 0
  /** The next token is the first of its line. */
  private lineStart = true
  /** Whether the current line opened a fence or a line of a fenced block. */
  private lineOpensFence = false
  private inFence = false
  /** The current line opens with white space (code, nested data). */
  private lineIndented = false

  /** `allData`: every unit is data (the tool side, whose text is files). */
  constructor(private first: UnitRule, private second: UnitRule, private allData: boolean) {}

  token(token: Token): Finding | undefined {
    if (this.lineStart) {
      this.lineStart = false
      const code = token.firstCode
      // ``` opens or closes a fenced block; the fence line itself is syntax.
      this.lineOpensFence = (code === BACKTICK || code === TILDE) && token.leadingRepeats >= 3
      if (this.lineOpensFence) this.inFence = !this.inFence
      this.lineIndented = token.spaced
    }
    if (this.length === 0) {
      this.start = token.start
      const code = token.firstCode
      this.opensLikeLog = opensLikeData(code) || LOG_OPENERS.has(token.caseHash)
    } else if (token.spaced) {
      this.hash = Math.imul(this.hash ^ SPACE, FNV_PRIME)
      this.caseHash = Math.imul(this.caseHash ^ SPACE, FNV_PRIME)
      this.masked = Math.imul(this.masked ^ SPACE, FNV_PRIME)
      this.length++
    }
    this.hash = Math.imul(this.hash ^ token.hash, FNV_PRIME)
    this.caseHash = Math.imul(this.caseHash ^ token.caseHash, FNV_PRIME)
    this.masked = Math.imul(this.masked ^ token.maskedHash, FNV_PRIME)
    const chars = token.end - token.start
    this.length += chars
    this.nonSpace += chars
    this.letters += token.letters
    const values = this.unit.slotValues
    for (let i = 0; i < token.slots && this.slots + i < UNIT_TOKENS; i++) values[this.slots + i] = token.slotValues[i]
    this.slots += token.slots
    if (token.slots > 0) this.slottedTokens++
    if (this.tokenCount < UNIT_TOKENS) {
      this.unit.tokens[this.tokenCount] = token.maskedHash
      this.unit.tokenSlots[this.tokenCount] = token.slotHash
      this.unit.tokenPlain[this.tokenCount] = token.letters > 0 && token.letters >= chars - 1 ? 1 : 0
    }
    this.tokenCount++
    if (token.hasWordChar) this.hasWordChar = true
    this.lastCode = token.lastCode
    return token.endsSentence ? this.endUnit(token.end) : undefined
  }

  lineEnd(position: number): Finding | undefined {
    this.lineStart = true
    return this.endUnit(position + 1)
  }

  private endUnit(end: number): Finding | undefined {
    const length = this.length
    if (length === 0) return undefined
    const counted = length >= 2 && this.hasWordChar
    const dataLike = this.allData || this.inFence || this.lineOpensFence || this.lineIndented
      || this.slottedTokens >= 3 && this.slottedTokens * 4 >= this.tokenCount
      || this.nonSpace >= MIN_CHARS_FOR_LETTER_SHARE && this.letters * 2 < this.nonSpace || this.opensLikeLog || endsLikeCode(this.lastCode)
    const unit = this.unit
    unit.start = this.start
    unit.end = end
    unit.length = length
    unit.key = dataLike ? this.caseHash : this.hash
    unit.maskedKey = this.masked
    unit.tokenCount = this.tokenCount
    unit.slots = this.slots
    unit.counted = counted
    unit.dataLike = dataLike
    this.hash = FNV_OFFSET
    this.caseHash = FNV_OFFSET
    this.masked = FNV_OFFSET
    this.length = 0
    this.hasWordChar = false
    this.tokenCount = 0
    this.slots = 0
    this.slottedTokens = 0
    this.letters = 0
    this.nonSpace = 0
    return this.first.unit(unit) ?? this.second.unit(unit)
  }
}
