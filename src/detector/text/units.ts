// Units: the lines, and the sentences inside a line (ended by . ! ? before white space, or by 。！？),
// that the unit rules read (phrase-pool.ts compares them, novelty.ts judges its runs by them). Built
// from the tokenizer's tokens, a unit's text is normalised and travels as hashes, never kept. A line
// with no sentence end is cut every `MAX_UNIT_CHARS` chars. What a unit carries: docs/detector.md#units.

import { FNV_OFFSET, FNV_PRIME, isSentenceOpener, isTemplateBar, isUpperAscii, isWordChar } from './char-classes.ts'
import { MIN_TIGHT_SEPARATORS, continuesLikeVerse, endsLikeCode, isMarkupIn, opensLikeData } from './data-like.ts'
import type { RuleFinding } from '../finding.ts'
import type { Token, TokenReader } from './tokenizer.ts'

/**
 * A unit ends once this long (normalised chars) even without a sentence end or a line break, so text
 * that has neither (a chat template leaking turn after turn, compact JSON, a wall of words) is still
 * judged unit by unit; a sentence is shorter (a Chinese one too: every character is a token).
 */
const MAX_UNIT_CHARS = 320

/** One unit, as handed to the rules: the object is reused for the next unit, so a rule copies what it keeps. */
export interface Unit {
  /** Offset of its first character in the side's text. */
  start: number
  /** Offset just after the character that ended it (where a verdict on it is taken). */
  end: number
  /** Normalised length (chars, single spaces). */
  length: number
  /** Hash of its normalised text; case-sensitive for data, so rows of a test matrix that differ only in case differ. */
  key: number
  /** At least 2 chars and a letter or digit: syntax such as `}` or `|---|` is not a phrase. */
  counted: boolean
  /**
   * Data-like only because several of its tokens hold changing values (a retry line with its request
   * id, time and status): otherwise a prose line, opening with a word and ending like a sentence.
   */
  slottedProse: boolean
  /** Looks like data or quoted tool output by its own shape, on any side (docs/detector.md#confidence). */
  shapedLikeData: boolean
  /** Words alone: it opens with a letter or a quotation mark (`isSentenceOpener`), holds no number or id, no bracket, operator or markup, and is not data-like. */
  plainSentence: boolean
  /** It begins where a longer unit was cut (`MAX_UNIT_CHARS`), so its first grams are anchored where the cut fell. */
  openedAtCut: boolean
  /** It ends where a line too long for one unit was cut (`MAX_UNIT_CHARS`). */
  endsAtCut: boolean
  /** A whole line with no sentence end in it, a list item's number aside (`12. `): a title, a keyword, a list item's name. */
  nameLine: boolean
  /**
   * A line of prose around values that carry state (`Move disk 1 from B to A`, `A and B cross: 3
   * minutes`): the novelty rule judges it at its data level, as a row of the state a puzzle moves through.
   */
  stateRow: boolean
  /**
   * Holds a value that changes as a loop goes round (an index, a counter, an id or a time:
   * `Token.maskedSlots`): an item's key (`News 12: Sports`, the `12.` of `12. Sports`) or a loop's counter.
   */
  changingValue: boolean
  /** Follows a list item's number on its line (`Sports` in `12. Sports`): that number keys it. */
  numberedItem: boolean
}

export interface UnitRule {
  unit(unit: Unit): RuleFinding | undefined
}

const SPACE = 32
const CAPITAL_I = 73
/** Longer than any word (URLs in prose stay under it). */
const LONGEST_WORD = 100
/**
 * One char in 20 of a line's words a bracket, an operator or a statement end: code or a type (prose
 * has a parenthesis now and then, under 3 %; a line of TypeScript types or CSS 6 % and more).
 */
