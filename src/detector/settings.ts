// Every threshold of the detector core, in one table: the detector's calibration, run at its defaults
// by the plugin and tried with another value through the analyzer's `--set` (`resolveDetectorConfig`),
// so a default or a description has exactly one source. Convention: a rule is switched off by setting
// its main threshold (named in its description) to 0. What a user tunes (the guards of each side, the
// reactions) is the plugin's config.

/** One detector threshold: its default, what it does, and the values it may take. */
export interface DetectorSetting {
  /** The value the detector uses when the config leaves the setting out. */
  readonly default: number
  /** One line, user-facing. */
  readonly description: string
  /** The smallest value allowed. */
  readonly min: number
  /** The largest value allowed, when there is one. */
  readonly max?: number
  /** Whether only whole numbers are allowed. */
  readonly integer: boolean
}

/**
 * Every detector threshold, by name: the one home of each default, description and range (the
 * analyzer's `--set` / `--sweep` and the docs' table are built from it), with the evidence that chose it
 * beside each entry. See docs/detector.md#settings.
 */
export const DETECTOR_SETTINGS = {
  // ── cycle: an exactly periodic tail ───────────────────────────────────────────────────────────────
  // Real loop periods run from ~90 to ~410 chars (dsh-loop-guard's measurements) and a cap below a
  // real period fails silently, so the cap is far above them; it stays under 65,535 because the cycle
  // rule keeps distances in 16 bits (test/detector/cycle.test.ts).
  reasoningCycleMaxPeriod: {
    default: 8192, min: 0, max: 8192, integer: true,
    description: 'Longest period (chars) of an exactly repeating reasoning tail that counts as a loop; 0 turns the cycle rule off for reasoning.',
  },
  // Correct answers repeat a stretch verbatim for up to ~330 chars (a weekday list counted out, identical
  // gate lines); 896 clears them and still cuts a real loop within max(1,000, 3 periods) of its onset
  // (docs/corpus-findings.md#real-model-output).
  reasoningCycleMinSpan: {
    default: 896, min: 16, max: 65536, integer: true,
    description: 'Minimum length (chars) of the periodic reasoning tail before the cycle rule trips.',
  },
  textCycleMaxPeriod: {
    default: 8192, min: 0, max: 8192, integer: true,
    description: 'Longest period (chars) of an exactly repeating visible-text tail that counts as a loop; 0 turns the cycle rule off for text.',
  },
  // As reasoningCycleMinSpan: real answers repeat a line verbatim a few times, a loop keeps going.
  textCycleMinSpan: {
    default: 896, min: 16, max: 65536, integer: true,
    description: 'Minimum length (chars) of the periodic visible-text tail before the cycle rule trips.',
  },
  toolCycleMaxPeriod: {
    default: 8192, min: 0, max: 8192, integer: true,
    description: 'Longest period (chars) of an exactly repeating tool-argument tail that counts as a loop; 0 turns the cycle rule off for tool arguments.',
  },
  // Files repeat a block a few times (fixtures, generated tables); a model writing the same line into a
  // file keeps going for thousands of chars.
  toolCycleMinSpan: {
    default: 2048, min: 16, max: 65536, integer: true,
    description: 'Minimum length (chars) of the periodic tool-argument tail before the cycle rule trips.',
  },
  // Exact repetition twice is normal (doubled overloads, a before/after quote): 2.5 periods let a block
  // repeated twice through and still cut within 3 periods.
  cycleMinPeriods: {
    default: 2.5, min: 2, max: 64, integer: false,
    description: 'Minimum number of periods the tail must span (exactly twice is normal in code; a loop keeps going).',
  },
  // Copies of one table row or record are a correct answer often enough (a CSV of equal rows, a list
  // of equal JSON records); what is data is decided by side and by what repeats (text/data-like.ts).
  // 6,144 trips no real normal and no npm document read as reasoning or text (a locale JSON record
  // repeated over 4.1 K trips at 4,096).
  dataMinSpan: {
    default: 6144, min: 0, max: 1048576, integer: true,
    description: 'Length (chars) an exact repetition (cycle, token-period) or a run of one symbol across lines must span in reasoning/text when it is data: one table row or record repeated, a board of one symbol; 0 treats it like prose.',
  },
  // Values alone (numbers and marks: a matrix row, a board) are the real loops that end before the
  // data span; correct answers repeat values verbatim for at most ~1,550 chars in the real-output corpus
  // (a circuit's bit lines, an ARC grid tiled by its pattern: a 30 × 30 grid is 1,800 chars), and no npm
  // document read as reasoning or text trips at 2,048. 3,072 keeps twice the longest real normal
  // (docs/corpus-findings.md#real-model-output). Symbols said again within one line (a move sequence,
  // a list of letters) are counted in copies as code is, up to this span: no real normal repeats them
  // past the cycle span; numbers in one line (an SVG path's coordinates) keep this span.
  valuesMinSpan: {
    default: 3072, min: 0, max: 1048576, integer: true,
    description: 'Length (chars) an exact repetition (cycle, token-period) must span in reasoning/text when it is values alone with no operator (numbers and marks, a word now and then: a matrix row, a board, numbers in one line); symbols in one line (U U F F, [\'d\', \'v\']) wait for codeMinPeriods copies, at most this span; 0 treats it like prose.',
  },
  // Files are written on purpose and a generated one repeats a lot: the lookup-table and identical-rows
  // shapes reach 9.5 K (test/fixtures/detector/normal-shapes.mjs), and C tables, fixtures and lockfiles
  // repeat in the npm corpus's tool passes.
  toolDataMinSpan: {
    default: 12288, min: 0, max: 1048576, integer: true,
    description: 'Length (chars) an exact repetition (cycle, token-period) or a run of one symbol across lines must span in tool arguments when it looks like data or code; 0 treats it like prose.',
  },
  // Code written again verbatim is counted in copies, not chars: a correct file or log writes a block up
  // to four times (pg-int8 unrolls a 343-char block three times, the npm corpus's one code trip at the
  // cycle span; a test log lists the same cases for four equal inputs), a loop keeps going. No real
  // normal repeats code or symbols in one line (a move sequence) past the cycle span; 3.5 cuts 20 more
  // real loops within the bound but trips the test log. Values joined by operators (expressions,
  // assignments, moves) are cut as prose (data-like.ts `valueRowSpan`). A list of equal records waits for
  // dataMinSpan (data-like.ts `repeatsOneListItem`), a board for valuesMinSpan. Lines alike but for the
  // list numbers opening them are counted so too: AlpacaEval's 50- and 100-item lists that go round
  // their items end 2.6-3.3 rounds in (at 2.5, 9 trip), a numbered step loop goes on for hundreds.
  codeMinPeriods: {
    default: 4.5, min: 0, max: 64, integer: false,
    description: 'Number of periods (copies of the block) an exact repetition (cycle, token-period) in reasoning/text must span, besides the cycle span, when what repeats is code or structured data (lines ending like code, JSON, CSV) holding no chat-template token, symbols in one line (U U F F), or lines alike but for the list numbers opening them (cycle); 0 treats it like prose.',
  },
  // A divider of several marks, a row of zeros or blank lines repeated verbatim is written long on
  // purpose (a correct 50 × 50 board of zeros spans 9.5 K in the real-output corpus, a 40 × 40 zero
  // matrix 6.6 K), and a loop of them ran unbounded before this span: 17 real loops of zero rows and
  // boards (real-output corpus), AlpacaEval's of `|---|` up to 16 K. 32,768 is the novelty data span, the
  // longest stretch of data any rule allows (the 6,144 data span cut the board and the matrix). One value
  // other than 0 among marks (`, 5, 5`) is no divider but values (rules/cycle.ts `dividerKind`).
  dividerMinSpan: {
    default: 32768, min: 0, max: 1048576, integer: true,
    description: 'Length (chars) an exact repetition (cycle) must span when its period holds no letter or digit but 0, or one letter or digit with no mark beside it (a divider of several marks, a row of zeros, blank lines, a board row of one letter), on every side; 0: never cut.',
  },
  // Cost against latency: each side is read one stride at a time, so a verdict comes at most a stride
  // after its evidence.
  cycleCheckStride: {
    default: 32, min: 1, max: 1024, integer: true,
    description: 'The rules read each side one stride of this many chars at a time; a trip is reported by the push that completes the stride.',
  },

  // ── phrase pool: a small vocabulary of lines or sentences reshuffled ──────────────────────────────
  // A pool has no period ("Go. / OK. / Writing. / Let me write.": 26 phrases, dsh-loop-guard's report);
  // these ratios cut a pool of short units 800-1,100 chars after it begins, whatever the productive prefix
  // (test/detector/phrase-pool-latency.test.ts).
  reasoningPoolMinRepeatedChars: {
    default: 512, min: 0, max: 65536, integer: true,
    description: 'Repeated phrase mass (chars) in the recent reasoning window that trips the phrase-pool rule; 0 turns it off for reasoning.',
  },
  textPoolMinRepeatedChars: {
    default: 512, min: 0, max: 65536, integer: true,
    description: 'Repeated phrase mass (chars) in the recent visible-text window that trips the phrase-pool rule; 0 turns it off for text.',
  },
  // A recent window, not the whole call, so a long productive prefix cannot hide a pool; it is kept as
  // one entry per unit.
  poolWindowChars: {
    default: 1024, min: 64, max: 65536, integer: true,
    description: 'Size (chars of normalised units) of the recent reasoning/text window the phrase-pool ratios are measured over.',
  },
  // A pool is evidence once each unit is seen 4 times, so the window holds 4 × K sightings of a K-unit
  // pool whatever the units' length: 32 covers 8 long units. It is the floor the npm corpus allows (C
  // headers' overload lists, ~10 lines with varying slots, trip at 36).
  poolWindowUnits: {
    default: 32, min: 1, max: 4096, integer: true,
    description: 'The recent reasoning/text window of the phrase-pool rule also reaches back at least this many units (lines or sentences), so a pool of long sentences fits in it.',
  },
  // Config files, CSV and generated tables repeat many lines: a 256-row lookup table holds 9.5 K of
  // identical rows (normal-shapes.mjs); a locale table of the npm corpus is a known trip below this
  // (docs/detector.md#known-limits-re-measured).
  toolPoolMinRepeatedChars: {
    default: 14336, min: 0, max: 262144, integer: true,
    description: 'Repeated phrase mass (chars) in the recent tool-argument window that trips the phrase-pool rule; 0 turns it off for tool arguments.',
  },
  toolPoolWindowChars: {
    default: 16384, min: 64, max: 262144, integer: true,
    description: 'Size (chars of normalised units) of the recent tool-argument window the phrase-pool ratios are measured over.',
  },
  // Prose reuses wording but most of it is new; a pool tends to 1.0. Structured type declarations reach
  // 0.6 at concentration 4 in the npm corpus; 0.7 clears them and still cuts a pool within ~1,100 chars.
  poolMinCoverage: {
    default: 0.7, min: 0, max: 1, integer: false,
    description: 'Share of the window that must be repetition of earlier units before the phrase-pool rule trips.',
  },
  // Sightings per distinct unit: real pools 7-23, a block quoted twice 1.4-2.5 (dsh-loop-guard's
  // measurements); a 26-phrase pool reaches ~4 in 1,024 chars, so 4 is also the ceiling. A pool of K units
  // is cut after 4 × K sightings.
  poolMinConcentration: {
    default: 4, min: 0, max: 1000, integer: false,
    description: 'Average sightings per distinct unit in the reasoning/text window (a block quoted twice gives ~2; a pool 4+).',
  },
  // Source files repeat structure heavily (overload lists, a tokenizer's switch): up to 5 sightings per
  // line in 8 KiB; a pool written into a file sees each phrase dozens of times.
  toolPoolMinConcentration: {
    default: 8, min: 0, max: 1000, integer: false,
    description: 'Average sightings per distinct unit in the tool-argument window before the phrase-pool rule trips.',
  },

  // ── novelty: the recent text is made of grams already seen twice (novelty.ts) ───────────────────
  // Levels of evidence: the more of the window is familiar, the shorter the run that must hold it. A
  // correct long trace re-checks what it wrote (a crossing replayed, an answer restated) in familiar runs
  // of up to ~1,300 chars at 0.95 (real-output corpus); a sentence with a counter or a changing id is
  // ~1.0 familiar from its third copy on, so it is still cut within about 2,000 chars of its onset.
  noveltyMinSpan: {
    default: 1536, min: 0, max: 262144, integer: true,
    description: 'Length (chars) of a mostly-prose reasoning/text stretch made of familiar word grams (seen twice before, with counters, ids and times masked) that trips the novelty rule; 0 turns it off for reasoning and text.',
  },
  // Prose lines holding several changing values (a retry line: request id, time, status) are half-way
  // to log lines, which are data: twice the prose span.
  noveltySlottedMinSpan: {
    default: 2048, min: 16, max: 262144, integer: true,
    description: 'The same, for a stretch made mostly of prose lines holding several changing values (request ids, times, statuses).',
  },
  // Data repeats legitimately, so only length tells: generated grid classes and browser tables in the npm
  // corpus stay 0.97 familiar over 24.6 K, a 256-row lookup table spans 17.3 K (shapes.mjs).
  noveltyDataMinSpan: {
    default: 32768, min: 16, max: 262144, integer: true,
    description: 'The same, for a reasoning/text stretch that looks like data or quoted tool output (log lines, table rows, code).',
  },
  toolNoveltyMinSpan: {
    default: 32768, min: 0, max: 262144, integer: true,
    description: 'Length (chars) of a familiar stretch of tool arguments (files: all data) that trips the novelty rule; 0 turns it off for tool arguments.',
  },
  noveltyWindowChars: {
    default: 512, min: 16, max: 1024, integer: true,
    description: 'The recent stretch (chars) whose share of familiar grams says whether the text is familiar now; a familiar run lasts while it is.',
  },
  noveltyMinCoverage: {
    default: 0.95, min: 0, max: 1, integer: false,
    description: 'Share of the window\'s word chars that must be in familiar grams (a gram seen once counts half) for the strongest level, held over noveltyMinSpan.',
  },
  // A frame whose one word changes keeps 0.75-0.85 of its grams familiar; no prose run of the npm corpus
  // holds 0.7 over 768 chars (dev/corpus-sweep.mjs), and 1,024 cuts a frame ~1,000-1,300 chars after onset.
  noveltyMiddleMinCoverage: {
    default: 0.7, min: 0, max: 1, integer: false,
    description: 'A lower share of familiar word chars in the window that trips the novelty rule when it holds over a mostly-prose run of noveltyMiddleMinSpan (a frame whose one word changes).',
  },
  noveltyMiddleMinSpan: {
    default: 1024, min: 16, max: 262144, integer: true,
    description: 'Length (chars) of the mostly-prose run that must hold noveltyMiddleMinCoverage.',
  },
  // Paraphrase and a decision circled stay at 0.6-0.75 familiar (their word combinations keep changing);
  // no prose run of the npm corpus holds 0.6 over 1,024 chars, and 1,280 keeps a quarter over it.
  noveltyWeakMinCoverage: {
    default: 0.6, min: 0, max: 1, integer: false,
    description: 'A lower share of familiar word chars in the window that also trips the novelty rule when it holds over a mostly-prose run of noveltyWeakMinSpan.',
  },
  noveltyWeakMinSpan: {
    default: 1280, min: 16, max: 262144, integer: true,
    description: 'Length (chars) of the mostly-prose run that must hold noveltyWeakMinCoverage (paraphrase, a decision circled with the same openings and tails).',
  },
  // A long trace revisits its own material: at 20 K-60 K chars a correct reasoning trace replays its
  // crossing sequences or circles a reading of the question with 0.6-0.7 of its grams familiar for 1-2.5 K
  // chars (two bridge-and-torch traces of the real-output corpus), which no short answer does. So the
  // middle and weak levels, the cheapest evidence, must also span a share of the text before their run:
  // 0.15 lets both traces through, 0.2 keeps a margin; the real loops (none relies on these levels past
  // 10 K chars) and the shapes (their loops start early) are cut as before up to 0.2, and 0.3 leaves one
  // real loop uncut. A loop beginning at 50 K is then cut 10 K after its onset: bounded, as it must be.
  noveltyWeakHistoryShare: {
    default: 0.2, min: 0, max: 1, integer: false,
    description: 'Share of the side\'s text before a middle- or weak-level run that the run must also span (a long trace revisits its own material, so weak evidence must grow with it); 0 turns this off.',
  },
  // The middle and weak levels read a share of familiar words, which a list of one frame has as a loop
  // does: keyword lists of one stem ("Screenwriting apps for beginners", "Free screenwriting
  // software", ...), AI topics in one frame, 100 factions "The X of Y", a reading list. A list names
  // its items a line each, with no sentence end (units.ts `nameLine`), and says no item twice; a loop
  // restates its own lines, word for word or with a counter changed. So a run made mostly of such lines
  // must also hold this share of its chars in units said again. On the real-output corpus 0.2 lets 7 of
  // the 10 answers the detector cut through (each such a list, at most 0.08 of it said again: 0.05 cuts
  // a list of factions again, 0.1 leaves no margin), and every real loop is still cut within its bound
  // (two of them 400-850 chars later); shapes and the held-out MisguidedAttention sweep are unchanged,
  // at 0.3 too. The cost: 5 lists of one frame that a reader called degenerate but that stop by
  // themselves at their 100th item (2.1-4.2 K, left out of the corpus as loops by reading) are not cut.
  // Asked of every run, sentences too, it would also hold back a decision circled in new combinations
  // of the same clauses (a shape: cut 17-22 K after its onset instead of 1.3-4.5 K), whose sentences are no list.
  noveltyListMinRestatedShare: {
    default: 0.2, min: 0, max: 1, integer: false,
    description: 'Share of a middle- or weak-level run made mostly of whole lines with no sentence end (a list\'s items, titles) that must be units said before, word for word or with a counter changed (a list of one frame names new items, a loop restates its lines); 0 turns this off.',
  },
  // Documentation's repeated sentences sit between headings, links and code spans, and real output that
  // tracks a state (a move list, a table of cases) holds numbers and marks in most lines; a loop of
  // sentences is sentences, or lines said again word for word.
  noveltyPlainMinShare: {
    default: 0.9, min: 0, max: 1, integer: false,
    description: 'Share of the window\'s chars in plain sentences (words alone: no number, markup or syntax), or in units said again word for word, that the middle and weak levels need in reasoning/text.',
  },
  // Generated JSON and CSS records stay 0.97 familiar for 24 K and more (names and values change); a loop
  // of rows that differ only in an index stays at 1.0.
  noveltyDataMinCoverage: {
    default: 0.98, min: 0, max: 1, integer: false,
    description: 'Share of the window\'s word chars in familiar grams at the data level (text that looks like data or quoted tool output, and the tool side), held over noveltyDataMinSpan.',
  },
  // A loop writes its rows in the order it wrote them before (every loop shape follows at 1 once a round
  // is seen); data draws the same few rows in any order (a CSV stress sample: about half;
  // test/detector/novelty.test.ts), and so does a labelling answer, short rows each keyed by an item
  // not written before (`新闻 12：体育`, `13. Finance`): 177 of moonshot-v1's 300 answers to CLongEval's
  // large news-labelling set (1.0-1.75 K; 176 of them with the reference's line count and 60 % or more of
  // its labels) were cut at ~1,100 chars, as are such lists of 3 to 30 labels in English. Below this
  // share, such a window asks the prose levels for noveltyItemListMinSpan; a loop of numbered rows keeps
  // its order once a round is seen (real-output corpus: one cut later, by cycle; docs/corpus-findings.md).
  noveltyDataMinOrder: {
    default: 0.75, min: 0, max: 1, integer: false,
    description: 'At the data level, the share of the window\'s word chars (among units whose two predecessors were seen together before) in units that follow them as they did last time: a loop keeps its order, data draws its rows in any order. Below it, a window made mostly of short rows each keyed by an item not written before (a labelling answer) asks the other levels for noveltyItemListMinSpan; 0 turns the check off.',
  },
  // A labelling answer ends with its items: CLongEval's news labelling answered by moonshot-v1 runs to
  // 1.75 K chars (300 answers), a list of 300-500 labelled items to 6-8 K. 8,192 lets such a list
  // through and still bounds a loop that draws numbered labels in no fixed order (the real-output
  // corpus and the held-out sweeps hold no such loop; numbered loops keep their order and are cut as before).
  noveltyItemListMinSpan: {
    default: 8192, min: 0, max: 262144, integer: true,
    description: 'Length (chars) of a familiar run that the prose levels need while the window is mostly rows each keyed by an item not written before (a number, an index) in no fixed order (below noveltyDataMinOrder): a labelling answer names one of a few labels per item; 0 judges such rows as any other text.',
  },
  // A passage quoted a few times is told from a loop by how many periods it lasts: a licence file that
  // bundles one licence five times passes at 3.5, and so do four quotes under headers of their own.
  noveltyMinPeriods: {
    default: 3.5, min: 0, max: 64, integer: false,
    description: 'A familiar run must also last this many times the distance back to where its material was seen before (a long passage quoted a few times over is not a loop).',
  },
  // A list whose items share one frame, a name swapped in each (ten herbs each "To dry X, hang the
  // sprigs in a warm, dry place ...", questions for each of nine stakeholders, patent claims), holds
  // 0.7-0.85 of its grams familiar like a loop of a frame does, and ends by itself at its eighth to tenth
  // item: at 3.5 rounds the middle and weak levels cut 22 AlpacaEval answers, 9 of them wanted whole by
  // reading; at 8, 6 (one such; 7 leaves 9). At 10 two more wanted whole pass: a song whose chorus
  // comes four times and whose verses reuse its lines (ZeroEval), and answers that re-list a question's
  // ten options in one frame before choosing (two correct DeepSeek-Coder-V2 answers, MMLU-Pro, held
  // out); at 9 the song is still cut. A loop goes on: the real loops these levels cut are cut a few
  // hundred chars later (one more past its bound: 1,846 / 286 / 79 against 1,847 / 285 / 79 at 8), the
  // slowest paraphrase pool and decision circled of 48 seeds 4,450 and 5,360 chars after onset (5,250 at 8).
  noveltyWeakMinPeriods: {
    default: 10, min: 0, max: 64, integer: false,
    description: 'A middle- or weak-level run must also last this many times the distance back to where its material was seen before, up to noveltyWeakPeriodsMaxSpan (a list whose items share one frame ends by itself, a loop goes on).',
  },
  // A list's item is a paragraph at most: rounds of a long pool (a pool of long sentences, 6 K a round)
  // are no list, and 8 of them would outlast the output (a long-pool shape went uncut at 48 seeds). Past
  // this span the run needs noveltyMinPeriods rounds as the other levels do; 2,048 cuts two of those lists again.
  noveltyWeakPeriodsMaxSpan: {
    default: 3072, min: 0, max: 262144, integer: true,
    description: 'The longest span (chars) noveltyWeakMinPeriods asks of a middle- or weak-level run; past it, noveltyMinPeriods applies.',
  },
  // New material ends a familiar run only when what repeats comes back from far: sections copied under
  // headers of their own (a licence bundle, a changelog's backported entries: 0.8-1.7 K apart). A
  // paraphrase pool brings new wordings too, but its material comes round within a few hundred chars
  // (test/detector/shape-sweep.test.ts).
  noveltyNewMaterialShare: {
    default: 0.5, min: 0, max: 1, integer: false,
    description: 'Share of a unit\'s word chars in grams never seen before that makes it new material: new material ends a familiar run whose material comes back from noveltyNewMaterialMinPeriod chars or more (a document of sections, each under its own header); 0 turns this off.',
  },
  noveltyNewMaterialMinPeriod: {
    default: 1024, min: 0, max: 262144, integer: true,
    description: 'Distance (chars) back to where the familiar material was seen before from which a unit of new material ends the familiar run (shorter: a paraphrase pool\'s new wording, which does not).',
  },
  // A pool of 20 sentences of 300 chars comes round every ~1,200 English tokens (6,000 Chinese); twice
  // that fits in the gram table (32 K slots).
  noveltyHistoryTokens: {
    default: 16384, min: 64, max: 1048576, integer: true,
    description: 'How many tokens back a gram\'s earlier sightings count (a loop\'s period must fit twice).',
  },

  // ── token period: a block of tokens repeated back to back, modulo case and white space ────────────
  tokenPeriodMinRepeats: {
    default: 16, min: 0, max: 1000, integer: true,
    description: 'Back-to-back repeats of a token block in reasoning/text that trip the token-period rule; 0 turns it off for reasoning and text.',
  },
  toolTokenPeriodMinRepeats: {
    default: 64, min: 0, max: 1000, integer: true,
    description: 'Back-to-back repeats of a token block in tool arguments that trip the token-period rule; 0 turns it off for tool arguments.',
  },
  tokenPeriodMaxBlock: {
    default: 32, min: 1, max: 256, integer: true,
    description: 'Longest token block (tokens; a CJK character is one token) the token-period rule looks for.',
  },
  // "哈哈哈" is one distinct token: laughter, not a loop. Two distinct ones repeat as a loop only when
  // both are words ("to uncover to uncover": a real Llama 4 Maverick chapter of 20 K chars, uncut at 3);
  // two marks or values alternating ("| --- |", "0 1 0 1") are a divider or a grid (token-period.ts).
  tokenPeriodMinDistinct: {
    default: 2, min: 1, max: 256, integer: true,
    description: 'Minimum distinct tokens in a repeated block (so "哈哈哈" is not a loop); a block of fewer than 3 must also be words of two letters or more (so a table divider or "0 1 0 1" is not a loop).',
  },

  // ── symbol run: one punctuation mark, symbol, emoji or one-letter token repeated ─────────────────
  // Units that never run long in writing (sentence punctuation, emoji, letters) run at most 128 chars in
  // the npm corpus, dividers and laughter up to 437 (symbol-run.ts); 2 × 128 cuts a run of '!' or '。'
  // within ~350 chars of its onset.
  symbolRunMinChars: {
    default: 256, min: 0, max: 1048576, integer: true,
    description: 'Length (chars) of a run of one punctuation mark, emoji, letter or CJK character, or of two letters alternating (white space between allowed), that trips the symbol-run rule in reasoning/text, as does white space holding that many chars of escapes written out (\\n \\t \\r) or a divider mark (not a bracket) alone on each line for that long; 0 turns it off for reasoning and text.',
  },
  // Dividers and laughter are written long on purpose: 1,536 clears the normal shapes' 1,200-char rule
  // and 3.5 × the corpus's longest. A rule of several marks in one line (`|---|`, `-=-=`, `**_`) is drawn
  // as one of one mark is, so the cycle rule cuts it at this span too: real loops of them ran 16 K uncut.
  // White space alone is padding too: real loops of it ran to 57 K uncut, and the longest in a real
  // normal is a table cell of 1,216 spaces (symbol-run.ts `lastInk`). Its escapes written out are not
  // (`symbolRunMinChars`): a real normal holds at most 8 chars of them in one run, the npm corpus 52.
  dividerRunMinChars: {
    default: 1536, min: 0, max: 1048576, integer: true,
    description: 'Length (chars) of a run of a divider, padding, bracket or laughter unit (- = _ * # ~ ─ · 0 } 哈 w), or of white space alone (spaces, line breaks, tabs), that trips the symbol-run rule in reasoning/text, and of a period of marks alone in one line (|---, -=) repeated that trips the cycle rule; 0 lets such runs through.',
  },
  // The npm corpus's tool pass (JSON-escaped) peaks at 128 chars for these units ('�' in a codepage
  // table; a regex's `\b\b\b` read 181 while an escaped backslash was transparent, symbol-run.ts);
  // 2,048 cuts within 2,150 chars at 64-char deltas.
  toolSymbolRunMinChars: {
    default: 2048, min: 0, max: 1048576, integer: true,
    description: 'Length (chars) of a run of one punctuation mark, emoji, letter or CJK character, or of two letters alternating, in tool arguments that trips the symbol-run rule; 0 turns it off for tool arguments.',
  },
  // Files pad with one char (rules of '=', banners of '#', zero-filled blocks) more than prose does.
  toolDividerRunMinChars: {
    default: 4096, min: 0, max: 1048576, integer: true,
    description: 'Length (chars) of a run of a divider, padding, bracket or laughter unit, or of white space alone, in tool arguments that trips the symbol-run rule, and of a period of marks alone in one line repeated that trips the cycle rule; 0 lets such runs through.',
  },

  // ── letter cycle: sub-word fragments cycling, a letter changed or dropped here and there ─────────
  // Runs of words of 12 letters or more (6 CJK characters) repeat near-periodically in no real normal
  // (random letter strings of puzzles match a period back, give or take one char, for at most 0.20 of
  // their letters) and in no npm document read as reasoning or text (identifier lists reach 0.58, base64
  // blobs 0.89 and are mostly one letter); garbage cycling with one edit in four copies matches for 0.96
  // or more. 512 chars is about 20 copies of a field shape's cycle and cuts it within about 550 chars of
  // its onset.
  letterCycleMinSpan: {
    default: 512, min: 0, max: 1024, integer: true,
    description: 'Length (chars) of a run of long words of letters (12 letters or 6 CJK characters or more each, single spaces between) that repeats with one period, edits allowed, before the letter-cycle rule trips in reasoning/text; 0 turns it off.',
  },
  letterCycleMinShare: {
    default: 0.9, min: 0.5, max: 1, integer: false,
    description: 'Share of the run\'s chars that must match the char a period back, or one char either side of it, for the letter-cycle rule.',
  },

  // ── growing line: a line written again and again, one more copy of a fragment each time ─────────
  // Stretches of lines that add nothing but one more copy of a fragment (each line a recent one again, or
  // grown by an insertion that continues a run it holds) with a line grown four times over: in the real
  // normals they span at most 431 chars (a LaTeX contents list deepening `\cftsubsub...secfont`, itself
  // degenerate; 249 for a correct move list re-listed), in the npm corpus at most 147 (a test file's
  // strings); the real loops of grown lines run on to the output cap (WildBench, AlpacaEval, ZeroEval:
  // 1.3 K-15 K chars). 768 cuts them within 1,000 chars of the first grown line when its lines are short.
  growingLineMinChars: {
    default: 768, min: 0, max: 1048576, integer: true,
    description: 'Span (chars) of a stretch of lines that add nothing new, each a recent line again or a recent line with one more copy of a fragment it holds, with one line grown four times over, that trips the growing-line rule on every side; 0 turns it off.',
  },

  // ── identical chunks: the provider sends the same delta again and again ───────────────────────────
  maxIdenticalChunks: {
    default: 60, min: 0, max: 100000, integer: true,
    description: 'Consecutive identical reasoning/text deltas that trip the identical-chunks rule; 0 turns it off for reasoning and text.',
  },
  toolMaxIdenticalChunks: {
    default: 240, min: 0, max: 100000, integer: true,
    description: 'Consecutive identical tool-argument deltas that trip the identical-chunks rule; 0 turns it off for tool arguments.',
  },

  // ── cross-call stall (CallJudge) ───────────────────────────────────────────────────────────────────
  maxThinkingSteps: {
    default: 3, min: 0, max: 1000, integer: true,
    description: 'Consecutive stalled calls (long reasoning with no output, or restating the previous call) before a stall is reported; 0 turns the cross-call judge off.',
  },
  // dsh-loop-guard's value, calibrated on 4,628 real calls; shorter calls neither count nor reset, so a
  // quick "OK" between two long stalls does not hide them.
  minReasoningChars: {
    default: 2048, min: 1, max: 10000000, integer: true,
    description: 'Reasoning shorter than this (chars) neither counts as a stalled call nor resets the count.',
  },
  similarityThreshold: {
    default: 0.8, min: 0, max: 1, integer: false,
    description: 'Share of a call\'s distinct character 4-grams found in the previous call\'s reasoning that makes it a restatement; 0 turns restatement detection off.',
  },
  // Bounds the judge's memory and time: a restating call re-derives what it just wrote, which shows in
  // its latest reasoning, so the last N chars of each call are compared (every call up to 8 ×
  // minReasoningChars whole).
  callJudgeWindowChars: {
    default: 16384, min: 64, max: 1048576, integer: true,
    description: 'Restatement is measured between the last this-many chars of each long call\'s reasoning (minReasoningChars still counts the whole reasoning); bounds the judge\'s memory and time.',
  },

  // A model recaps its plan before the next piece of work; the work after the recap is new. 1,024 chars
  // is a paragraph or two of new work, and half of minReasoningChars.
  restatementTailChars: {
    default: 1024, min: 64, max: 1048576, integer: true,
    description: 'A call counts as restating the previous one only if its last this-many chars of reasoning are restated too (restated material with new work after it is progress).',
  },

  // ── cross-step repeat (StepJudge, see docs/judges.md) ──────────────────────────────────────────────
  maxRepeatedSteps: {
    default: 3, min: 0, max: 1000, integer: true,
    description: 'The same step (its tool calls, or its normalised text when it makes none) this many times in a row, with no tool result showing progress or a running job, is reported; 0 turns it off.',
  },
  // A-B-A-B-A-B: each of the two steps seen three times, the same evidence as three identical steps;
  // longer cycles need two full turns (A-B-C-A-B-C: 6 steps).
  maxAlternatingSteps: {
    default: 6, min: 0, max: 1000, integer: true,
    description: 'Steps going round a cycle of 2 to maxStepCycleLength forms (A-B-A-B..., A-B-C-A-B-C...) this many in a row, and two full cycles at least, are reported; 0 turns cycles off.',
  },
  // Agents stuck in a cycle go round 2-4 steps (edit, run, read the same error); a longer "cycle" is a
  // workflow, and each extra length costs 2 × length steps of history.
  maxStepCycleLength: {
    default: 4, min: 2, max: 16, integer: true,
    description: 'Longest cycle of steps (2 = alternation only) the cross-step judge looks for.',
  },
} as const satisfies Record<string, DetectorSetting>

