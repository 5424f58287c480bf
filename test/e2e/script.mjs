/**
 * The model's side of the e2e story, shared by the scripted adapter (`scripted-model.mjs`) and the
 * 127.0.0.1 DeepSeek endpoint (`deepseek-endpoint.mjs`), so both flows stream the same loop and expect
 * the same answer: the endless loops a model falls into (a seeded phrase-pool loop, and a counter loop
 * that never repeats verbatim), the normal answer given once the plugin has spoken, the answer to the
 * follow-up prompt that continues the session, and the short title an auxiliary call gets.
 */

import { random } from '../fixtures/detector/corpus.mjs'

export const NORMAL_ANSWER = 'Done: the build script now runs the tests before packing.'
export const TITLE = 'Build script test step'
/** The prompt that continues a cut session through the web API, and the model's answer to it. */
export const FOLLOW_UP_TASK = 'Also run the linter before the tests.'
export const FOLLOW_UP_ANSWER = 'Done: the linter now runs before the tests.'

// Sentences of a plan the model keeps restating in a new order: the shape of a phrase-pool loop
// (a small vocabulary reshuffled), not an exact cycle, so no periodic rule can claim it first.
const POOL = [
  'Let me check the build script once more before changing it.\n',
  'The tests should run before the package is packed.\n',
  'I will open package.json and look at the scripts section again.\n',
  'First I need to confirm which command packs the package.\n',
  'Then I can add the test step in front of it.\n',
]

/** The endless loop, one pool sentence at a time, never the same sentence twice in a row. */
export function* phrasePoolLoop() {
  const draw = random(20260829)
  let previous = -1
  for (;;) {
    let next = Math.floor(draw() * (POOL.length - 1))
    if (previous >= 0 && next >= previous) next++
    previous = next
    yield POOL[next]
  }
}

// A useful start, so the cut has something to keep and the loop is not the whole answer.
const COUNTER_PROLOGUE = [
  'The build script lives in package.json under "scripts", and "pack" calls tsup and then npm pack. ',
  'Nothing runs the tests on the way, so a broken build can be packed and published. ',
  'The smallest change is a "prepack" script: npm runs it before every pack, and it can run vitest first.\n',
]
const VERBS = ['re-check', 'verify', 'inspect', 'review']
const clock = (seconds) => [Math.floor(seconds / 3600), Math.floor(seconds / 60) % 60, seconds % 60]
  .map((part) => String(part).padStart(2, '0')).join(':')

/**
 * The endless loop a model falls into when it narrates the same step again and again: the step number
 * and the time move on every line and the verb cycles through synonyms, so no line is ever repeated
 * verbatim and only the novelty rule (numbers masked, word 3-grams) sees that nothing new is said.
 * One sentence at a time, after the prologue.
 */
export function* counterLoop() {
  yield* COUNTER_PROLOGUE
  for (let step = 14; ; step++) {
    yield `Step ${step} (${clock(9 * 3600 + 41 * 60 + 7 * step)}): I will ${VERBS[step % VERBS.length]} the build script and run the tests again before packing.\n`
  }
}

/** Steps in one round of `roundsLoop`. */
const ROUND_STEPS = 12

/**
 * The counter loop's lines, round after round: the step number and the time wrap around after twelve
 * steps, so each round is the last one again, character for character. The near-repetition rule cuts it
 * within the first round and a half; with the text side on `verbatim` only the cycle rule can, after two
 * and a half rounds: a profile's guard moves the cut later and changes its rule.
 */
export function* roundsLoop() {
  yield* COUNTER_PROLOGUE
  for (let line = 0; ; line++) {
    const step = 14 + (line % ROUND_STEPS)
    yield `Step ${step} (${clock(9 * 3600 + 41 * 60 + 7 * step)}): I will ${VERBS[step % VERBS.length]} the build script and run the tests again before packing.\n`
  }
}

/** The loop a scripted model streams, by the model id the e2e's overlay patch gives it. */
export const LOOPS = { 'e2e-phrase-pool': phrasePoolLoop, 'e2e-counter-loop': counterLoop, 'e2e-rounds-loop': roundsLoop, 'e2e-loop-every-call': phrasePoolLoop }

/** The models that loop on every call, the plugin's notices notwithstanding (the e2e's bounded step). */
export const LOOPS_ON_EVERY_CALL = new Set(['e2e-loop-every-call'])
