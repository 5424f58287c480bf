// novelty: the text stops saying anything new. A run of text made of word 3-grams already seen twice
// (what changes masked) is cut at a span set by the strength of that evidence and by whether the run
// reads as prose, slotted prose or data; new material or a new state ends a run. The levels, what the
// rule lets through, its cost and their evidence: docs/detector.md#novelty.

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
  /** The middle and weak levels' runs must also span this share of the text before them. */
  readonly weakHistoryShare: number
  /** A middle- or weak-level run made mostly of name lines (a list's items) must also hold this share of its chars in units said again. */
  readonly listMinRestatedShare: number
  /** A run must also last this many times the distance back to where its material was seen before. */
  readonly minPeriods: number
  /** The same, for the middle and weak levels: a list whose items share one frame ends by itself, a loop goes on. */
  readonly weakMinPeriods: number
  /** The longest span `weakMinPeriods` asks for (rounds longer than a list's item are no list). */
  readonly weakPeriodsMaxSpan: number
  /** Share of a unit's word chars in grams never seen that makes it new material; 0: never. */
  readonly newMaterialShare: number
  /** The period (chars) of the familiar material from which new material ends a familiar run. */
  readonly newMaterialMinPeriod: number
  /** Share of the window's chars in plain sentences (or units said again) for the middle and weak levels. */
  readonly plainMinShare: number
  /**
   * Whether the middle and weak levels read only windows of plain sentences or of units said again word
   * for word (reasoning, text); on the tool side their spans are the data span already.
   */
  readonly weakLevelsReadWords: boolean
  /** Data level: share of the window's word chars, among units whose two predecessors were seen together before, that follow them as last time. */
  readonly dataMinOrder: number
  /** Span (chars) the prose levels need while the window is rows naming new items below `dataMinOrder` (a labelling answer). */
  readonly itemListMinSpan: number
}

/** log2 of a positive integer, within 0.09: its exponent and a linear mantissa (cheaper than Math.log2 per token). */
function log2(value: number): number {
  const exponent = 31 - Math.clz32(value)
  return exponent + value / (1 << exponent) - 1
}

const TABLE_BITS = 15
const TABLE_MASK = (1 << TABLE_BITS) - 1
/** Units kept for the window's running sums: a unit spans at least one char, so twice the window's largest setting. */
const RING_SIZE = 2048
/**
 * The ring starts at this many units and doubles before a unit would wrap it, up to `RING_SIZE`: a
 * call of a few hundred units then never zeroes the whole ring (every slot read is one written in
 * either size, so the verdicts do not change).
 */
const INITIAL_RING_SIZE = 256
const RING_TABLES = 15
const GRAM_SEED = 0x6e6f7665
/** What a unit's first tokens are joined to in their grams. */
const UNIT_EDGE = 0x65646765

/**
 * The longest unit that labels an item: the rows of a labelling answer, their key included, run to
 * 8-29 chars (`新闻 12：互联网`, `Sentence 12 is entertainment.`); a step said again under a new
 * number is longer (`Pour the 6 liters from the 12-liter jug into the 6-liter jug.`: 61).
 */
const MAX_LABEL_ROW_CHARS = 32

/** Word chars of the shortest unit that can be new material: a header naming a package has 19; an interjection says too little. */
const MIN_NEW_MATERIAL_CHARS = 16

/** The shortest line of values alone that counts as information in the window: `[0 0 0 1]`. */
const MIN_VALUE_ROW_CHARS = 8

/** The shortest period (tokens) of a repeating sentence: a shorter one is a list of one item. */
const MIN_PROSE_PERIOD_TOKENS = 4

const PROSE = 0
const SLOTTED = 1
const DATA = 2

/** Slots of the table of units said (text and shape, two entries a unit): well above a loop's round, so a pool does not evict itself. */
const SAID_MASK = 16383

/** Slots of the table of which unit followed which (direct-mapped: a later unit overwrites an earlier one in its slot). */
const SUCCESSOR_MASK = 4095

