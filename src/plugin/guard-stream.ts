/**
 * The `llm/stream` wrapper for one model call: every chunk passes through unchanged and in order, every
 * reasoning, text and tool-call delta is fed to the call's detector, and on a trip the call is cut with an
 * ending that is legal by DSH's stream grammar (close every open block, then `finish {kind:'stop'}`), after
 * the upstream iterator is returned so the provider request really closes. It knows nothing about agents:
 * what a trip means is decided by `onTrip`, and what to do afterwards runs once the consumer has taken the
 * closing chunks. It fails open: if observing throws, the rest of the call streams on untouched.
 */
import type { StreamChunk } from '@deepseek-ai/dsh-llm'
import type { Trip } from '../detector/index.ts'
import { OpenBlocks, deltaText, sideOfDelta } from './open-blocks.ts'
import type { TrimMarker } from './open-blocks.ts'

/** The part of a detector the wrapper uses (the real one is the detector's `StreamDetector`). */
export interface CallDetector {
  push(side: Trip['side'], delta: string): Trip | undefined
}

/**
 * What the cross-call and cross-step judges need of a call that ended by itself, assembled from its
 * `block-end`s and bounded whatever the call's length: the judges never see more than this.
 */
export interface CompletedCall {
  /** The last `reasoningTailChars` chars of the call's reasoning (all of it when shorter). */
  reasoning: string
  /** The length of the call's whole reasoning. */
  reasoningLength: number
  /** The head of the call's visible text that fixes its StepJudge identity (all of it when shorter). */
  text: string
  toolCalls: Array<{ name: string; arguments: string }>
}

/** The plugin's answer to a trip: cut (with what to do once the cut is delivered) or let the call run. */
export type TripDecision = { cut: true; trimHistory: boolean; afterCut: () => void } | { cut: false }

export interface GuardHooks {
  detector: CallDetector
  onTrip(trip: Trip): TripDecision
  /**
   * Runs when a call that was not cut ends with a non-error finish; what it returns runs once the
   * consumer has taken the finish.
   */
  onComplete(call: CompletedCall): (() => void) | undefined
  marker: TrimMarker
  /** How much of the reasoning's end `onComplete` receives (the cross-call judge's window). */
  reasoningTailChars: number
  /** Fail-open report, when observing or reacting throws; after an observing failure the call is only passed through. */
  onFailure(error: unknown): void
}

const DONE: IteratorReturnResult<undefined> = Object.freeze({ done: true, value: undefined })

/**
 * A hand-written async iterator rather than an async generator: it costs one promise per chunk (the
 * upstream's, mapped), where a generator layer costs several. Every promise counts: dsh-agent's
 * AsyncLocalStorage makes Node run JavaScript hooks for each one (about a tenth of a 4 MB answer's CPU
 * samples), and the loop makes 10 per chunk without this wrapper, 11 with it (counted with an
 * async_hooks init hook on the bench's in-process path).
 */
