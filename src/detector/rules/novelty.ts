// novelty: the text stops saying anything new. Every token ends a gram of the last three tokens
// (three words are specific enough that normal prose rarely repeats one three times nearby),
// compared with what changes masked (a token holding a digit, a number, counter, id, hash or
// timestamp, compares by its masked form; any other token verbatim, case included); a gram is
// familiar once it was already seen twice within the recent history (`historyTokens`). Looping text
// is made of familiar grams whatever the loop's shape: the same sentence with a counter or a changing
// id, a frame whose one word cycles through a few synonyms, a paraphrase pool whose openers and
// wordings recur, a decision circled with the same stems and tails, a pool of many long sentences, a
// paragraph restated verbatim with a period of several thousand chars, A-B-A-B of long paragraphs,
// the same function emitted again with a new name or number, data rows with an incrementing index.
// Normal writing keeps bringing grams it has not used twice. Grams stay inside a unit (a line or a
// sentence, units.ts): a pool reshuffles its sentences, so a gram across two of them would be new at
// every new order. A gram of values alone (a table of numbers, code points, hashes) is no evidence.
//
// Seen twice, not once: a block quoted a second time (before/after, a recap) is made of grams seen
// once; only a third sighting is evidence, and a gram seen once counts half. A familiar run is a
// stretch whose every recent window (`windowChars`) keeps a share of familiar grams; the stronger the
// share, the shorter the run that trips (levels of evidence): `minCoverage` over `minSpan` (a counter,
// a template token, a changing id: nearly every gram familiar), `middleMinCoverage` over
// `middleMinSpan` (a frame whose one word changes), `weakMinCoverage` over `weakMinSpan` (paraphrase,
// a decision circled). The echo level reads plain sentences alone (units.ts: words, no number, markup
// or syntax), where a gram seen once is evidence when it came back from near: `echoMinShare` of the
// window seen before, from within `echoMaxPeriod` chars, over `echoMinSpan` and `echoMinPeriods`
// periods. A paraphrase pool or a decision circled re-says its few ideas in sentences within a few
// hundred chars, from its second round on; productive reasoning re-uses names and phrases but keeps
// most of its grams new, and documentation that repeats itself (an API reference, a changelog)
// carries markup. It cuts those pools ~1,000 chars after onset instead of the weak level's ~2,200.
// Confidence (docs/detector.md#confidence): a run is judged as what most of its
// units are. Prose takes the levels above; prose lines holding several changing values (a retry line
// with its request id, time and status) take `slottedMinSpan` at the strongest level; text that looks
// like data or quoted tool output (log lines, stack frames, table rows, code, a list of one repeated
// item) only the data level, `dataMinCoverage` over `dataMinSpan`: quoted logs, identical data rows,
// generated declarations and configuration files are made of familiar grams too, and only their
// length tells them from a loop, and their order: a loop writes its rows in the order of its last
// round (each unit follows its two predecessors as it did last time, `dataMinOrder`), data may draw
// the same few rows in any order (a parser's stress sample of two rows). On the tool side every span
// is the tool side's (files repeat legitimately), the units judged by their own shape, so prose
// written into a file loops as prose.
// A run must also last `minPeriods` times the distance back to where its material was seen (the
// geometric mean of its grams' recurrence distances): a long passage quoted a few times over, each copy
// under its own header, is not a loop. New material (a unit of at least `MIN_NEW_MATERIAL_CHARS` word
// chars, `newMaterialShare` of them in grams never seen) ends every run whose material comes back from
// `newMaterialMinPeriod` chars or more: a document of sections copied under headers of their own (a
// licence bundle, a changelog repeating its backported entries, a file of message templates) says
// something new at every copy, a loop does not, and the new wordings of a paraphrase pool or a decision
// circled come back within a few hundred chars. A new state ends every run as well: a line holding a
// state value (tokenizer.ts `stateDigitsFrom`: a short number, a board coordinate) never written
// before, or rows of values alone whose combination so far was never written.
// Deliberately let through: text that keeps adding new grams (a list whose items each say something
// new, a numbered procedure, reasoning that revisits a plan and moves on), a passage quoted twice or a
// few times, a document of long sections each under a new header however many, tables of numbers
// alone, and data or quoted output shorter than the data span.
//
// Cost: per token one hash and one probe of a direct-mapped table of grams (a later gram overwrites
// an earlier one in its slot: the count restarts, which can only delay a verdict); per unit O(1)
// (running sums over a ring of recent units, one familiar run per level). Memory is fixed: the table
// (32 K slots of a key and a last sighting with its count: 256 KB), the table of which unit followed
// which two (4 K slots: 32 KB) and the ring (2,048 units of 11 sums: 176 KB) per side, whatever the
// stream's length. A slot's fields sit side by side, so a probe reads one cache line: inside the agent
// loop, whose own work between two deltas evicts the detector's tables, three lines per token (key,
// sighting and count in tables of their own) were an eighth of the detector's cache misses.

