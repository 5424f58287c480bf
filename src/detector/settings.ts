// Every threshold of the detector core, in one table: the plugin builds its schemastery Config by
// iterating it and the analyzer resolves `--set key=value` through `resolveDetectorConfig`, so a default
// or a description has exactly one source. Convention: a rule is switched off by setting its main
// threshold (named in its description) to 0. Reaction settings (escalation, caps) belong to the plugin.

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
 * Every detector threshold, by name: the one home of each default, description and range (the plugin's
 * Config schema and the analyzer's `--set` / `--sweep` are built from it), with the calibration that
 * chose it beside each entry. See docs/detector.md#settings.
 */
export const DETECTOR_SETTINGS = {
  // ── cycle: an exactly periodic tail ───────────────────────────────────────────────────────────────
  // Real loop periods dsh-loop-guard measured: 89, 102, 105, 154, 187, 235, 382, 409 characters in
  // reasoning and 172 in visible text; every time the cap sat below a real period the rule failed
  // silently (no trip, no log). 1024 is 2.5 × the longest period ever seen, and costs nothing on the
  // corpus (test/detector/corpus.test.ts); a test pins cap > every measured period. The cap of the
  // three maxima, 8192, must stay under 65,535: the cycle rule's index keeps distances in 16 bits
  // (test/detector/cycle.test.ts pins it).
  reasoningCycleMaxPeriod: {
    default: 8192, min: 0, max: 8192, integer: true,
    description: 'Longest period (chars) of an exactly repeating reasoning tail that counts as a loop; 0 turns the cycle rule off for reasoning.',
  },
  // 896: in real model output the verbatim stretches of correct answers (a weekday list counted out,
  // identical gate lines of a circuit, a substring check stepped through) last up to ~330 chars, and a
  // real loop's verbatim period still falls within max(1,000, 3 periods) of its onset (the span, a
  // stride and a delta). Real-output corpus: test/fixtures/real-output; docs/corpus-findings.md.
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
  // Files legitimately repeat a block a few times (fixtures, generated tables); a model writing the
  // same line into a file keeps going for thousands of characters, so the tool side waits for 2 KiB.
  toolCycleMinSpan: {
    default: 2048, min: 16, max: 65536, integer: true,
    description: 'Minimum length (chars) of the periodic tool-argument tail before the cycle rule trips.',
  },
  // Exact repetition twice is normal (doubled .d.ts overloads, a before/after quote); 2.5 periods means
  // a block repeated twice never trips on its own, and 2.5 × 409 + stride stays under 3 periods.
  cycleMinPeriods: {
    default: 2.5, min: 2, max: 64, integer: false,
    description: 'Minimum number of periods the tail must span (exactly twice is normal in code; a loop keeps going).',
  },
  // Identical rows are a correct answer often enough (a zero matrix, a board of one symbol, a CSV of
  // equal rows); a loop keeps going. What counts as data is decided by side and by what repeats
  // (data-like.ts): in reasoning and text, rows of values or copies of one table row. 6,144: no real
  // normal of the real-output corpus and no npm document read as reasoning or text trips at 4,096 or
  // more (a CLDR JSON record repeated over 4.1 K trips at 4,096), and the real loops of value rows
  // (cryptarithm assignments, countdown expressions, move strings, matrix rows written on and on) are
  // then cut before their output ends: 131 real loops are never cut at 6,144, 330 at 12,288
  // (docs/corpus-findings.md, Real model output).
  dataMinSpan: {
    default: 6144, min: 0, max: 1048576, integer: true,
    description: 'Length (chars) an exact repetition (cycle, token-period) or a run of one symbol across lines must span in reasoning/text when it is data: rows of values or one table row repeated; 0 treats it like prose.',
  },
  // Files are written on purpose, and a generated one repeats a lot: the lookup-table and identical-rows
  // shapes of test/fixtures/detector/normal-shapes.mjs reach 9.5 K, and a C table's rows, a fixture's
  // records and a lockfile's entries repeat in the npm corpus's tool passes.
  toolDataMinSpan: {
    default: 12288, min: 0, max: 1048576, integer: true,
    description: 'Length (chars) an exact repetition (cycle, token-period) or a run of one symbol across lines must span in tool arguments when it looks like data or code; 0 treats it like prose.',
  },
  // What repeats is code or structured data (lines ending like code: statements, JSON records, a list
  // of strings; data-like.ts `stretchIsCode`) with no chat-template token: a correct file quoted in an
  // answer repeats a record a few dozen times (CLDR's languageMatching.json repeats one record over
  // 4.6-6 K chars: the npm corpus trips at 4,608, not at 6,144), a loop keeps going. Chat-template tokens, tags and prose are cut at the cycle span.
  codeMinSpan: {
    default: 8192, min: 0, max: 1048576, integer: true,
    description: 'Length (chars) an exact repetition (cycle, token-period) in reasoning/text must span when what repeats is code or structured data (lines ending like code, JSON, CSV) holding no chat-template token; 0 treats it like prose.',
  },
  // Cost/latency trade-off: each side is read one stride at a time (rules in tight loops, the cycle
  // check at the stride's end), so a verdict comes at most this many chars after its evidence.
  cycleCheckStride: {
    default: 32, min: 1, max: 1024, integer: true,
    description: 'The rules read each side one stride of this many chars at a time; a trip is reported by the push that completes the stride.',
  },

  // ── phrase pool: a small vocabulary of lines or sentences reshuffled ──────────────────────────────
  // dsh-loop-guard's reported pool ("Go. / OK. / Writing. / Let me write.", 330,188 chars) had no period at all; 26
  // phrases seen 5,569 times. With the ratios below, a pool of short units is cut 800–1,100 chars
  // after it began, even after a 20,000-char productive prefix (test/detector/phrase-pool-latency.test.ts).
  reasoningPoolMinRepeatedChars: {
    default: 512, min: 0, max: 65536, integer: true,
    description: 'Repeated phrase mass (chars) in the recent reasoning window that trips the phrase-pool rule; 0 turns it off for reasoning.',
  },
  textPoolMinRepeatedChars: {
    default: 512, min: 0, max: 65536, integer: true,
    description: 'Repeated phrase mass (chars) in the recent visible-text window that trips the phrase-pool rule; 0 turns it off for text.',
  },
  // Ratios over a recent window, not the whole call, so a long productive prefix cannot hide a pool.
  // Memory: the window is kept as one entry per unit, at most max(poolWindowChars, poolWindowUnits).
  poolWindowChars: {
    default: 1024, min: 64, max: 65536, integer: true,
    description: 'Size (chars of normalised units) of the recent reasoning/text window the phrase-pool ratios are measured over.',
  },
  // A pool is only evidence once each unit has been seen 4 times (poolMinConcentration), so the window
  // must hold 4 × K sightings of a K-unit pool whatever the units' length: the e2e's 5-sentence pool of
  // ~52-char lines needs 20, and 1,024 chars held only ~19 (it tripped 7,453 chars in, by chance).
  // 32 covers pools of up to 8 distinct units of any length (and more of short units, which 1,024
  // chars already hold). It is the floor the corpus allows: at 36, napi.h's
  // overload lists (10–11 distinct lines, a fixed skeleton with varying slots, concentration 3.7–4.0
  // over 37–44 lines) trip; at 32 nothing does. The tool side keeps a char window (files' lines repeat legitimately).
  poolWindowUnits: {
    default: 32, min: 1, max: 4096, integer: true,
    description: 'The recent reasoning/text window of the phrase-pool rule also reaches back at least this many units (lines or sentences), so a pool of long sentences fits in it.',
  },
  // Config files, CSV and generated tables repeat many lines; the tool side wants a bigger, purer pool.
  // A 256-row lookup table written through a tool call holds 9.5 K of identical rows
  // (normal-shapes.mjs); at 12,288 cldr-core's dayPeriods.json trips, and still does at 14,336 (a
  // known trip, docs/detector.md#known-limits-re-measured); the stretch judged spans the whole window.
  toolPoolMinRepeatedChars: {
    default: 14336, min: 0, max: 262144, integer: true,
    description: 'Repeated phrase mass (chars) in the recent tool-argument window that trips the phrase-pool rule; 0 turns it off for tool arguments.',
  },
  toolPoolWindowChars: {
    default: 16384, min: 64, max: 262144, integer: true,
    description: 'Size (chars of normalised units) of the recent tool-argument window the phrase-pool ratios are measured over.',
  },
  // Normal prose reuses wording ("Let me check") but most of it is new; a pool tends to 1.0. Over a
  // 1,024-char window, structured code (a colour-space union in lightningcss' ast.d.ts, overload lists in
  // @types/node) reaches 0.6 with concentration 4.x; at 0.7 the corpus has no window with
  // concentration ≥ 4, and a pool is still cut within ~1,100 chars after a long prefix.
  poolMinCoverage: {
    default: 0.7, min: 0, max: 1, integer: false,
    description: 'Share of the window that must be repetition of earlier units before the phrase-pool rule trips.',
  },
  // Sightings per distinct unit: real pools dsh-loop-guard measured 7.2–23, a block quoted twice
  // (before/after) 1.4–2.5; 4 sits between with ~1.6× margin each side.
  // A 26-phrase pool (dsh-loop-guard's reported visible-text vocabulary) only reaches ~4 inside 1,024 chars, so 4 is
  // also the ceiling for reasoning and text. It sets the latency: a pool of K units needs 4 × K sightings.
  poolMinConcentration: {
    default: 4, min: 0, max: 1000, integer: false,
    description: 'Average sightings per distinct unit in the reasoning/text window (a block quoted twice gives ~2; a pool 4+).',
  },
  // Source files repeat structure heavily (overloads in @types/node, napi.h, an HTML tokenizer's
  // switch): up to 5.x sightings per line inside 8 KiB with coverage ≥ 0.6; a pool written into a file
  // sees each phrase dozens of times there.
  toolPoolMinConcentration: {
    default: 8, min: 0, max: 1000, integer: false,
    description: 'Average sightings per distinct unit in the tool-argument window before the phrase-pool rule trips.',
  },

  // ── novelty: the recent text is made of grams already seen twice (novelty.ts) ───────────────────
  // Levels of evidence: the more of the window is familiar, the shorter the run that must hold it.
  // 1,536: a correct long trace re-checks a sequence it wrote before (a crossing or a pour replayed, an
  // answer restated) in familiar runs of up to ~1,300 chars at 0.95 (real-output corpus). The window gate
  // (noveltyPlainMinShare) keeps most of them from this level already, so 896 trips no more on the
  // corpus (docs/corpus-findings.md); 1,536 keeps the margin for models the corpus does not hold. A
  // sentence with a counter, a template token or a changing id is ~1.0 familiar from its third copy on,
  // so it is still cut within about 2,000 chars of its onset.
  noveltyMinSpan: {
    default: 1536, min: 0, max: 262144, integer: true,
    description: 'Length (chars) of a mostly-prose reasoning/text stretch made of familiar word grams (seen twice before, with counters, ids and times masked) that trips the novelty rule; 0 turns it off for reasoning and text.',
  },
  // Prose lines holding several changing values (a retry line: request id, time, status) are half-way to
  // log lines, which are data: twice the prose span.
  noveltySlottedMinSpan: {
    default: 2048, min: 16, max: 262144, integer: true,
    description: 'The same, for a stretch made mostly of prose lines holding several changing values (request ids, times, statuses).',
  },
  // Data repeats legitimately, so only length tells: the corpus holds data and code runs 0.97 familiar
  // over 24.6 K (bulma's generated grid classes, babel's browser tables), a 256-row lookup table of
  // identical rows spans 17.3 K (shapes.mjs); 32 K is past both (the old near-pool data mass).
  noveltyDataMinSpan: {
    default: 32768, min: 16, max: 262144, integer: true,
    description: 'The same, for a reasoning/text stretch that looks like data or quoted tool output (log lines, table rows, code).',
  },
  toolNoveltyMinSpan: {
    default: 32768, min: 0, max: 262144, integer: true,
    description: 'Length (chars) of a familiar stretch of tool arguments (files: all data) that trips the novelty rule; 0 turns it off for tool arguments.',
  },
  // A run is a stretch whose every 512-char window is familiar: long enough that one novel sentence does
  // not break a frame loop, short enough that the run begins within a window of the loop's onset.
  noveltyWindowChars: {
    default: 512, min: 16, max: 1024, integer: true,
    description: 'The recent stretch (chars) whose share of familiar grams says whether the text is familiar now; a familiar run lasts while it is.',
  },
  noveltyMinCoverage: {
    default: 0.95, min: 0, max: 1, integer: false,
    description: 'Share of the window\'s word chars that must be in familiar grams (a gram seen once counts half) for the strongest level, held over noveltyMinSpan.',
  },
  // A frame whose one word changes keeps 0.75-0.85 of its grams familiar. Since new material ends a run
  // (noveltyNewMaterialShare), no prose run of the corpus holds 0.7 over 768 chars (dev/corpus-sweep.mjs;
  // 1,230 before, the licence bundles): 1,024 keeps a third over it and cuts a frame ~1,000-1,300 chars
  // after onset.
  noveltyMiddleMinCoverage: {
    default: 0.7, min: 0, max: 1, integer: false,
    description: 'A lower share of familiar word chars in the window that trips the novelty rule when it holds over a mostly-prose run of noveltyMiddleMinSpan (a frame whose one word changes).',
  },
  noveltyMiddleMinSpan: {
    default: 1024, min: 16, max: 262144, integer: true,
    description: 'Length (chars) of the mostly-prose run that must hold noveltyMiddleMinCoverage.',
  },
  // Paraphrase and a decision circled with the same openings and tails stay at 0.6-0.75 (their word
  // combinations keep changing); no prose run of the corpus holds 0.6 over 1,024 chars once new
  // material ends runs (1,400 before): 1,280 keeps a quarter over it.
  noveltyWeakMinCoverage: {
    default: 0.6, min: 0, max: 1, integer: false,
    description: 'A lower share of familiar word chars in the window that also trips the novelty rule when it holds over a mostly-prose run of noveltyWeakMinSpan.',
  },
  noveltyWeakMinSpan: {
    default: 1280, min: 16, max: 262144, integer: true,
    description: 'Length (chars) of the mostly-prose run that must hold noveltyWeakMinCoverage (paraphrase, a decision circled with the same openings and tails).',
  },
  // The echo level (plain sentences whose material comes straight back, a gram seen once enough) is
  // off: on real model output it cuts correct answers that state one fact per sentence in one frame (a
  // logic puzzle's solution, a knights-and-knaves case list) far more often than a loop; the weak level
  // cuts a paraphrase pool or a decision circled later (docs/detector.md, Latency targets). Set it to
  // 512 to try it on a session (`--set`).
  noveltyEchoMinSpan: {
    default: 0, min: 0, max: 262144, integer: true,
    description: 'Length (chars) of a run of plain sentences (words alone) made of grams seen before, once is enough, that trips the novelty rule\'s echo level in reasoning/text; 0 turns the echo level off.',
  },
  noveltyEchoMinShare: {
    default: 0.5, min: 0, max: 1, integer: false,
    description: 'Share of the window\'s word chars in grams seen before (once is enough) at the echo level.',
  },
  noveltyEchoMaxPeriod: {
    default: 400, min: 1, max: 262144, integer: true,
    description: 'The echo level counts only material that comes back from within this many chars (the geometric mean of its grams\' distances back).',
  },
  // A passage said twice in a row makes a familiar run of one period (its second copy): 2.5 periods let
  // it through with a margin (fastq's README, a few plain sentences repeated under each API entry,
  // reaches 2 periods); a pool goes on.
  noveltyEchoMinPeriods: {
    default: 2.5, min: 0, max: 64, integer: false,
    description: 'An echo run must also last this many times the distance back to where its material was seen before.',
  },
  // Nine tenths: documentation's repeated sentences sit between headings, links and code spans (an API
  // reference whose entries share a sentence), and real model output that tracks a state round by round
  // (a move list, a hand of cards, a table of cases) holds numbers and marks in most lines; a loop of
  // sentences is sentences, or lines said again word for word, an odd line aside.
  noveltyPlainMinShare: {
    default: 0.9, min: 0, max: 1, integer: false,
    description: 'Share of the window\'s chars in plain sentences (words alone: no number, markup or syntax), or in units said again word for word, that the middle, weak and echo levels need in reasoning/text.',
  },
  // Generated JSON and CSS records keep 0.97 of their grams familiar for 24 K and more (their names and
  // values change); a loop of rows that differ only in an index stays at 1.0.
  noveltyDataMinCoverage: {
    default: 0.98, min: 0, max: 1, integer: false,
    description: 'Share of the window\'s word chars in familiar grams at the data level (text that looks like data or quoted tool output, and the tool side), held over noveltyDataMinSpan.',
  },
  // A loop writes its rows in the order it wrote them before; data draws the same few rows in any
  // order (a CSV of categories, a parser's stress sample). Measured: rows with an incrementing index,
  // A-B-A-B, A-B-B and a function re-emitted under a new number follow their two predecessors as last
  // time in every window once a round was seen (every loop shape is still cut at 1); two rows drawn at
  // random, about half the time: papaparse's verylong-sample.csv, cut at the data span without this
  // check, passes even at 0.5 (test/detector/novelty.test.ts, dev/shape-sweep.mjs).
  noveltyDataMinOrder: {
    default: 0.75, min: 0, max: 1, integer: false,
    description: 'At the data level, the share of the window\'s word chars (among units whose two predecessors were seen together before) in units that follow them as they did last time: a loop keeps its order, data draws its rows in any order; 0 turns the check off.',
  },
  // A passage quoted a few times over is told from a loop by how many periods it lasts: a licence file
  // that bundles the MIT licence five times (~1.4 K apart) passes at 3.5, and a passage quoted four
  // times, each under its own header, passes (test/detector/novelty.test.ts).
  noveltyMinPeriods: {
    default: 3.5, min: 0, max: 64, integer: false,
    description: 'A familiar run must also last this many times the distance back to where its material was seen before (a long passage quoted a few times over is not a loop).',
  },
  // New material ends a familiar run only when what repeats comes back from far: a document of
  // sections copied under their own headers (sass's bundle of one BSD licence 31 times, each under
  // the names of the packages it covers, ~1.6 K apart; qs's changelog repeating backported entries,
  // ~1.7 K; eslint's message templates, ~0.8 K, each with a sentence and a link of its own). A
  // paraphrase pool and a decision circled bring new wordings too (0.75-1.0 of a unit new) but their
  // material comes round within a few hundred chars (test/detector/shape-sweep.test.ts).
  noveltyNewMaterialShare: {
    default: 0.5, min: 0, max: 1, integer: false,
    description: 'Share of a unit\'s word chars in grams never seen before that makes it new material: new material ends a familiar run whose material comes back from noveltyNewMaterialMinPeriod chars or more (a document of sections, each under its own header); 0 turns this off.',
  },
  noveltyNewMaterialMinPeriod: {
    default: 1024, min: 0, max: 262144, integer: true,
    description: 'Distance (chars) back to where the familiar material was seen before from which a unit of new material ends the familiar run (shorter: a paraphrase pool\'s new wording, which does not).',
  },
  // A pool of 20 sentences of 300 chars comes round every ~1,200 English tokens (6,000 Chinese ones);
  // twice that fits, and the gram table (32 K slots) holds it.
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
  // "哈哈哈" and "| --- | --- |" are one or two distinct tokens: laughter and dividers, not loops.
  tokenPeriodMinDistinct: {
    default: 3, min: 1, max: 256, integer: true,
    description: 'Minimum distinct tokens in a repeated block (so "哈哈哈" or a table divider is not a loop).',
  },

  // ── symbol run: one punctuation mark, symbol, emoji or one-letter token repeated ─────────────────
  // Units fall in two classes (symbol-run.ts): those that never run long in real writing (sentence
  // punctuation, emoji, letters, CJK characters, two letters alternating) and those that do
  // (dividers, padding, closers of nested code, laughter). Measured on the false-trip corpus (20,128
  // documents) with white space between allowed: the first class's longest run is 128 chars ('A' in a
  // generated bundle, '�' in a codepage table); the second's 437 ('-' under a README heading), and the
  // normal shapes hold a 1,200-char rule of '-' and 600 chars of 哈. 256 is 2 × 128 and cuts a run of
  // '!' or '。' within 256 + stride + one delta of its onset (≤ 350 at 64-char deltas, the 400 target).
  symbolRunMinChars: {
    default: 256, min: 0, max: 1048576, integer: true,
    description: 'Length (chars) of a run of one punctuation mark, emoji, letter or CJK character, or of two letters alternating (white space between allowed), that trips the symbol-run rule in reasoning/text; 0 turns it off for reasoning and text.',
  },
  // Dividers and laughter are written long on purpose: 1,536 clears the normal shapes' 1,200-char rule
  // (and 3.5 × the corpus's 437), and such a run is still cut within 1,650 chars.
  dividerRunMinChars: {
    default: 1536, min: 0, max: 1048576, integer: true,
    description: 'Length (chars) of a run of a divider, padding, bracket or laughter unit (- = _ * # ~ ─ · 0 } 哈 w) that trips the symbol-run rule in reasoning/text; 0 lets such runs through.',
  },
  // Files hold more of everything, but the corpus's tool pass (JSON-escaped, backslashes transparent)
  // peaks at 181 chars for the first class (a regex's `\\b\\b\\b`, read as 'b'); 2,048 is 11 × that and cuts
  // within 2,150 chars at 64-char deltas (the 2,400 target).
  toolSymbolRunMinChars: {
    default: 2048, min: 0, max: 1048576, integer: true,
    description: 'Length (chars) of a run of one punctuation mark, emoji, letter or CJK character, or of two letters alternating, in tool arguments that trips the symbol-run rule; 0 turns it off for tool arguments.',
  },
  // Files pad with one char (rules of '=', '#' banners, zero-filled blocks, 308 chars of '*' framing a
  // licence in the corpus) more than prose does.
  toolDividerRunMinChars: {
    default: 4096, min: 0, max: 1048576, integer: true,
    description: 'Length (chars) of a run of a divider, padding, bracket or laughter unit in tool arguments that trips the symbol-run rule; 0 lets such runs through.',
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
  // dsh-loop-guard's value, calibrated there on 4,628 real calls (1,005 with reasoning ≥ 2,048 chars); shorter
  // calls neither count nor reset, so a quick "OK" between two long stalls does not hide them.
  minReasoningChars: {
    default: 2048, min: 1, max: 10000000, integer: true,
    description: 'Reasoning shorter than this (chars) neither counts as a stalled call nor resets the count.',
  },
  similarityThreshold: {
    default: 0.8, min: 0, max: 1, integer: false,
    description: 'Share of a call\'s distinct character 4-grams found in the previous call\'s reasoning that makes it a restatement; 0 turns restatement detection off.',
  },
  // A bound on the judge's memory and time: it used to hash every 4-gram of a call's reasoning and keep
  // all of the previous call's (a 2 MB reasoning: ~100 ms and a set of every distinct 4-gram, per
  // agent). A restating call re-derives what it just wrote, which shows in its latest reasoning, so the
  // last N chars of each call are compared. 16,384 = 8 × minReasoningChars: every call up to 16k chars
  // is still compared whole, exactly as before; the remembered set holds at most N 4-grams.
  callJudgeWindowChars: {
    default: 16384, min: 64, max: 1048576, integer: true,
    description: 'Restatement is measured between the last this-many chars of each long call\'s reasoning (minReasoningChars still counts the whole reasoning); bounds the judge\'s memory and time.',
  },

  // A model recaps its plan before the next piece of work; the recap restates the previous call and
  // the work after it is new. 1,024 chars is a paragraph or two of new work, and half of
  // minReasoningChars: a call that only restates stays a restatement from end to end.
  restatementTailChars: {
    default: 1024, min: 64, max: 1048576, integer: true,
    description: 'A call counts as restating the previous one only if its last this-many chars of reasoning are restated too (restated material with new work after it is progress).',
  },

  // ── cross-step repeat (StepJudge, see docs/judges.md) ──────────────────────────────────────────────
  maxRepeatedSteps: {
    default: 3, min: 0, max: 1000, integer: true,
    description: 'The same step (its tool calls, or its normalised text when it makes none) this many times in a row, with no tool result showing progress or a running job, is reported; 0 turns it off.',
  },
  // A-B-A-B-A-B: each of the two steps seen three times, the same evidence as three identical steps.
  // Longer cycles need two full turns at least (A-B-C-A-B-C: 6 steps; A-B-C-D-A-B-C-D: 8).
  maxAlternatingSteps: {
    default: 6, min: 0, max: 1000, integer: true,
    description: 'Steps going round a cycle of 2 to maxStepCycleLength forms (A-B-A-B..., A-B-C-A-B-C...) this many in a row, and two full cycles at least, are reported; 0 turns cycles off.',
  },
  // Agents stuck in a cycle go round 2–4 steps (edit, run, read the same error); a longer "cycle" is
  // a workflow, and every extra length costs 2 × length steps of history.
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
