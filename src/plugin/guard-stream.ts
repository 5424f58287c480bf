/**
 * The `llm/stream` wrapper for one model call: every chunk passes through in order, every
 * reasoning, text and tool-call delta is fed to the call's detector, and on a trip the call is cut with an
 * ending that is legal by DSH's stream grammar (close every open block, then `finish {kind:'stop'}`), after
 * the upstream iterator is returned so the provider request really closes. It knows nothing about agents:
 * what a trip means is decided by `onTrip`, and what to do afterwards runs once the consumer has taken the
 * closing chunks. A `max-tokens` finish the plugin continues (`onComplete`) is replaced by a legal one, so
 * the agent loop goes on instead of ending the turn (see docs/continuation-and-crop.md). It fails open: if
 * observing throws, the rest of the call streams on untouched.
 */
import type { StreamChunk } from '@deepseek-ai/dsh-llm'
import { STEP_TEXT_NON_WHITESPACE, isJudgedFinish } from '../detector/index.ts'
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

/**
 * How a call that was not cut ended, for `onComplete`: its finish kind and, for a `max-tokens` finish, the
 * tool call the length limit cut inside its arguments (the last tool call whose arguments do not parse).
 */
export interface CallEnd {
  kind: 'stop' | 'tool-calls' | 'max-tokens'
  cutToolCall: { id: string; name: string } | undefined
}

/**
 * The plugin's answer to a completed call: what to run once the finish was delivered, and, for a
 * `max-tokens` finish, the legal finish that replaces it so the agent loop continues the turn (a tool
 * call the limit cut is then closed with `lengthMarker`, so it fails validation and never runs).
 */
export interface Completion {
  after?: () => void
  continueAs?: 'stop' | 'tool-calls'
}

/** The plugin's answer to a trip: cut (with what to do once the cut is delivered) or let the call run. */
export type TripDecision = { cut: true; trimHistory: boolean; afterCut: () => void } | { cut: false }

export interface GuardHooks {
  detector: CallDetector
  /**
   * Decides what a trip does. `loopChars` is the call's text on the trip's side from `trip.loopStart` to
   * the cut, in the blocks still open (`OpenBlocks.loopChars`): exactly what a trimming cut removes, so
   * the marker, the notice, the log line and the record all give this one count.
   */
  onTrip(trip: Trip, loopChars: number): TripDecision
  /**
   * Runs when a call that was not cut ends with a non-error finish; what it returns runs once the
   * consumer has taken the finish.
   */
  onComplete(call: CompletedCall, end: CallEnd): Completion | undefined
  marker: TrimMarker
  /**
   * The marker that ends the arguments of a tool call cut by the length limit when the call is continued
   * (no quote in it, so the arguments never parse). Without it, tool-call ends are never held back.
   */
  lengthMarker?: string
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
  /** Chunks to hand out before pulling upstream again: the closing chunks of a cut, or released held chunks. */
  let queue: StreamChunk[] | undefined
  /**
   * A tool call's `block-end` whose arguments do not parse, and what followed it, held back until the
   * finish: if the finish is `max-tokens` and the call is continued, that tool call is closed with the
   * length marker. Providers end every block right before the finish, so this holds a few chunks.
   */
  let held: StreamChunk[] | undefined
  /** The plugin's reaction, run once the consumer has taken the last chunk (or stopped reading). */
  let after: (() => void) | undefined