export class NoveltyRule implements TokenReader, UnitRule {
  /**
   * Per slot, side by side (one cache line a probe): the gram's key, then `sighting << 2 | count`, the
   * sighting the token number + 1 (0: empty), the count saturating at 2. 2^30 tokens is far above any output cap.
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
   * Σ chars × log2(tokens back to the earlier sighting) over the unit's recurring tokens, and their chars:
   * a geometric mean, which the few grams a passage repeats inside itself do not pull down.
   */
  private unitLogDistance = 0
  private unitRecurring = 0
  /** Chars of the unit's grams never seen before. */
  private unitNew = 0
  /** Values in the unit that carry state (tokenizer.ts `stateDigitsFrom`: kept as written, not masked). */
  private unitStateValues = 0
  /** The rows of values alone since the last worded unit, hashed together: one state written row by row. */
  private stateRows = FNV_OFFSET
  /** The last unit of new material (see `unit`): a familiar run begins after it. */
  private newMaterialUnit = -1
  /** The unit being read, hashed as its grams are (what changes masked), and the two units before it. */
  private unitShape = FNV_OFFSET
  private previousShape = FNV_OFFSET
  private beforePreviousShape = FNV_OFFSET
  /** Per slot, two int32: a pair of unit shapes (the key), then the shape of the unit that followed them when last seen. */
  private readonly successors = new Int32Array(2 * (SUCCESSOR_MASK + 1))
  // Per unit, in a ring (slot `unit & ringMask`): where it ends, and running sums of token chars, credit and token chars per tier.
  ends!: Float64Array
  charSums!: Float64Array
  creditSums!: Float64Array
  proseSums!: Float64Array
  slottedSums!: Float64Array
  private tokenSums!: Float64Array
  private logDistanceSums!: Float64Array
  private recurringSums!: Float64Array
  private plainSums!: Float64Array
  /** Chars of units said before word for word, and of pieces of a line cut for length (units.ts `openedAtCut`, `endsAtCut`). */
  private saidAgainSums!: Float64Array
  /** Chars of units said before, word for word or with a counter changed (what a loop restates, a list of one frame never). */
  restatedSums!: Float64Array
  /** Chars of whole lines with no sentence end (units.ts `nameLine`): a list's names, a title. */
  nameLineSums!: Float64Array
  /** The ring's tables above and below, in one list (`useRingTables`), and its mask. */
  private ringTables: Float64Array[] = []
  private ringMask = 0
  /** Per slot, a unit's text key (units.ts `Unit.key`) or shape said (direct-mapped, its low bit set so that 0 is empty). */
  private readonly unitsSaid = new Int32Array(SAID_MASK + 1)
  /** Word chars of units that followed their two predecessors as last time (ordered) or not (disordered). */
  private orderedSums!: Float64Array
  private disorderedSums!: Float64Array
  /** Chars of short rows (at most MAX_LABEL_ROW_CHARS) keyed by an item not written before (units.ts `changingValue`, `numberedItem`): labels. */
  private newItemSums!: Float64Array
  /** The previous unit was keyed by a new item: a list item's number keys the unit after it. */
  private previousKeyedByNewItem = false
  private units = 0
  /** The unit after which the window begins. */
  private windowStart = 0
  /** The familiar runs in progress, one per level of evidence (the window's familiar share). */
  private readonly strong = new FamiliarRun()
  private readonly middle: FamiliarRun
  private readonly weak: FamiliarRun
  private readonly data = new FamiliarRun()
  private readonly spans: Float64Array
  private readonly middleSpans: Float64Array
  private readonly weakSpans: Float64Array
  private readonly dataSpans: Float64Array

  constructor(readonly thresholds: NoveltyThresholds) {
    this.middle = new FamiliarRun(thresholds.weakHistoryShare, thresholds.listMinRestatedShare)
    this.weak = new FamiliarRun(thresholds.weakHistoryShare, thresholds.listMinRestatedShare)
    this.useRingTables(typedTables(Float64Array, RING_TABLES, INITIAL_RING_SIZE))
    // Per tier of the run (prose, slotted prose, data), the span each level needs: docs/detector.md#novelty.
    this.spans = Float64Array.of(thresholds.minSpan, thresholds.slottedMinSpan, Infinity)
    this.middleSpans = Float64Array.of(thresholds.middleMinSpan, Infinity, Infinity)
    this.weakSpans = Float64Array.of(thresholds.weakMinSpan, Infinity, Infinity)
    this.dataSpans = Float64Array.of(Infinity, Infinity, thresholds.dataMinSpan)
  }