/** The name of one detector threshold (`reasoningCycleMinSpan`, `noveltyMinSpan`, ...). */
export type DetectorSettingName = keyof typeof DETECTOR_SETTINGS
/** A complete detector config: a value for every threshold. */
export type DetectorConfig = { readonly [K in DetectorSettingName]: number }

const SETTING_NAMES = Object.keys(DETECTOR_SETTINGS) as DetectorSettingName[]

/** Every threshold at its default (frozen). */
export const DEFAULT_CONFIG: DetectorConfig = Object.freeze(
  Object.fromEntries(SETTING_NAMES.map((name) => [name, DETECTOR_SETTINGS[name].default])) as DetectorConfig,
)

/**
 * A setting's value is not allowed: one line naming the field, what it must be and the value given. Its
 * own class so the plugin's config schema can tell a user's mistake from a bug and report it as a
 * validation failure (see docs/config.md#when-a-setting-is-wrong).
 */
export class SettingError extends Error {
  override name = 'SettingError'
}

/** How a value given for a setting is quoted in an error (a string keeps its quotes, a list its brackets). */
export function shownValue(value: unknown): string {
  return typeof value === 'string' || (typeof value === 'object' && value !== null) ? JSON.stringify(value) : String(value)
}

/** The one shape of a configuration error, shared with the plugin's reaction settings. */
export function failSetting(field: string, requirement: string, value: unknown): never {
  throw new SettingError(`loop-breaker: ${field} must be ${requirement} (got ${shownValue(value)})`)
}