import { FNV_OFFSET, FNV_PRIME, isCjk } from '../text/char-classes.ts'
import type { RuleFinding } from '../finding.ts'
import type { Token, TokenReader } from '../text/tokenizer.ts'
import { typedTables } from '../text/typed-tables.ts'
import type { Unit, UnitRule } from '../text/units.ts'

export interface NoveltyThresholds {
  /** Length (chars) of a mostly-prose familiar run that trips; 0 turns the rule off. */
  readonly minSpan: number
  /** Length of a run made mostly of prose lines holding several changing values. */
  readonly slottedMinSpan: number
  /** Length of a run that looks like data or quoted tool output. */
  readonly dataMinSpan: number
  /** The recent stretch (chars) whose familiar share says whether the text is familiar now. */
  readonly windowChars: number
  readonly minCoverage: number
  /** Lower shares of the window, and the longer mostly-prose runs that must hold them. */
  readonly middleMinCoverage: number
  readonly middleMinSpan: number
  readonly weakMinCoverage: number
  readonly weakMinSpan: number
  /** Familiar share of the window at the data level. */
  readonly dataMinCoverage: number
  /** How many tokens back a gram's sightings count. */
  readonly historyTokens: number
  /** A run must also last this many times the distance back to where its material was seen before. */
  readonly minPeriods: number
  /** Share of a unit's word chars in grams never seen that makes it new material; 0: never. */
  readonly newMaterialShare: number
  /** The period (chars) of the familiar material from which new material ends a familiar run. */
  readonly newMaterialMinPeriod: number
  /** Echo level: the length of a run of plain sentences made of grams seen before; 0 turns the level off. */
  readonly echoMinSpan: number
  /** Share of the window's word chars in grams seen before (once is enough). */
  readonly echoMinShare: number
  /** Only material that comes back from within this many chars counts. */
  readonly echoMaxPeriod: number
  /** An echo run must also last this many periods. */
  readonly echoMinPeriods: number
  /** Share of the window's chars in plain sentences (or units said again) for the middle, weak and echo levels. */
  readonly plainMinShare: number
  /**
   * Whether the middle and weak levels read only windows of plain sentences or of units said again word
   * for word (reasoning, text); on the tool side their spans are the data span already.
   */
  readonly weakLevelsReadWords: boolean
  /** Data level: share of the window's word chars, among units whose two predecessors were seen together before, that follow them as last time. */
  readonly dataMinOrder: number
}

/** log2 of a positive integer, within 0.09: its exponent and a linear mantissa (cheaper than Math.log2 per token). */
function log2(value: number): number {
  const exponent = 31 - Math.clz32(value)
  return exponent + value / (1 << exponent) - 1
}

const TABLE_BITS = 15
const TABLE_MASK = (1 << TABLE_BITS) - 1
/** Units kept for the window's running sums: a unit spans at least one char, so twice the window's largest setting. */
const RING_MASK = 2047
const GRAM_SEED = 0x6e6f7665
/** What a unit's first tokens are joined to in their grams. */
const UNIT_EDGE = 0x65646765