  private useRingTables(tables: Float64Array[]): void {
    this.ringTables = tables
    ;[this.ends, this.charSums, this.creditSums, this.proseSums, this.slottedSums, this.tokenSums, this.logDistanceSums,
      this.recurringSums, this.plainSums, this.saidAgainSums, this.orderedSums, this.disorderedSums, this.restatedSums, this.nameLineSums,
      this.newItemSums] = tables
    this.ringMask = tables[0].length - 1
  }

  /** Doubles the ring of units; the units so far keep their slots (none has wrapped yet). */
  private growRing(): void {
    const tables = typedTables(Float64Array, RING_TABLES, 2 * (this.ringMask + 1))
    this.ringTables.forEach((table, i) => tables[i].set(table))
    this.useRingTables(tables)
  }

  token(token: Token): undefined {
    const value = token.slots > 0 ? token.maskedHash : token.caseHash
    const index = ++this.tokenCount
    const gram = Math.imul(Math.imul(Math.imul(FNV_OFFSET ^ GRAM_SEED, FNV_PRIME) ^ this.beforePrevious, FNV_PRIME) ^ this.previous, FNV_PRIME) ^ value
    this.beforePrevious = this.previous
    this.previous = value
    this.unitShape = Math.imul(this.unitShape ^ value, FNV_PRIME)
    // A gram of values alone (numbers, hashes, a board's `X O O`) is no evidence: a word has two letters
    // besides its values, or is CJK. A token that holds words and an id (`call_b071c772`, a line of
    // minified JSON restating one call under a new id) is a word with a slot, as `Step 12` is in prose.
    const word = token.letters - token.valueLetters > 1 || (token.slots === 0 && token.letters === 1 && isCjk(token.firstCode))
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
    this.unitStateValues += token.slots - token.maskedSlots + (token.quotedCapitals ? 1 : 0)
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
    // A row of values alone (a grid row: no worded gram) counts in the window with no credit, so a
    // familiar run cannot reach across a board the model writes out.
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
    // Grams stay inside a unit: a pool reshuffles its sentences, so a gram across two would be new at every order.
    this.previous = UNIT_EDGE
    this.beforePrevious = UNIT_EDGE
    this.previousWord = false
    this.beforePreviousWord = false
    if (thresholds.minSpan === 0) return undefined
    // A loop writes its rows in the order of its last round, data may draw the same few rows in any
    // order. Two predecessors, not one: a row that comes twice in a round (A-B-B) is followed by each in turn.
    const context = Math.imul(this.beforePreviousShape, FNV_PRIME) ^ this.previousShape
    const successors = this.successors
    const successorEntry = ((context ^ (context >>> 12)) & SUCCESSOR_MASK) << 1
    const known = successors[successorEntry] === context && this.units > 1
    const ordered = known && successors[successorEntry + 1] === shape
    // Said again word for word: its own text (numbers included), or its shape (a counter masked).
    const saidAsWritten = unit.counted && this.saidBefore(unit.key)
    const restatedUnit = saidAsWritten || unit.counted && this.saidBefore(shape)
    // A short row keyed by an item not written before (`News 57: Sports`, `57.` then `Sports`) gives
    // that item a label. A key said before (`Point 3:` on the same sentence each round) names no new
    // item, and a long row says more than a label (a step restated under a new number).
    const keyedByNewItem = unit.numberedItem ? this.previousKeyedByNewItem : unit.changingValue && unit.counted && !saidAsWritten
    this.previousKeyedByNewItem = keyedByNewItem
    const newItem = keyedByNewItem && unit.length <= MAX_LABEL_ROW_CHARS
    // A state never written before is progress however familiar its words: a simulation reaches one
    // every round, a loop stops after its first. Rows of values alone (`- A: 4`, `- B: 0`) are judged
    // by their combination so far, as each row alone comes back.
    this.stateRows = valueRow ? Math.imul(this.stateRows ^ unit.key, FNV_PRIME) : FNV_OFFSET
    const newState = unit.counted && stateValues > 0 && !(valueRow ? this.saidBefore(this.stateRows) : restatedUnit)
    successors[successorEntry] = context
    successors[successorEntry + 1] = shape
    this.beforePreviousShape = this.previousShape
    this.previousShape = shape
    // By the unit's own shape on the tool side too: prose written into a file loops as prose does.
    const tier = unit.shapedLikeData ? (unit.slottedProse ? SLOTTED : DATA) : unit.stateRow ? DATA : PROSE
    const index = this.units++
    if (index > this.ringMask && this.ringMask < RING_SIZE - 1) this.growRing()
    const ringMask = this.ringMask
    const at = index & ringMask
    const before = (index - 1) & ringMask
    const first = index === 0
    const { ends, charSums, creditSums, proseSums, slottedSums, tokenSums, logDistanceSums, recurringSums, plainSums, saidAgainSums, orderedSums, disorderedSums, restatedSums, nameLineSums,
      newItemSums } = this
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
    restatedSums[at] = (first ? 0 : restatedSums[before]) + (restatedUnit ? chars : 0)
    nameLineSums[at] = (first ? 0 : nameLineSums[before]) + (unit.nameLine ? chars : 0)
    orderedSums[at] = (first ? 0 : orderedSums[before]) + (ordered ? chars : 0)
    disorderedSums[at] = (first ? 0 : disorderedSums[before]) + (known && !ordered ? chars : 0)
    newItemSums[at] = (first ? 0 : newItemSums[before]) + (newItem ? chars : 0)
    // The window: the shortest stretch of whole units ending here that spans `windowChars`.
    let start = Math.max(this.windowStart, index - ringMask)
    while (start + 1 < index && unit.end - ends[(start + 1) & ringMask] >= thresholds.windowChars) start++
    this.windowStart = start
    const from = start & ringMask
    const windowChars = charSums[at] - charSums[from]
    const full = index > start && unit.end - ends[from] >= thresholds.windowChars && windowChars > 0
    const windowCredit = full ? creditSums[at] - creditSums[from] : 0
    const windowTokens = tokenSums[at] - tokenSums[from]
    const recurringChars = recurringSums[at] - recurringSums[from]
    // The levels below the data level read only windows of plain sentences, of units said again or of
    // pieces of a cut line: text of numbers and marks re-uses its frame legitimately
    // (docs/detector.md#novelty, "Plain sentences or lines said again").
    const plain = full && plainSums[at] - plainSums[from] >= thresholds.plainMinShare * windowChars
    const saidAgain = full && saidAgainSums[at] - saidAgainSums[from] >= thresholds.plainMinShare * windowChars
    const readable = !thresholds.weakLevelsReadWords || plain || saidAgain
    const strongFamiliar = full && readable && windowCredit >= 2 * thresholds.minCoverage * windowChars
    const middleFamiliar = full && readable && windowCredit >= 2 * thresholds.middleMinCoverage * windowChars
    const weakFamiliar = full && readable && windowCredit >= 2 * thresholds.weakMinCoverage * windowChars
    // A loop writes its rows in the order of its last round; data, and rows each keyed by an item not
    // written before (a labelling answer: `新闻 12：体育`, `13. Finance`, one of a few labels a line),
    // draw the same few rows in any order.
    const inOrder = orderedSums[at] - orderedSums[from] >= thresholds.dataMinOrder * (orderedSums[at] - orderedSums[from] + disorderedSums[at] - disorderedSums[from])
    const dataFamiliar = full && windowCredit >= 2 * thresholds.dataMinCoverage * windowChars && inOrder
    const newItemsInAnyOrder = !inOrder && (newItemSums[at] - newItemSums[from]) * 2 >= windowChars
    const newMaterialCandidate = thresholds.newMaterialShare > 0 && !unit.openedAtCut && chars >= MIN_NEW_MATERIAL_CHARS
      && newChars >= thresholds.newMaterialShare * chars
    // The period of what repeats (chars back to where the window's material was seen), by which a
    // passage quoted a few times is told from a loop. Computed only when read: a power of two for every
    // unit would cost 3 % of the detector's time.
    let periodTokens = 0
    let period = 0
    if (strongFamiliar || middleFamiliar || weakFamiliar || dataFamiliar || newMaterialCandidate) {
      periodTokens = recurringChars > 0 ? 2 ** ((logDistanceSums[at] - logDistanceSums[from]) / recurringChars) : 0
      period = windowTokens > 0 ? periodTokens * ((unit.end - ends[from]) / windowTokens) : 0
    }
    const periodSpan = thresholds.minPeriods * period
    const weakPeriodSpan = Math.max(periodSpan, Math.min(thresholds.weakMinPeriods * period, thresholds.weakPeriodsMaxSpan))
    // Material that comes back every token or two is a list of one item ("unknown, unknown"): data.
    const listLike = recurringChars > 0 && periodTokens < MIN_PROSE_PERIOD_TOKENS
    // New material between copies of a long passage makes a document of sections, not a loop (whose
    // new wordings come back within a short period). A piece opening at a cut is no evidence: its first
    // grams are new because of where the cut fell.
    if (newState || newMaterialCandidate && period >= thresholds.newMaterialMinPeriod) {
      this.strong.stop()
      this.middle.stop()
      this.weak.stop()
      this.data.stop()
      this.newMaterialUnit = index
      return undefined
    }
    const runFrom = this.newMaterialUnit > start ? this.newMaterialUnit & ringMask : from
    // Rows naming new items in no fixed order are a list however familiar their words, up to
    // `itemListMinSpan`: the prose levels' verdicts wait for it while the window is such rows. The
    // order gates the verdict, not the run, so a loop of numbered rows is cut where it was once a
    // round of it is seen, and one that draws its rows in any order is still cut at that span.
    const listSpan = newItemsInAnyOrder ? thresholds.itemListMinSpan : 0
    return this.strong.follow(strongFamiliar, this, runFrom, at, unit.end, this.spans, Math.max(periodSpan, listSpan), listLike)
      ?? this.middle.follow(middleFamiliar, this, runFrom, at, unit.end, this.middleSpans, Math.max(weakPeriodSpan, listSpan), listLike)
      ?? this.weak.follow(weakFamiliar, this, runFrom, at, unit.end, this.weakSpans, Math.max(weakPeriodSpan, listSpan), listLike)
      ?? this.data.follow(dataFamiliar, this, runFrom, at, unit.end, this.dataSpans, periodSpan, listLike)
  }

