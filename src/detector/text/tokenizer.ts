// Splits one side's text into normalised tokens for the token-period rule and the unit rules (units.ts):
// ASCII case folded, white space collapsed, every CJK character a token (as in dsh-loop-guard's
// tokenizer), tool arguments read through the JSON-string decoder. A token travels as 32-bit FNV hashes
// with its offsets, so no text is kept; its masked hash stands what changes as a loop goes round (a run
// holding a digit, an id's hex group) as one placeholder, for the novelty rule (docs/detector.md#units).

import { FNV_OFFSET, FNV_PRIME, isAsciiLetter, isBracket, isCjk, isDigit, isUpperAscii, isWhitespace, isWordChar, lowerAscii } from './char-classes.ts'
import { isClosingQuote, isTightSeparator } from './data-like.ts'
import type { RuleFinding } from '../finding.ts'
import type { JsonUnescaper } from './json-unescape.ts'
import { listNumberEnd } from './list-number.ts'

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
  /**
   * The hash with every letter-and-digit run that holds a digit replaced by one placeholder, but short
   * numbers and board coordinates (`stateDigitsFrom`: positions, totals, case values), which stay as written.
   */
  maskedHash: number
  /** How many value runs (numbers, ids, hex groups) it holds, masked or not. */
  slots: number
  /** How many of them were masked: ids, times, long numbers, counters (what changes as a loop goes round). */
  maskedSlots: number
  /** Brackets, operators and statement ends in it: ( ) [ ] { } < > = ; & (not | : chat templates, tables) */
  codeMarks: number
  /**
   * Data separators in it with no space after them (data-like.ts `isTightSeparator`): a CSV row or a
   * line of compact JSON has no other mark of data (no space, no sentence end, word or CJK values), so
   * nothing else tells a piece of one (units.ts `MAX_UNIT_CHARS`) from prose.
   */
  tightSeparators: number
  /** Letters (not digits) in it, any script. */
  letters: number
  /** Those of its letters inside its value runs (an id's hex letters, a coordinate's column): the rest are its words'. */
  valueLetters: number
  firstCode: number
  /** The character after its first one and the one before its last, read from the text even across token edges. */
  secondCode: number
  beforeLastCode: number
  /** The characters just before and just after it (white space, a CJK character, or what ended it). */
  previousCode: number
  nextCode: number
  lastCode: number
  /** How many times its first character opens it in a row, counted up to 3 ("```ts": 3). */
  leadingRepeats: number
  /**
   * A quoted string of a few capital letters (`"CDEA":`, `'BCDE'`): the string an enumeration of
   * substrings or words moves through, a state value as a short number is (`quotedCapitals`).
   */
  quotedCapitals: boolean
}

export interface TokenReader {
  token(token: Token): RuleFinding | undefined
  /** A line break at `position`. */
  lineEnd(position: number): RuleFinding | undefined
}

const SLOT_PLACEHOLDER = 35 // '#'
const COLON = 58
const LINE_FEED = 10
const FULL_STOP = 46
const COMMA = 44
const RIGHT_BRACE = 125
const RIGHT_BRACKET = 93
/** A token this long that holds a closed record and a comma is minified data: it ends there. */
const LONG_TOKEN_CHARS = 64
const EQUALS = 61
const BACKSLASH = 92
/** A uuid's shortest group. */
const MIN_HEX_GROUP = 4
/** Numbers this short are state (positions, totals, case values), not ids: see `isStateNumber`. */
const STATE_NUMBER_DIGITS = 3
/**
 * A board or grid coordinate is a column of at most two letters and a row of at most two digits
 * (`D6`, `e4`, `AB12`): a position, which an enumeration of candidates moves through (a Go board's
 * points checked one by one, real-output corpus); an id or a hash is longer or mixes its letters in.
 */
const COORDINATE_LETTERS = 2
const COORDINATE_DIGITS = 2
const COUNTER_MASK = 255
const DOUBLE_QUOTE = 34
const SINGLE_QUOTE = 39
/** A quoted substring or word an enumeration checks: longer is a name or a constant, shorter a letter. */
const MIN_QUOTED_CAPITALS = 2
const MAX_QUOTED_CAPITALS = 8