/**
 * Word chars of the shortest unit that can be new material: a header naming a package ("stack_trace
 * license:", 19); an interjection or a one-word heading says too little.
 */
const MIN_NEW_MATERIAL_CHARS = 16

/** The shortest line of values alone that counts as information in the window: `[0 0 0 1]`. */
const MIN_VALUE_ROW_CHARS = 8

/** The shortest period (tokens) of a repeating sentence: a shorter one is a list of one item. */
const MIN_PROSE_PERIOD_TOKENS = 4

const PROSE = 0
const SLOTTED = 1
const DATA = 2

/**
 * Slots of the table of units said (their text and their shape, two entries a unit): a pool of a few
 * dozen sentences must not evict itself (direct-mapped, so room well above what a loop's round holds).
 */
const SAID_MASK = 16383

/** Slots of the table of which unit followed which (direct-mapped: a later unit overwrites an earlier one in its slot). */
const SUCCESSOR_MASK = 4095

export class NoveltyRule implements TokenReader, UnitRule {
  /**
   * Per slot, two int32: the gram's key, then its latest sighting and count as `sighting << 2 | count`:
   * the sighting is the token number + 1 (0: empty slot), the count saturates at 2 (only "seen twice"
   * is read). 30 bits of token number: 2^30 tokens on one side of one call, thousands of times any
   * model's output cap.
   */
  private readonly grams = new Int32Array(2 * (TABLE_MASK + 1))
  private tokenCount = 0
  private previous = 0
  private beforePrevious = 0
  private previousWord = false
  private beforePreviousWord = false
  /** The unit being read: its tokens' chars and their credit (2 per char of a familiar gram, 1 seen once). */
  private unitChars = 0
  private unitCredit = 0
  private unitTokens = 0
  /**
   * Σ chars × log2(tokens back to the earlier sighting) over the unit's tokens seen before, and their
   * chars: a geometric mean, which neither the few grams a passage repeats inside itself (a licence's
   * "this list of conditions and the following disclaimer", twice in 40 tokens) nor the few seen long
   * ago pull far from the distance most of its grams came back from.
   */
  private unitLogDistance = 0
  private unitRecurring = 0
  /** Chars of the unit's grams never seen before. */
  private unitNew = 0
  /** Values in the unit that carry state (tokenizer.ts `stateDigitsFrom`: kept as written, not masked). */
  private unitStateValues = 0
  /** The rows of values alone read since the last worded unit, hashed together: one state, written row by row. */
  private stateRows = FNV_OFFSET
  /** The last unit of new material (see `unit`): a familiar run begins after it. */
  private newMaterialUnit = -1
  /** The unit being read, hashed as its grams are (what changes masked), and the two units before it. */
  private unitShape = FNV_OFFSET
  private previousShape = FNV_OFFSET
  private beforePreviousShape = FNV_OFFSET
  /** Per slot, two int32: a pair of unit shapes (the key), then the shape of the unit that followed them when last seen. */
  private readonly successors = new Int32Array(2 * (SUCCESSOR_MASK + 1))
  // Per unit, in a ring: where it ends, and running sums of token chars, credit and token chars per tier.
  readonly ends: Float64Array
  readonly charSums: Float64Array
  readonly creditSums: Float64Array
  readonly proseSums: Float64Array
  readonly slottedSums: Float64Array
  private readonly tokenSums: Float64Array
  private readonly logDistanceSums: Float64Array
  private readonly recurringSums: Float64Array
  private readonly plainSums: Float64Array
  /** Chars of units said before word for word, and of pieces of a line cut for length (units.ts `openedAtCut`, `endsAtCut`). */
  private readonly saidAgainSums: Float64Array
  /** Per slot, a unit's text key (units.ts `Unit.key`) or shape said (direct-mapped, its low bit set so that 0 is empty). */
  private readonly unitsSaid = new Int32Array(SAID_MASK + 1)
  /** Word chars of units that followed their two predecessors as last time (ordered) or not (disordered). */
  private readonly orderedSums: Float64Array
  private readonly disorderedSums: Float64Array
  private units = 0
  /** The unit after which the window begins. */
  private windowStart = 0
  /** The familiar runs in progress, one per level of evidence (the window's familiar share). */
  private readonly strong = new FamiliarRun()
  private readonly middle = new FamiliarRun()
  private readonly weak = new FamiliarRun()
  private readonly data = new FamiliarRun()
  private readonly echo = new FamiliarRun()
  private readonly spans: Float64Array
  private readonly middleSpans: Float64Array
  private readonly weakSpans: Float64Array
  private readonly dataSpans: Float64Array
  private readonly echoSpans: Float64Array