  /** Whether `key` (a unit's text or shape) was said before; remembers it. */
  private saidBefore(key: number): boolean {
    const said = key | 1
    const entry = (said ^ (said >>> 14)) & SAID_MASK
    const before = this.unitsSaid[entry] === said
    this.unitsSaid[entry] = said
    return before
  }

}

/** A familiar run at one level of evidence: where it began and the running sums there. */
class FamiliarRun {
  /**
   * `historyShare`: the share of the text before the run that it must also span (weak evidence grows
   * with the trace); `minRestatedShare`: the share of its chars in units said again it must also hold
   * when it is made mostly of name lines (a list of one frame names new items, a loop restates its lines).
   */
  constructor(private readonly historyShare = 0, private readonly minRestatedShare = 0) {}

  private start = -1
  private chars = 0
  private prose = 0
  private slotted = 0
  private restated = 0
  private nameLines = 0

  stop(): void {
    this.start = -1
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
      this.restated = sums.restatedSums[from]
      this.nameLines = sums.nameLineSums[from]
    }
    const chars = sums.charSums[at] - this.chars
    const prose = sums.proseSums[at] - this.prose
    const slotted = sums.slottedSums[at] - this.slotted
    // A run is judged as what most of it is: a prose threshold only for mostly-prose text.
    const tier = listLike ? DATA : prose * 2 >= chars ? PROSE : (prose + slotted) * 2 >= chars ? SLOTTED : DATA
    const span = end - this.start
    if (span < spans[tier] || span < periodSpan || span < this.historyShare * this.start) return undefined
    // A list names its items a line each, and a list of one frame names new ones: a run mostly of such
    // lines must also say some of them again, as a loop does (`noveltyListMinRestatedShare`).
    if ((sums.nameLineSums[at] - this.nameLines) * 2 >= chars && sums.restatedSums[at] - this.restated < this.minRestatedShare * chars) return undefined
    return { rule: 'novelty', loopStart: this.start, repeatedChars: span, verifiedAt: end }
  }
}