/** Joins the groups of an id or a name (`5ddf-ab12`, `req_ab12`, `v1.ab12`, `/ab12/`, `sha=ab12`): a coordinate stands alone (a sentence may end after it). */
function isIdJoiner(code: number): boolean {
  return code === 45 || code === 95 || code === 46 || code === 47 || code === 61 || code === COLON
}

function isCodeMark(code: number): boolean {
  return isBracket(code) || code === 61 || code === 59 || code === 38
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
  /** The char before the last comma or colon read (`tightSeparators`). */
  private beforeSeparator = 0
  private spaced = false
  // The masked form of the token being read: its hash so far, the letter-and-digit run in progress.
  private masked = FNV_OFFSET
  private runHash = FNV_OFFSET
  private runLength = 0
  private runHasDigit = false
  private slots = 0
  private maskedSlots = 0
  /**
   * A run of hex letters alone ended before any masked run of the token ("aafcddcf" of
   * "aafcddcf-ea10-4d32-..."): the next run decides whether it was an id's group. Until then the
   * masked hash is also kept as it would be with that run masked (`maskedIfGroup`).
   */
  private pendingGroup = false
  private maskedIfGroup = 0
  private codeMarks = 0
  private tightSeparators = 0
  /** The token's last chars are a comma and a quote: a separator if the token goes on (`tightSeparators`). */
  private quoteAfterComma = false
  private letters = 0
  /** The last token ended at a record's comma, and no white space has come since (`LONG_TOKEN_CHARS`). */
  private inRecords = false
  private valueLetters = 0
  /** Letters of the hex run waiting in `pendingGroup`, value letters if it proves an id's group. */
  private pendingGroupLetters = 0
  private ring: Uint16Array = new Uint16Array(1)
  private mask = 0
  private caseHash = FNV_OFFSET
  /** The masked hash of the token read before the current one (a counter's place, `isCounter`). */
  private previousMasked = 0
  private readonly counterPlaces = new Int32Array(COUNTER_MASK + 1)
  private readonly counterValues = new Int32Array(COUNTER_MASK + 1)
  private readonly current: Token = {
    hash: 0, caseHash: 0, start: 0, end: 0, hasWordChar: false, endsSentence: false, spaced: false,
    maskedHash: 0, slots: 0, maskedSlots: 0, codeMarks: 0, tightSeparators: 0, letters: 0, valueLetters: 0, firstCode: 0, secondCode: 0, beforeLastCode: 0, previousCode: 0, nextCode: 0, lastCode: 0, leadingRepeats: 0, quotedCapitals: false,
  }

  /**
   * The readers get each token in this order (a reader that ends a unit on a token comes after one
   * that only accumulates it); `unescaper` is given on the tool side, whose text is JSON.
   */
  constructor(private readonly first: TokenReader, private readonly second: TokenReader, private readonly third: TokenReader,
    private readonly unescaper?: JsonUnescaper) {}

  /**
   * Where the last `scan` read a line break (a decoded `\n` on the tool side), `lineBreakCount` of them:
   * the growing-line rule reads those lines after the scan, from the ring, so no line's text is kept.
   */
  lineBreaks = new Int32Array(64)
  lineBreakCount = 0

  /** Reads the characters at offsets [from, to) from `ring` (offset i at `i & mask`); returns the first finding. */
  scan(ring: Uint16Array, mask: number, from: number, to: number): RuleFinding | undefined {
    const unescaper = this.unescaper
    this.ring = ring
    this.mask = mask
    this.lineBreakCount = 0
    let { hash, inToken, start, hasWordChar, lastCode, spaced, beforeSeparator, quoteAfterComma } = this
    // The masked form in locals (the hot path); written back before a token is emitted.
    let { caseHash, masked, runHash, runLength, runHasDigit, letters } = this
    for (let position = from; position < to; position++) {
      let code = ring[position & mask]
      if (unescaper !== undefined && (code = unescaper.next(code)) < 0) continue
      if (isWhitespace(code)) {
        this.inRecords = false
        if (inToken) {
          inToken = false
          this.keepMasked(caseHash, masked, runHash, runLength, runHasDigit, letters)
          runHash = FNV_OFFSET
          runLength = 0
          runHasDigit = false
          const finding = this.emit(hash, start, position, hasWordChar, lastCode, spaced)
          spaced = false
          if (finding) return finding
        }
        if (code === 10 || code === 13) {
          spaced = false
          if (this.lineBreakCount === this.lineBreaks.length) this.growLineBreaks()
          this.lineBreaks[this.lineBreakCount++] = position
          const finding = this.first.lineEnd(position) ?? this.second.lineEnd(position) ?? this.third.lineEnd(position)
          if (finding) return finding
          continue
        }
        spaced = true
        continue
      }
      if (code >= 0x3000 && isCjk(code)) {
        if (inToken) {
          inToken = false
          this.keepMasked(caseHash, masked, runHash, runLength, runHasDigit, letters)
          runHash = FNV_OFFSET
          runLength = 0
          runHasDigit = false
          const finding = this.emit(hash, start, position, hasWordChar, lastCode, spaced)
          spaced = false
          if (finding) return finding
        }
        const cjkHash = Math.imul(FNV_OFFSET ^ code, FNV_PRIME)
        const word = isWordChar(code)
        this.masked = cjkHash
        this.caseHash = cjkHash
        this.slots = 0
        this.maskedSlots = 0
        this.codeMarks = 0
        this.tightSeparators = 0
        this.letters = word ? 1 : 0
        this.valueLetters = 0
        const finding = this.emit(cjkHash, position, position + 1, word, code, spaced)
        spaced = false
        if (finding) return finding
        continue
      }
      // Minified JSON has no space: past LONG_TOKEN_CHARS a comma after a closed record (`},`, `],`) ends
      // the token there and opens the next, and so does each such comma after it until white space, so
      // an array written on one line is read record by record. Read as one token that never ended, such
      // an array restating one record under a new id went uncut.
      if (inToken && code === COMMA && (lastCode === RIGHT_BRACE || lastCode === RIGHT_BRACKET) && (this.inRecords || position - start >= LONG_TOKEN_CHARS)) {
        this.inRecords = true
        inToken = false
        this.keepMasked(caseHash, masked, runHash, runLength, runHasDigit, letters)
        const finding = this.emit(hash, start, position, hasWordChar, lastCode, spaced)
        spaced = false
        if (finding) return finding
      }
      if (inToken) {
        // A quote after a comma separates values only if the token goes on (`"a","b"`); a quote that
        // ends the token closes a quotation (`"Dexter," "Lost"`).
        if (quoteAfterComma) {
          quoteAfterComma = false
          this.tightSeparators++
        }
        if ((lastCode === COMMA || lastCode === COLON) && isTightSeparator(beforeSeparator, lastCode, code, 0)) {
          if (lastCode === COMMA && isClosingQuote(code)) quoteAfterComma = true
          else this.tightSeparators++
        }
      } else {
        inToken = true
        start = position
        hash = FNV_OFFSET
        hasWordChar = false
        masked = FNV_OFFSET
        caseHash = FNV_OFFSET
        letters = 0
        this.slots = 0
        this.maskedSlots = 0
        this.valueLetters = 0
        this.pendingGroup = false
        this.codeMarks = 0
        this.tightSeparators = 0
        quoteAfterComma = false
      }
      const lower = lowerAscii(code)
      hash = Math.imul(hash ^ lower, FNV_PRIME)
      caseHash = Math.imul(caseHash ^ code, FNV_PRIME)
      if (isWordChar(code)) {
        hasWordChar = true
        runHash = Math.imul(runHash ^ lower, FNV_PRIME)
        runLength++
        if (code >= 48 && code <= 57) runHasDigit = true
        else letters++
      } else {
        if (runLength > 0) {
          masked = this.endRun(masked, runHash, runHasDigit, position, runLength)
          runHash = FNV_OFFSET
          runLength = 0
          runHasDigit = false
        }
        masked = Math.imul(masked ^ code, FNV_PRIME)
        if (this.pendingGroup) this.maskedIfGroup = Math.imul(this.maskedIfGroup ^ code, FNV_PRIME)
        if (isCodeMark(code)) this.codeMarks++
        if (code === COMMA || code === COLON) beforeSeparator = lastCode
      }
      lastCode = code
    }
    this.hash = hash
    this.inToken = inToken
    this.start = start
    this.hasWordChar = hasWordChar
    this.lastCode = lastCode
    this.spaced = spaced
    this.beforeSeparator = beforeSeparator
    this.quoteAfterComma = quoteAfterComma
    this.keepMasked(caseHash, masked, runHash, runLength, runHasDigit, letters)
    return undefined
  }

  private growLineBreaks(): void {
    const grown = new Int32Array(2 * this.lineBreaks.length)
    grown.set(this.lineBreaks)
    this.lineBreaks = grown
  }

  /** Writes the masked form held in `scan`'s locals back to the fields (`emit` and the next scan read them). */
  private keepMasked(caseHash: number, masked: number, runHash: number, runLength: number, runHasDigit: boolean, letters: number): void {
    this.caseHash = caseHash
    this.masked = masked
    this.runHash = runHash
    this.runLength = runLength
    this.runHasDigit = runHasDigit
    this.letters = letters
  }

  /**
   * Closes the letter-and-digit run ending at `runEnd` and returns the masked hash: the run is masked when
   * it holds a digit, or is hex letters next to a masked run of the token (an id's group with no digit).
   */
  private endRun(masked: number, runHash: number, runHasDigit: boolean, runEnd: number, runLength: number): number {
    // In tool arguments a run may end at an escape (`\"`, `\n`): its backslash stands between the run
    // and `runEnd` in the ring, and read as the run's last char it kept an id's group from being masked
    // (`\"id\":\"b071c772-4831-b7ce\"` in a file written as JSON never read the same twice).
    if (this.unescaper !== undefined && this.ring[(runEnd - 1) & this.mask] === BACKSLASH) runEnd--
    if (this.pendingGroup) {
      this.pendingGroup = false
      if (runHasDigit) {
        masked = this.maskedIfGroup
        this.slots++
        this.maskedSlots++
        this.valueLetters += this.pendingGroupLetters
      }
    }
    if (!runHasDigit) {
      const hexGroup = runLength >= MIN_HEX_GROUP && this.isHex(runEnd - runLength, runEnd)
      if (!hexGroup || this.slots === 0) {
        if (hexGroup) {
          this.pendingGroup = true
          this.pendingGroupLetters = runLength
          this.maskedIfGroup = Math.imul(masked ^ SLOT_PLACEHOLDER, FNV_PRIME)
        }
        return Math.imul(masked ^ runHash, FNV_PRIME)
      }
    }
    this.slots++
    this.valueLetters += this.lettersIn(runEnd - runLength, runEnd)
    // A value still, but one that carries state: it stays as written in the masked form.
    const digitsFrom = runHasDigit ? this.stateDigitsFrom(runEnd - runLength, runEnd) : -1
    if (digitsFrom >= 0 && !this.isCounter(masked, digitsFrom, runEnd)) {
      return Math.imul(masked ^ runHash, FNV_PRIME)
    }
    this.maskedSlots++
    return Math.imul(masked ^ SLOT_PLACEHOLDER, FNV_PRIME)
  }

  /**
   * Where the digits of a value that carries state begin in the run [from, to): a short number
   * (`isStateNumber`) or a coordinate (a column's letters, then a row's digits); -1 when the run is an
   * id, a hash, a time or an index.
   */
  private stateDigitsFrom(from: number, to: number): number {
    const { ring, mask } = this
    let digits = from
    while (digits < to && digits - from < COORDINATE_LETTERS && isAsciiLetter(ring[digits & mask])) digits++
    if (digits > from && (to - digits > COORDINATE_DIGITS || isAsciiLetter(ring[digits & mask]) || isIdJoiner(ring[(from - 1) & mask])
      || isIdJoiner(ring[to & mask]) && (ring[to & mask] !== FULL_STOP || isWordChar(ring[(to + 1) & mask])))) return -1
    return this.isStateNumber(digits, to) ? digits : -1
  }

  /**
   * Whether the short number at [from, to) counts: it is one more than the number last read in the
   * same place (after the same previous token, behind the same start of its token; a key's value behind
   * its key alone): "Step 12" after "Step 11", "#8" after "#7", a list's index after the same line ending,
   * `"attempt":12` after `"attempt":11`. Each place remembers its last number in a small
   * direct-mapped table; a collision only forgets a count.
   */
  private isCounter(maskedPrefix: number, from: number, to: number): boolean {
    let value = 0
    for (let i = from; i < to; i++) value = value * 10 + this.ring[i & this.mask] - 48
    // A key's value (`"id":12`, `step=3`) is placed by its key alone: in minified JSON the token before
    // it is the line before, whose own number changed, so no place ever came round twice.
    const before = this.ring[(from - 1) & this.mask]
    const keyed = (before === COLON || before === EQUALS) && maskedPrefix !== FNV_OFFSET
    const place = Math.imul(keyed ? maskedPrefix : maskedPrefix ^ this.previousMasked, FNV_PRIME) | 1
    const slot = (place ^ (place >>> 16)) & COUNTER_MASK
    const counts = this.counterPlaces[slot] === place && value === this.counterValues[slot] + 1
    this.counterPlaces[slot] = place
    this.counterValues[slot] = value
    return counts
  }

  /**
   * A number of at most STATE_NUMBER_DIGITS digits that is neither part of a time (`12:34`) nor an index
   * (`Step 3:`, a line's list number `12.` or `3)`: list-number.ts): a position, a total, a case value,
   * the state an enumeration moves through, so it stays as written (docs/detector.md#units).
   */
  private isStateNumber(from: number, to: number): boolean {
    if (to - from > STATE_NUMBER_DIGITS) return false
    const { ring, mask } = this
    for (let i = from; i < to; i++) {
      const code = ring[i & mask]
      if (code < 48 || code > 57) return false
    }
    const before = ring[(from - 1) & mask]
    const after = ring[to & mask]
    if (after === COLON) return false
    if (before === COLON && isDigit(ring[(from - 2) & mask])) return false
    const opensLine = from === 0 || before === LINE_FEED
    return !(opensLine && listNumberEnd(ring, mask, from, to) === to)
  }

  /** Whether the token at [start, end) opens with `quote`, then 2 to 8 capital letters, then `quote` again. */
  private quotedCapitals(start: number, end: number, quote: number): boolean {
    const { ring, mask } = this
    let i = start + 1
    while (i < end && i - start <= MAX_QUOTED_CAPITALS && isUpperAscii(ring[i & mask])) i++
    return i - start - 1 >= MIN_QUOTED_CAPITALS && i < end && ring[i & mask] === quote
  }

  /** Letters (chars other than ASCII digits) in the letter-and-digit run [from, to). */
  private lettersIn(from: number, to: number): number {
    let letters = 0
    for (let i = from; i < to; i++) if (!isDigit(this.ring[i & this.mask])) letters++
    return letters
  }

  private isHex(from: number, to: number): boolean {
    for (let i = from; i < to; i++) {
      const code = this.ring[i & this.mask] | 32
      if (!(code >= 97 && code <= 102)) return false
    }
    return true
  }

  private emit(hash: number, start: number, end: number, hasWordChar: boolean, lastCode: number, spaced: boolean): RuleFinding | undefined {
    const token = this.current
    if (this.runLength > 0) {
      this.masked = this.endRun(this.masked, this.runHash, this.runHasDigit, end, this.runLength)
      this.runLength = 0
    }
    // A fence ("```ts") is told by its first chars, read back from the ring (a token longer than the
    // ring is no fence).
    const ring = this.ring
    const first = ring[start & this.mask]
    let leadingRepeats = 1
    while (leadingRepeats < 3 && start + leadingRepeats < end && end - start <= this.mask && ring[(start + leadingRepeats) & this.mask] === first) leadingRepeats++
    token.maskedHash = this.masked
    token.caseHash = this.caseHash
    token.slots = this.slots
    token.maskedSlots = this.maskedSlots
    token.codeMarks = this.codeMarks
    token.tightSeparators = this.tightSeparators
    token.letters = this.letters
    token.valueLetters = this.valueLetters
    token.firstCode = first
    token.secondCode = ring[(start + 1) & this.mask]
    token.beforeLastCode = ring[(end - 2) & this.mask]
    token.previousCode = ring[(start - 1) & this.mask]
    token.nextCode = ring[end & this.mask]
    token.leadingRepeats = leadingRepeats
    token.quotedCapitals = (first === DOUBLE_QUOTE || first === SINGLE_QUOTE) && this.quotedCapitals(start, end, first)
    token.hash = hash
    token.start = start
    token.end = end
    token.hasWordChar = hasWordChar
    // A sentence ends after a word ("done.", "2024.") or at a CJK full stop, not on a shell's `$?` or a lone "...".
    token.endsSentence = endsSentence(lastCode) && (hasWordChar || lastCode >= 0x3000)
    token.lastCode = lastCode
    token.spaced = spaced
    this.previousMasked = this.masked
    return this.first.token(token) ?? this.second.token(token) ?? this.third.token(token)
  }
}