  constructor(readonly thresholds: NoveltyThresholds) {
    ;[this.ends, this.charSums, this.creditSums, this.proseSums, this.slottedSums, this.tokenSums, this.logDistanceSums,
      this.recurringSums, this.plainSums, this.saidAgainSums, this.orderedSums, this.disorderedSums] = typedTables(Float64Array, 12, RING_MASK + 1)
    // Per tier of the run (prose, slotted prose, data), the span each level of evidence needs: data
    // and quoted output are only judged at the data level, weaker evidence only in prose.
    this.spans = Float64Array.of(thresholds.minSpan, thresholds.slottedMinSpan, Infinity)
    this.middleSpans = Float64Array.of(thresholds.middleMinSpan, Infinity, Infinity)
    this.weakSpans = Float64Array.of(thresholds.weakMinSpan, Infinity, Infinity)
    this.dataSpans = Float64Array.of(Infinity, Infinity, thresholds.dataMinSpan)
    this.echoSpans = Float64Array.of(thresholds.echoMinSpan > 0 ? thresholds.echoMinSpan : Infinity, Infinity, Infinity)
  }

  token(token: Token): undefined {
    const value = token.slots > 0 ? token.maskedHash : token.caseHash
    const index = ++this.tokenCount
    const gram = Math.imul(Math.imul(Math.imul(FNV_OFFSET ^ GRAM_SEED, FNV_PRIME) ^ this.beforePrevious, FNV_PRIME) ^ this.previous, FNV_PRIME) ^ value
    this.beforePrevious = this.previous
    this.previous = value
    this.unitShape = Math.imul(this.unitShape ^ value, FNV_PRIME)
    // A gram of values alone (a table of numbers, code points, hashes, a board's single letters `X O O`,
    // a hand of cards `A, E, E`) is data whatever repeats in it: a word has two letters, or is CJK.
    const word = token.slots === 0 && (token.letters > 1 || (token.letters === 1 && isCjk(token.firstCode)))
    const worded = word || this.previousWord || this.beforePreviousWord
    this.beforePreviousWord = this.previousWord
    this.previousWord = word
    const grams = this.grams
    const entry = ((gram ^ (gram >>> 15)) & TABLE_MASK) << 1
    const sighting = grams[entry + 1]
    const last = sighting >>> 2
    let seen = 0
    if (last > 0 && grams[entry] === gram && index - last <= this.thresholds.historyTokens) seen = sighting & 3
    grams[entry] = gram
    grams[entry + 1] = (index << 2) | (seen < 2 ? seen + 1 : 2)
    this.unitTokens++
    this.unitStateValues += token.slots - token.maskedSlots
    if (!worded) return undefined
    const chars = token.end - token.start
    this.unitChars += chars
    this.unitCredit += seen >= 2 ? 2 * chars : seen * chars
    if (seen > 0) {
      this.unitLogDistance += chars * log2(index - last)
      this.unitRecurring += chars
    } else this.unitNew += chars
    return undefined
  }

  lineEnd(): undefined {
    return undefined
  }