export function guardStream(upstream: AsyncIterable<StreamChunk>, hooks: GuardHooks): AsyncIterableIterator<StreamChunk> {
  const iterator = upstream[Symbol.asyncIterator]()
  const blocks = new OpenBlocks()
  const completed: CompletedCall = { reasoning: '', reasoningLength: 0, text: '', toolCalls: [] }
  let textHeadComplete = false
  let watching = true
  let upstreamDone = false
  let finished = false
  /** After a cut: the closing chunks still to hand out. */
  let closing: StreamChunk[] | undefined
  /** The plugin's reaction, run once the consumer has taken the last chunk (or stopped reading). */
  let after: (() => void) | undefined

  // Created once: a closure per chunk would be one more allocation on the hottest path.
  const onResult = (result: IteratorResult<StreamChunk>): IteratorResult<StreamChunk> => {
    if (result.done) {
      upstreamDone = true
      return finish()
    }
    if (watching) inspect(result.value)
    return result
  }
  const onError = (error: unknown): never => {
    upstreamDone = true
    finish()
    throw error
  }
  const guarded: AsyncIterableIterator<StreamChunk> = {
    [Symbol.asyncIterator]: () => guarded,
    next() {
      if (finished) return Promise.resolve(DONE)
      if (closing !== undefined) {
        const chunk = closing.shift()
        return Promise.resolve(chunk === undefined ? finish() : { done: false, value: chunk })
      }
      return iterator.next().then(onResult, onError)
    },
    return() {
      return Promise.resolve(finish())
    },
  }
  return guarded

  function inspect(chunk: StreamChunk) {
    try {
      const cut = observe(chunk)
      if (cut === undefined) return
      closeUpstream()
      after = cut.afterCut
      const trim = cut.trimHistory ? { side: cut.trip.side, loopStart: cut.trip.loopStart } : undefined
      closing = [...blocks.close(trim, hooks.marker), { type: 'finish', reason: { kind: 'stop' } } as StreamChunk]
    } catch (error) {
      watching = false
      hooks.onFailure(error)
    }
  }

  function finish(): IteratorReturnResult<undefined> {
    if (finished) return DONE
    finished = true
    if (!upstreamDone) closeUpstream()
    if (after !== undefined) {
      try {
        after()
      } catch (error) {
        hooks.onFailure(error)
      }
    }
    return DONE
  }

  /**
   * Track the chunk and return the cut to make when it trips the detector and the plugin acts on it.
   * A trip while a block of a type the ledger cannot close is open waits: the detector repeats its
   * trip on every later delta, so the cut happens at the first delta after that block closed.
   */
  function observe(chunk: StreamChunk) {
    const side = sideOfDelta(chunk)
    const text = side === undefined ? '' : deltaText(chunk)
    blocks.observe(chunk, side, text)
    if (chunk.type === 'block-end') collect(chunk.block)
    if (chunk.type === 'finish') {
      watching = false
      if (chunk.reason.kind !== 'error' && chunk.reason.kind !== 'aborted') after = hooks.onComplete(completed)
      return undefined
    }
    if (side === undefined || text.length === 0) return undefined
    const trip = hooks.detector.push(side, text)
    if (trip === undefined || !blocks.closable()) return undefined
    watching = false
    const decision = hooks.onTrip(trip)
    return decision.cut ? { trip, trimHistory: decision.trimHistory, afterCut: decision.afterCut } : undefined
  }

  function collect(block: any) {
    if (block.type === 'reasoning') {
      completed.reasoningLength += block.text.length
      completed.reasoning = appendTail(completed.reasoning, block.text, hooks.reasoningTailChars)
    } else if (block.type === 'text') {
      if (textHeadComplete) return
      const joined = completed.text + block.text
      const end = stepTextEnd(joined)
      textHeadComplete = end !== undefined
      // The StepJudge collapses white space runs anyway; collapsing them here bounds the head.
      completed.text = (end === undefined ? joined : joined.slice(0, end)).replace(WHITE_SPACE_RUN, ' ')
    } else if (block.type === 'tool-call') {
      completed.toolCalls.push({ name: block.name, arguments: block.arguments })
    }
  }

  /** Stop the provider request without waiting on it: a slow or failing close must not hold the cut. */
  function closeUpstream() {
    upstreamDone = true
    try {
      Promise.resolve(iterator.return?.()).catch(() => {})
    } catch {
      // A synchronous throw from return() leaves nothing to close.
    }
  }
}

/**
 * The StepJudge identifies a step without tool calls by the first 200 chars of its normalised text
 * (trimmed, lower-cased, white space collapsed, a filler opening of at most 7 chars dropped). Each normalised char but a
 * collapsed space comes from one non-white-space char, so a head holding 256 of them fixes those 200
 * chars whatever the white space, with margin for a case mapping that looks at the next char; so the
 * head is bounded: at most 256 such chars, and white space runs collapsed until it holds them.
 */
const STEP_TEXT_NON_WHITESPACE = 256

const NON_WHITE_SPACE = /\S/g
const WHITE_SPACE_RUN = /\s+/g

/** Where the head of `text` that fixes its step identity ends, or undefined when all of it is needed. */
function stepTextEnd(text: string): number | undefined {
  NON_WHITE_SPACE.lastIndex = 0
  for (let seen = 1; NON_WHITE_SPACE.exec(text) !== null; seen++) {
    if (seen === STEP_TEXT_NON_WHITESPACE) return NON_WHITE_SPACE.lastIndex
  }
  return undefined
}

/** The last `chars` chars of `kept + more`, without concatenating a long `more` first. */
function appendTail(kept: string, more: string, chars: number): string {
  if (more.length >= chars) return detached(more.slice(more.length - chars))
  const joined = kept + more
  return joined.length <= chars ? joined : detached(joined.slice(joined.length - chars))
}

/**
 * A copy of `text` that does not pin the string it was sliced from (V8 slices share their parent's
 * storage, which would keep the whole reasoning alive): slicing a concatenation flattens it first.
 */
function detached(text: string): string {
  return ` ${text}`.slice(1)
}