  // Created once: a closure per chunk would be one more allocation on the hottest path.
  const onResult = (result: IteratorResult<StreamChunk>): IteratorResult<StreamChunk> | Promise<IteratorResult<StreamChunk>> => {
    if (result.done) {
      upstreamDone = true
      if (held !== undefined) release([])
      return queue === undefined ? finish() : guarded.next()
    }
    if (watching && !inspect(result.value)) return guarded.next()
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
      if (queue !== undefined) {
        const chunk = queue.shift()
        if (queue.length === 0) queue = undefined
        if (chunk !== undefined) return Promise.resolve({ done: false, value: chunk })
      }
      if (upstreamDone) return Promise.resolve(finish())
      return iterator.next().then(onResult, onError)
    },
    return() {
      return Promise.resolve(finish())
    },
  }
  return guarded

  /** Observe the chunk; false when it is not to be handed out now (held back, or queued after others). */
  function inspect(chunk: StreamChunk): boolean {
    try {
      if (held !== undefined) {
        if (chunk.type === 'finish') return end(chunk)
        if (sideOfDelta(chunk) !== undefined) {
          // More deltas: that tool call was not cut by the length limit. The held chunks go out first,
          // then this one, then the closing chunks if it trips (the queue is empty while chunks are held).
          const earlier = held
          held = undefined
          const closing = inspect(chunk) ? queue ?? [] : []
          queue = [...earlier, chunk, ...closing]
          return false
        }
      }
      if (held === undefined && chunk.type === 'block-end' && hooks.lengthMarker !== undefined && isUnparsedToolCallEnd(chunk)) held = []
      if (held !== undefined) {
        observe(chunk)
        held.push(chunk)
        return false
      }
      if (chunk.type === 'finish') return end(chunk)
      const cut = observe(chunk)
      if (cut === undefined) return true
      closeUpstream()
      after = cut.afterCut
      const trim = cut.trimHistory ? { side: cut.trip.side, loopStart: cut.trip.loopStart } : undefined
      queue = [...blocks.close(trim, hooks.marker), { type: 'finish', reason: { kind: 'stop' } } as StreamChunk]
      return true
    } catch (error) {
      watching = false
      hooks.onFailure(error)
      if (held === undefined) return true
      release([chunk])
      return false
    }
  }

  /** Queue the held chunks, then `more`, to be handed out in stream order. */
  function release(more: StreamChunk[]) {
    queue = [...(queue ?? []), ...(held ?? []), ...more]
    held = undefined
  }

  /**
   * The call's finish: the judges see the completed call, and a `max-tokens` finish the plugin continues
   * is replaced by a legal one, the tool call the limit cut closed with the length marker.
   */
  function end(chunk: Extract<StreamChunk, { type: 'finish' }>): boolean {
    watching = false
    const kind = chunk.reason.kind
    if (!isJudgedFinish(kind)) {
      if (held === undefined) return true
      release([chunk])
      return false
    }
    const cutToolCall = kind === 'max-tokens' ? lastUnparsedToolCall(held) : undefined
    const completion = hooks.onComplete(completed, { kind, cutToolCall: cutToolCall && { id: cutToolCall.id, name: cutToolCall.name } })
    after = completion?.after
    const continueAs = kind === 'max-tokens' ? completion?.continueAs : undefined
    if (continueAs === undefined) {
      if (held === undefined) return true
      release([chunk])
      return false
    }
    const closed = (held ?? []).map((held) => held.type === 'block-end' && held.block === cutToolCall
      ? { ...held, block: { ...cutToolCall, arguments: cutToolCall.arguments + hooks.lengthMarker } } as StreamChunk
      : held)
    held = undefined
    queue = [...(queue ?? []), ...closed, { type: 'finish', reason: { kind: continueAs } } as StreamChunk]
    return false
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
    if (side === undefined || text.length === 0) return undefined
    const trip = hooks.detector.push(side, text)
    if (trip === undefined || !blocks.closable()) return undefined
    watching = false
    const decision = hooks.onTrip(trip, blocks.loopChars(trip.side, trip.loopStart))
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

type ToolCallBlock = { type: 'tool-call'; id: string; name: string; arguments: string }

/** Whether the chunk ends a tool call whose arguments are not JSON (cut by a length limit, or malformed). */
function isUnparsedToolCallEnd(chunk: StreamChunk): boolean {
  return chunk.type === 'block-end' && chunk.block.type === 'tool-call' && !parses((chunk.block as ToolCallBlock).arguments)
}

function lastUnparsedToolCall(held: StreamChunk[] | undefined): ToolCallBlock | undefined {
  for (let i = (held?.length ?? 0) - 1; i >= 0; i--) {
    const chunk = held![i]!
    if (isUnparsedToolCallEnd(chunk)) return (chunk as Extract<StreamChunk, { type: 'block-end' }>).block as ToolCallBlock
  }
  return undefined
}

/** rc.8 reads empty arguments as `{}` (dsh-agent-loop `parseArguments`), so they parse too. */
function parses(json: string): boolean {
  if (json === '') return true
  try {
    JSON.parse(json)
    return true
  } catch {
    return false
  }
}

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