  unit(unit: Unit): RuleFinding | undefined {
    const { thresholds } = this
    // A row of values alone (a grid, a matrix row: no worded gram) is new information, not familiar
    // prose: it counts in the window with no credit, so a familiar run cannot reach across a board
    // the model writes out (its span would count chars no gram measured).
    const valueRow = this.unitChars === 0
    const chars = valueRow ? (unit.length >= MIN_VALUE_ROW_CHARS ? unit.length : 0) : this.unitChars
    const credit = this.unitCredit
    const tokens = this.unitTokens
    const logDistance = this.unitLogDistance
    const recurring = this.unitRecurring
    const newChars = this.unitNew
    const stateValues = this.unitStateValues
    const shape = this.unitShape
    this.unitShape = FNV_OFFSET
    this.unitChars = 0
    this.unitCredit = 0
    this.unitTokens = 0
    this.unitLogDistance = 0
    this.unitRecurring = 0
    this.unitNew = 0
    this.unitStateValues = 0
    // Grams stay inside a unit: a pool reshuffles its sentences, so a gram across two of them is new
    // each time the order is; a unit's first grams are anchored to its start instead.
    this.previous = UNIT_EDGE
    this.beforePrevious = UNIT_EDGE
    this.previousWord = false
    this.beforePreviousWord = false
    if (thresholds.minSpan === 0) return undefined
    // Which unit followed this one's two predecessors last time: a loop writes its rows in the order it
    // wrote them before, a data file draws the same few rows in any order (a parser's stress sample).
    // Two, not one: a row that comes twice in a loop's round (A-B-B) is followed by each in turn.
    const context = Math.imul(this.beforePreviousShape, FNV_PRIME) ^ this.previousShape
    const successors = this.successors
    const successorEntry = ((context ^ (context >>> 12)) & SUCCESSOR_MASK) << 1
    const known = successors[successorEntry] === context && this.units > 1
    const ordered = known && successors[successorEntry + 1] === shape
    // Said again word for word: its own text (numbers included), or its shape (a counter masked).
    const restatedUnit = unit.counted && (this.saidBefore(unit.key) || this.saidBefore(shape))
    // A line that reaches a state never written before (a running total, a position, a shorter string
    // left to scan) is progress, however familiar its words: a simulation or an enumeration writes one
    // every round, a loop stops reaching new states after its first round.
    // A state written as rows of values alone (`- A: 4`, `- B: 0`, ...) is new when the rows so far
    // make a combination never written: each row alone comes back as the values revisit.
    this.stateRows = valueRow ? Math.imul(this.stateRows ^ unit.key, FNV_PRIME) : FNV_OFFSET
    const newState = unit.counted && stateValues > 0 && !(valueRow ? this.saidBefore(this.stateRows) : restatedUnit)
    successors[successorEntry] = context
    successors[successorEntry + 1] = shape
    this.beforePreviousShape = this.previousShape
    this.previousShape = shape
    // By the unit's own shape, on the tool side too: prose written into a file loops as prose does
    // (the tool side's spans are all long, files repeat legitimately).
    const tier = unit.shapedLikeData ? (unit.slottedProse ? SLOTTED : DATA) : unit.stateRow ? DATA : PROSE
    const index = this.units++
    const at = index & RING_MASK
    const before = (index - 1) & RING_MASK
    const first = index === 0
    const { ends, charSums, creditSums, proseSums, slottedSums, tokenSums, logDistanceSums, recurringSums, plainSums, saidAgainSums, orderedSums, disorderedSums } = this
    ends[at] = unit.end
    charSums[at] = (first ? 0 : charSums[before]) + chars
    creditSums[at] = (first ? 0 : creditSums[before]) + credit
    proseSums[at] = (first ? 0 : proseSums[before]) + (tier === PROSE ? chars : 0)
    slottedSums[at] = (first ? 0 : slottedSums[before]) + (tier === SLOTTED ? chars : 0)
    tokenSums[at] = (first ? 0 : tokenSums[before]) + tokens
    logDistanceSums[at] = (first ? 0 : logDistanceSums[before]) + logDistance
    recurringSums[at] = (first ? 0 : recurringSums[before]) + recurring
    plainSums[at] = (first ? 0 : plainSums[before]) + (unit.plainSentence ? chars : 0)
    saidAgainSums[at] = (first ? 0 : saidAgainSums[before]) + (restatedUnit || unit.openedAtCut || unit.endsAtCut ? chars : 0)
    orderedSums[at] = (first ? 0 : orderedSums[before]) + (ordered ? chars : 0)
    disorderedSums[at] = (first ? 0 : disorderedSums[before]) + (known && !ordered ? chars : 0)
    // The window: the shortest stretch of whole units ending here that spans `windowChars`.
    let start = Math.max(this.windowStart, index - RING_MASK)
    while (start + 1 < index && unit.end - ends[(start + 1) & RING_MASK] >= thresholds.windowChars) start++
    this.windowStart = start
    const from = start & RING_MASK
    const windowChars = charSums[at] - charSums[from]
    const full = index > start && unit.end - ends[from] >= thresholds.windowChars && windowChars > 0
    const windowCredit = full ? creditSums[at] - creditSums[from] : 0
    const windowTokens = tokenSums[at] - tokenSums[from]
    const recurringChars = recurringSums[at] - recurringSums[from]
    // The levels below the data level read a window of plain sentences (a frame whose one word changes,
    // paraphrase and a decision circled are said in words), or one said again: units said again word
    // for word (a counter's line, a pool of long sentences) and pieces of a line cut for length (their
    // edges move each round). Text holding numbers, marks or markup that is not said again (a state
    // tracked round by round, a move list, a table of cases, a list of generated sentences) re-uses its
    // frame legitimately and keeps its values as the new material.
    const plain = full && plainSums[at] - plainSums[from] >= thresholds.plainMinShare * windowChars
    const saidAgain = full && saidAgainSums[at] - saidAgainSums[from] >= thresholds.plainMinShare * windowChars
    const readable = !thresholds.weakLevelsReadWords || plain || saidAgain
    const strongFamiliar = full && readable && windowCredit >= 2 * thresholds.minCoverage * windowChars
    const middleFamiliar = full && readable && windowCredit >= 2 * thresholds.middleMinCoverage * windowChars
    const weakFamiliar = full && readable && windowCredit >= 2 * thresholds.weakMinCoverage * windowChars
    const dataFamiliar = full && windowCredit >= 2 * thresholds.dataMinCoverage * windowChars
      && orderedSums[at] - orderedSums[from] >= thresholds.dataMinOrder * (orderedSums[at] - orderedSums[from] + disorderedSums[at] - disorderedSums[from])
    const echoShare = plain && recurringChars >= thresholds.echoMinShare * windowChars
    const newMaterialCandidate = thresholds.newMaterialShare > 0 && !unit.openedAtCut && chars >= MIN_NEW_MATERIAL_CHARS
      && newChars >= thresholds.newMaterialShare * chars
    // How far back the window's material was last seen, in chars: the period of what repeats. A long
    // passage quoted a few times over is told from a loop by how many periods the run lasts. Only a
    // level whose window is familiar and the new-material check read it: most units of normal text
    // reach neither, and its power of two for every unit was 3 % of the detector's time.
    let periodTokens = 0
    let period = 0
    if (strongFamiliar || middleFamiliar || weakFamiliar || dataFamiliar || echoShare || newMaterialCandidate) {
      periodTokens = recurringChars > 0 ? 2 ** ((logDistanceSums[at] - logDistanceSums[from]) / recurringChars) : 0
      period = windowTokens > 0 ? periodTokens * ((unit.end - ends[from]) / windowTokens) : 0
    }
    const periodSpan = thresholds.minPeriods * period
    // A material that comes back every token or two is a list of the same item ("unknown, unknown",
    // "[] : [] : []", a table's filler): data, whatever its lines look like.
    const listLike = recurringChars > 0 && periodTokens < MIN_PROSE_PERIOD_TOKENS
    // New material between copies of a long passage (a header naming what the next copy is for, a
    // sentence of its own in each copy) makes a document of sections: a licence bundle, a changelog
    // that repeats its backported entries, a file of message templates. A loop says nothing new, and
    // the new wordings of a paraphrase pool come round within a short period. A piece that opens at a
    // cut is no evidence of it: its first grams are new because of where the cut fell (a pool whose
    // sentences end in " ." runs two of them into one unit, cut at 320 chars at a new place each round).
    if (newState || newMaterialCandidate && period >= thresholds.newMaterialMinPeriod) {
      this.strong.stop()
      this.middle.stop()
      this.weak.stop()
      this.data.stop()
      this.echo.stop()
      this.newMaterialUnit = index
      return undefined
    }
    const runFrom = this.newMaterialUnit > start ? this.newMaterialUnit & RING_MASK : from
    return this.strong.follow(strongFamiliar, this, runFrom, at, unit.end, this.spans, periodSpan, listLike)
      ?? this.middle.follow(middleFamiliar, this, runFrom, at, unit.end, this.middleSpans, periodSpan, listLike)
      ?? this.weak.follow(weakFamiliar, this, runFrom, at, unit.end, this.weakSpans, periodSpan, listLike)
      ?? this.data.follow(dataFamiliar, this, runFrom, at, unit.end, this.dataSpans, periodSpan, listLike)
      ?? this.followEcho(echoShare && period <= thresholds.echoMaxPeriod, runFrom, at, unit.end, period, listLike)
  }