const CODE_MARK_SHARE = 20
const LESS_THAN = 60
const SLASH = 47
const STAR = 42
const BACKSLASH = 92
const LEFT_BRACKET = 91
const RIGHT_BRACKET = 93
const GREATER_THAN = 62

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
  private length = 0
  private hasWordChar = false
  private start = 0
  private tokenCount = 0
  private readonly unit: Unit = {
    start: 0, end: 0, length: 0, key: 0, counted: false, slottedProse: false, shapedLikeData: false, plainSentence: false, openedAtCut: false, endsAtCut: false, nameLine: false, stateRow: false,
    changingValue: false, numberedItem: false,
  }
  /** Tokens holding a masked run (a timestamp is one token of three runs). */
  private slottedTokens = 0
  /** Tokens holding a value that changes as a loop goes round (an id, a time, a counter: `Token.maskedSlots`). */
  private changingTokens = 0
  /** Tokens that are one capital letter alone (`B`, `A,`): names of values in a puzzle's state. */
  private letterValues = 0
  private letters = 0
  /** Brackets, operators and statement ends in its words (tokenizer.ts `codeMarks`). */
  private codeMarks = 0
  /** Tokens of symbols alone (`|`, `=`, `=>`, `&&`): a line of them is code or a type, not a sentence. */
  private symbolTokens = 0
  /** Separators with no space after them (tokenizer.ts `tightSeparators`). */
  private tightSeparators = 0
  private nonSpace = 0
  private opensLikeLog = false
  private lastCode = 0
  /** The next token is the first of its line. */
  private lineStart = true
  /** Whether the current line opened a fence or a line of a fenced block. */
  private lineOpensFence = false
  private inFence = false
  /** Inside a block comment, and whether the current line began inside one. */
  private inComment = false
  private lineInComment = false
  /** The unit holds a backslash escape. */
  private escaped = false
  /** The current line opens with white space (code, nested data). */
  private lineIndented = false
  /** The unit being read began where a long one was cut (`MAX_UNIT_CHARS`), not at a line or sentence start. */
  private afterCut = false
  /** The unit being read began at a cut. */
  private cutPiece = false
  /** The unit holds something other than words: a number or id, a bracket or operator, markup. */
  private marked = false
  /** Whether the current line's first unit opened like data. */
  private lineOpensLikeData = false
  /** Whether the unit being read opened its line, or follows only a list item's number (`12.`) on it. */
  private unitOpensLine = false
  /** The unit just ended was a list item's number opening its line: the next one opens the item. */
  private afterListNumber = false
  /** The unit being read follows a list item's number on its line (`12. Sports`): the number keys it. */
  private numberedItem = false

  /** `allData`: every unit is keyed as data, case-sensitive (the tool side, whose text is files). */
  constructor(private first: UnitRule, private second: UnitRule, private allData: boolean) {}

  token(token: Token): RuleFinding | undefined {
    const opensLine = this.lineStart
    if (this.lineStart) {
      this.lineStart = false
      const code = token.firstCode
      // ``` opens or closes a fenced block; the fence line itself is syntax.
      this.lineOpensFence = (code === BACKTICK || code === TILDE) && token.leadingRepeats >= 3
      if (this.lineOpensFence) this.inFence = !this.inFence
      this.lineIndented = token.spaced
      // A block comment (`/*`, `/**`) is code, its lines too (a JSDoc line opens with "*", as a list item does).
      if (code === SLASH && token.secondCode === STAR) this.inComment = true
      this.lineInComment = this.inComment
    }
    if (this.inComment && token.lastCode === SLASH && token.beforeLastCode === STAR) this.inComment = false
    // A backslash escape in a token (`\n`, `\"`, `\u00e9`) is a string literal's or a path's: code or data.
    if (token.firstCode === BACKSLASH || token.beforeLastCode === BACKSLASH) this.escaped = true
    if (!this.marked && (token.slots > 0 || token.codeMarks > 0 || isMarkupIn(token.firstCode, token.letters) || isMarkupIn(token.lastCode, token.letters)
      || isMarkupIn(token.secondCode, token.letters) || isMarkupIn(token.beforeLastCode, token.letters))) this.marked = true
    if (this.length === 0) {
      if (!isWordChar(token.firstCode) && !isSentenceOpener(token.firstCode)) this.marked = true
      this.start = token.start
      const code = token.firstCode
      const template = code === LESS_THAN && isTemplateBar(token.secondCode)
      // "[12] Still waiting..." numbers a sentence as a list marker does; "[INFO]" or "[2024-05-01" opens a log line.
      const numbered = code === LEFT_BRACKET && token.letters === 0 && token.slots > 0 && token.lastCode === RIGHT_BRACKET
      // A first token of two numbers or more is a timestamp, a file:line:col locator, a version or an
      // address: a log line, a compiler message, a stack frame.
      const locator = token.slots >= 2
      // A piece cut from a long line (`MAX_UNIT_CHARS`) opens as the line did: compact JSON, a path's data.
      this.opensLikeLog = this.afterCut ? this.lineOpensLikeData
        : !template && !numbered && opensLikeData(code) || locator || LOG_OPENERS.has(token.caseHash)
      if (opensLine) this.lineOpensLikeData = this.opensLikeLog
      this.cutPiece = this.afterCut
      this.afterCut = false
      this.unitOpensLine = opensLine || this.afterListNumber
      this.numberedItem = this.afterListNumber
      this.afterListNumber = false
    } else if (token.spaced) {
      this.hash = Math.imul(this.hash ^ SPACE, FNV_PRIME)
      this.caseHash = Math.imul(this.caseHash ^ SPACE, FNV_PRIME)
      this.length++
    }
    this.hash = Math.imul(this.hash ^ token.hash, FNV_PRIME)
    this.caseHash = Math.imul(this.caseHash ^ token.caseHash, FNV_PRIME)
    const chars = token.end - token.start
    this.length += chars
    // The letter share is read on the words: a token holding a number or an id (hex, a uuid, a
    // timestamp) says how many values the line has, which `slottedTokens` counts, not what it is.
    if (token.slots === 0) {
      this.nonSpace += chars
      this.letters += token.letters
      this.codeMarks += token.codeMarks
      // The angle brackets of a chat-template token are no code: `<|im_end|>`, `<｜User｜>`.
      if (token.firstCode === GREATER_THAN && isTemplateBar(token.previousCode)) this.codeMarks--
      if (token.lastCode === LESS_THAN && isTemplateBar(token.nextCode)) this.codeMarks--
      if (token.firstCode === LESS_THAN && isTemplateBar(token.secondCode)) this.codeMarks--
      if (token.lastCode === GREATER_THAN && isTemplateBar(token.beforeLastCode)) this.codeMarks--
    }
    // No word is this long: a regex, a blob, minified code.
    if (chars > LONGEST_WORD) this.escaped = true
    this.tightSeparators += token.tightSeparators
    if (token.slots > 0) this.slottedTokens++
    // A letter standing alone is a value too (a peg, a cell, a person in a puzzle: `from B to A`), but
    // not the words `a` and `I`.
    else if (token.letters === 1 && token.end - token.start <= 2 && isUpperAscii(token.firstCode) && token.firstCode !== CAPITAL_I) this.letterValues++
    if (token.maskedSlots > 0) this.changingTokens++
    else if (token.letters === 0 && token.firstCode < 128) this.symbolTokens++
    this.tokenCount++
    if (token.hasWordChar) this.hasWordChar = true
    this.lastCode = token.lastCode === GREATER_THAN && isTemplateBar(token.beforeLastCode) ? 0 : token.lastCode
    if (token.endsSentence) return this.endUnit(token.end)
    if (this.length < MAX_UNIT_CHARS) return undefined
    // Cut where no sentence ends: neither edge of the piece says what the text is like.
    const finding = this.endUnit(token.end, true)
    this.afterCut = true
    return finding
  }

  lineEnd(position: number): RuleFinding | undefined {
    this.lineStart = true
    const finding = this.endUnit(position + 1, false, true)
    this.afterListNumber = false
    return finding
  }

  /** `cut`: a line too long for one unit is cut here; `lineEnds`: a line break ends it. */
  private endUnit(end: number, cut = false, lineEnds = false): RuleFinding | undefined {
    const length = this.length
    if (length === 0) return undefined
    // A piece of a cut line is no phrase: a run of laughter cut every 320 chars gives identical pieces.
    const counted = length >= 2 && this.hasWordChar && !cut && !this.cutPiece
    const shaped = this.inFence || this.lineOpensFence || this.lineIndented || this.lineInComment || this.escaped
      || this.nonSpace >= MIN_CHARS_FOR_LETTER_SHARE && this.letters * 2 < this.nonSpace || this.opensLikeLog || !cut && (endsLikeCode(this.lastCode) || continuesLikeVerse(this.lastCode))
      || this.symbolTokens >= 3 && this.symbolTokens * 4 >= this.tokenCount
      || this.codeMarks >= 4 && this.codeMarks * CODE_MARK_SHARE >= this.nonSpace
      || this.tightSeparators >= MIN_TIGHT_SEPARATORS
    const slotted = this.slottedTokens >= 3 && this.slottedTokens * 4 >= this.tokenCount
    const unit = this.unit
    unit.start = this.start
    unit.end = end
    unit.length = length
    unit.key = this.allData || shaped || slotted ? this.caseHash : this.hash
    unit.counted = counted
    // Slotted prose is a line whose values change from round to round (a retry line's id and time); a
    // line whose values are state (a move list's positions, a table of cases) is a row of data.
    unit.slottedProse = slotted && !shaped && this.changingTokens * 2 >= this.slottedTokens
    const values = this.slottedTokens + this.letterValues
    unit.stateRow = !unit.slottedProse && values >= 3 && values * 4 >= this.tokenCount && this.changingTokens < values
    unit.changingValue = this.changingTokens > 0
    unit.numberedItem = this.numberedItem
    unit.shapedLikeData = shaped || slotted
    // A slotted unit is marked already (its tokens hold numbers).
    unit.plainSentence = !shaped && !this.marked
    unit.openedAtCut = this.cutPiece
    unit.endsAtCut = cut
    unit.nameLine = lineEnds && this.unitOpensLine && !this.cutPiece
    this.afterListNumber = !lineEnds && !cut && this.unitOpensLine && this.tokenCount === 1 && this.slottedTokens === 1
    this.hash = FNV_OFFSET
    this.caseHash = FNV_OFFSET
    this.length = 0
    this.hasWordChar = false
    this.tokenCount = 0
    this.slottedTokens = 0
    this.changingTokens = 0
    this.letterValues = 0
    this.letters = 0
    this.symbolTokens = 0
    this.codeMarks = 0
    this.tightSeparators = 0
    this.escaped = false
    this.marked = false
    this.nonSpace = 0
    return this.first.unit(unit) ?? this.second.unit(unit)
  }
}