/** Configs this module resolved: resolving one again returns it as it is. */
const RESOLVED = new WeakSet<object>([DEFAULT_CONFIG])

/** Fills defaults and validates; throws `loop-breaker: <field> must be ... (got <value>)`. */
export function resolveDetectorConfig(partial?: Partial<DetectorConfig>): DetectorConfig {
  if (partial === undefined) return DEFAULT_CONFIG
  if (RESOLVED.has(partial)) return partial as DetectorConfig
  if (partial === null || typeof partial !== 'object') failSetting('detector config', 'an object', partial)
  for (const field of Object.keys(partial)) {
    if (!Object.hasOwn(DETECTOR_SETTINGS, field)) failSetting(field, `one of the detector settings (${SETTING_NAMES.join(', ')})`, field)
  }
  const resolved = { ...DEFAULT_CONFIG } as { -readonly [K in DetectorSettingName]: number }
  for (const name of SETTING_NAMES) {
    const value: unknown = (partial as Record<string, unknown>)[name]
    if (value === undefined) continue
    const setting: DetectorSetting = DETECTOR_SETTINGS[name]
    if (typeof value !== 'number' || !Number.isFinite(value)) failSetting(name, 'a finite number', value)
    if (setting.integer && !Number.isInteger(value)) failSetting(name, 'an integer', value)
    if (value < setting.min) failSetting(name, `at least ${setting.min}`, value)
    if (setting.max !== undefined && value > setting.max) failSetting(name, `at most ${setting.max}`, value)
    resolved[name] = value
  }
  // Combinations under which a rule could never trip are configuration mistakes, not silent no-ops.
  if (resolved.reasoningPoolMinRepeatedChars > resolved.poolWindowChars)
    failSetting('reasoningPoolMinRepeatedChars', `0 or at most poolWindowChars (${resolved.poolWindowChars})`, resolved.reasoningPoolMinRepeatedChars)
  if (resolved.textPoolMinRepeatedChars > resolved.poolWindowChars)
    failSetting('textPoolMinRepeatedChars', `0 or at most poolWindowChars (${resolved.poolWindowChars})`, resolved.textPoolMinRepeatedChars)

  if (resolved.toolPoolMinRepeatedChars > resolved.toolPoolWindowChars)
    failSetting('toolPoolMinRepeatedChars', `0 or at most toolPoolWindowChars (${resolved.toolPoolWindowChars})`, resolved.toolPoolMinRepeatedChars)
  for (const name of ['tokenPeriodMinRepeats', 'toolTokenPeriodMinRepeats', 'maxIdenticalChunks', 'toolMaxIdenticalChunks'] as const) {
    if (resolved[name] === 1) failSetting(name, '0 (off) or at least 2', 1)
  }
  if (resolved.tokenPeriodMinDistinct > resolved.tokenPeriodMaxBlock)
    failSetting('tokenPeriodMinDistinct', `at most tokenPeriodMaxBlock (${resolved.tokenPeriodMaxBlock})`, resolved.tokenPeriodMinDistinct)
  if (resolved.restatementTailChars > resolved.callJudgeWindowChars)
    failSetting('restatementTailChars', `at most callJudgeWindowChars (${resolved.callJudgeWindowChars})`, resolved.restatementTailChars)
  if (resolved.maxRepeatedSteps === 1) failSetting('maxRepeatedSteps', '0 (off) or at least 2', 1)
  if (resolved.maxAlternatingSteps > 0 && resolved.maxAlternatingSteps < 4)
    failSetting('maxAlternatingSteps', '0 (off) or at least 4', resolved.maxAlternatingSteps)
  Object.freeze(resolved)
  RESOLVED.add(resolved)
  return resolved
}