  /** Whether `key` (a unit's text or shape) was said before; remembers it. */
  private saidBefore(key: number): boolean {
    const said = key | 1
    const entry = (said ^ (said >>> 14)) & SAID_MASK
    const before = this.unitsSaid[entry] === said
    this.unitsSaid[entry] = said
    return before
  }

  /**
   * The echo level's run begins at the first unit of the window that is itself mostly echo, not at
   * the window's head: its span is as short as the window, which reaches back into the text the loop
   * echoes (a run measured from there would count what came before the loop).
   */
  private followEcho(familiar: boolean, from: number, at: number, end: number, period: number, listLike: boolean): RuleFinding | undefined {
    const { charSums, recurringSums, thresholds } = this
    let start = from
    if (familiar && !this.echo.running) {
      while (start !== at) {
        const next = (start + 1) & RING_MASK
        const chars = charSums[next] - charSums[start]
        if (chars > 0 && recurringSums[next] - recurringSums[start] >= thresholds.echoMinShare * chars) break
        start = next
      }
    }
    return this.echo.follow(familiar, this, start, at, end, this.echoSpans, thresholds.echoMinPeriods * period, listLike)
  }
}

/** A familiar run at one level of evidence: where it began and the running sums there. */
class FamiliarRun {
  private start = -1
  private chars = 0
  private prose = 0
  private slotted = 0

