/**
 * The model's side of the e2e story, shared by the scripted adapter (`scripted-model.mjs`) and the
 * 127.0.0.1 DeepSeek endpoint (`deepseek-endpoint.mjs`), so both flows stream the same loop and expect
 * the same answer: a seeded phrase-pool loop, the normal answer given once the plugin has spoken, the
 * answer to the follow-up prompt that continues the session, and the short title an auxiliary call gets.
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