  stop(): void {
    this.start = -1
  }

  /** A run is in progress (its start is fixed). */
  get running(): boolean {
    return this.start >= 0
  }

  /** The window ending at ring slot `at` (beginning after slot `from`) is familiar at this level or not. */
  follow(familiar: boolean, sums: NoveltyRule, from: number, at: number, end: number, spans: Float64Array, periodSpan: number, listLike: boolean): RuleFinding | undefined {
    if (!familiar) {
      this.start = -1
      return undefined
    }
    if (this.start < 0) {
      this.start = sums.ends[from]
      this.chars = sums.charSums[from]
      this.prose = sums.proseSums[from]
      this.slotted = sums.slottedSums[from]
    }
    const chars = sums.charSums[at] - this.chars
    const prose = sums.proseSums[at] - this.prose
    const slotted = sums.slottedSums[at] - this.slotted
    // A run is judged as what most of it is: a prose threshold only for mostly-prose text.
    const tier = listLike ? DATA : prose * 2 >= chars ? PROSE : (prose + slotted) * 2 >= chars ? SLOTTED : DATA
    const span = end - this.start
    if (span < spans[tier] || span < periodSpan) return undefined
    return { rule: 'novelty', loopStart: this.start, repeatedChars: span, verifiedAt: end }
  }
}
