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
import { isJudgedFinish } from '../detector/index.ts'
import type { Trip } from '../detector/index.ts'
import { CompletedCallCollector } from './completed-call.ts'
import type { CompletedCall } from './completed-call.ts'
import { ContinuationHold } from './continuation-hold.ts'
import { OpenBlocks, deltaText, sideOfDelta } from './open-blocks.ts'
import type { TrimMarker } from './open-blocks.ts'

/** The part of a detector the wrapper uses (the real one is the detector's `StreamDetector`). */
export interface CallDetector {
  push(side: Trip['side'], delta: string): Trip | undefined
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

type Cut = Extract<TripDecision, { cut: true }>
type Finish = Extract<StreamChunk, { type: 'finish' }>

/** Guard one model call's stream: see the module comment. */
export function guardStream(upstream: AsyncIterable<StreamChunk>, hooks: GuardHooks): AsyncIterableIterator<StreamChunk> {
  return new GuardedStream(upstream[Symbol.asyncIterator](), hooks)
}

/**
 * A hand-written async iterator rather than an async generator: it costs one promise per chunk (the
 * upstream's, mapped), where a generator layer costs several. Every promise counts: dsh-agent's
 * AsyncLocalStorage makes Node run JavaScript hooks for each one (about a tenth of a 4 MB answer's CPU
 * samples), and the loop makes 10 per chunk without this wrapper, 11 with it (counted with an
 * async_hooks init hook on the bench's in-process path).
 */
class GuardedStream implements AsyncIterableIterator<StreamChunk> {
  private readonly iterator: AsyncIterator<StreamChunk>
  private readonly hooks: GuardHooks
  private readonly blocks = new OpenBlocks()
  private readonly collector: CompletedCallCollector
  private readonly hold: ContinuationHold
  /** Chunks are fed to the detector and the collector until a trip, the finish or a failure. */
  private watching = true
  private upstreamDone = false
  private finished = false
  /** Chunks to hand out before pulling upstream again: the closing chunks of a cut, or released held chunks. */
  private queue: StreamChunk[] | undefined
  /** The plugin's reaction, run once the consumer has taken the last chunk (or stopped reading). */
  private after: (() => void) | undefined

  constructor(iterator: AsyncIterator<StreamChunk>, hooks: GuardHooks) {
    this.iterator = iterator
    this.hooks = hooks
    this.collector = new CompletedCallCollector(hooks.reasoningTailChars)
    this.hold = new ContinuationHold(hooks.lengthMarker)
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<StreamChunk> {
    return this
  }

  next(): Promise<IteratorResult<StreamChunk>> {
    if (this.finished) return Promise.resolve(DONE)
    if (this.queue !== undefined) {
      const chunk = this.queue.shift()
      if (this.queue.length === 0) this.queue = undefined
      if (chunk !== undefined) return Promise.resolve({ done: false, value: chunk })
    }
    if (this.upstreamDone) return Promise.resolve(this.finish())
    return this.iterator.next().then(this.onResult, this.onError)
  }

  return(): Promise<IteratorResult<StreamChunk>> {
    return Promise.resolve(this.finish())
  }

  // Created once: a closure per chunk would be one more allocation on the hottest path.
  private readonly onResult = (result: IteratorResult<StreamChunk>): IteratorResult<StreamChunk> | Promise<IteratorResult<StreamChunk>> => {
    if (result.done) {
      this.upstreamDone = true
      const held = this.hold.release()
      if (held !== undefined) this.enqueue(held)
      return this.queue === undefined ? this.finish() : this.next()
    }
    if (this.watching && !this.inspect(result.value)) return this.next()
    return result
  }

  private readonly onError = (error: unknown): never => {
    this.upstreamDone = true
    this.finish()
    throw error
  }

  /**
   * Observe the chunk; false when it is not to be handed out now (held back, or queued after others).
   * A delta after held chunks means the call went on: they go out first, then the delta, then the closing
   * chunks if it trips.
   */
  private inspect(chunk: StreamChunk): boolean {
    let earlier: StreamChunk[] | undefined
    try {
      if (chunk.type === 'finish') return this.end(chunk)
      if (this.hold.holding && sideOfDelta(chunk) !== undefined) earlier = this.hold.release()
      if (this.hold.holds(chunk)) {
        this.observe(chunk)
        this.hold.add(chunk)
        return false
      }
      const cut = this.observe(chunk)
      return this.handOut(earlier, chunk, cut === undefined ? undefined : this.close(cut.trip, cut.decision))
    } catch (error) {
      this.watching = false
      this.hooks.onFailure(error)
      return this.handOut(earlier ?? this.hold.release(), chunk, undefined)
    }
  }

  /**
   * The call's finish: the judges see the completed call, and a `max-tokens` finish the plugin continues
   * is replaced by a legal one, the tool call the limit cut closed with the length marker.
   */
  private end(chunk: Finish): boolean {
    this.watching = false
    const kind = chunk.reason.kind
    if (!isJudgedFinish(kind)) return this.handOut(this.hold.release(), chunk, undefined)
    const cutToolCall = kind === 'max-tokens' ? this.hold.cutToolCall() : undefined
    const completion = this.hooks.onComplete(this.collector.call, { kind, cutToolCall: cutToolCall && { id: cutToolCall.id, name: cutToolCall.name } })
    this.after = completion?.after
    const continueAs = kind === 'max-tokens' ? completion?.continueAs : undefined
    if (continueAs === undefined) return this.handOut(this.hold.release(), chunk, undefined)
    this.enqueue([...this.hold.releaseClosing(cutToolCall), { type: 'finish', reason: { kind: continueAs } }])
    return false
  }

  /**
   * Hand `chunk` out now, `behind` queued after it; or, when `earlier` chunks were held, queue them, then
   * `chunk`, then `behind`, and report that `chunk` is not handed out now.
   */
  private handOut(earlier: StreamChunk[] | undefined, chunk: StreamChunk, behind: StreamChunk[] | undefined): boolean {
    if (earlier === undefined) {
      if (behind !== undefined) this.enqueue(behind)
      return true
    }
    this.enqueue([...earlier, chunk, ...behind ?? []])
    return false
  }

  private enqueue(chunks: StreamChunk[]): void {
    this.queue = this.queue === undefined ? chunks : [...this.queue, ...chunks]
  }

  private finish(): IteratorReturnResult<undefined> {
    if (this.finished) return DONE
    this.finished = true
    if (!this.upstreamDone) this.closeUpstream()
    if (this.after !== undefined) {
      try {
        this.after()
      } catch (error) {
        this.hooks.onFailure(error)
      }
    }
    return DONE
  }

  /**
   * Track the chunk and return the cut to make when it trips the detector and the plugin acts on it.
   * A trip while a block of a type the ledger cannot close is open waits: the detector repeats its
   * trip on every later delta, so the cut happens at the first delta after that block closed.
   */
  private observe(chunk: StreamChunk): { trip: Trip; decision: Cut } | undefined {
    const side = sideOfDelta(chunk)
    const text = side === undefined ? '' : deltaText(chunk)
    this.blocks.observe(chunk, side, text)
    if (chunk.type === 'block-end') this.collector.collect(chunk.block)
    if (side === undefined || text.length === 0) return undefined
    const trip = this.hooks.detector.push(side, text)
    if (trip === undefined || !this.blocks.closable()) return undefined
    this.watching = false
    const decision = this.hooks.onTrip(trip, this.blocks.loopChars(trip.side, trip.loopStart))
    return decision.cut ? { trip, decision } : undefined
  }

  /** Cut the call at a trip: the provider request is stopped, and every open block closed legally. */
  private close(trip: Trip, decision: Cut): StreamChunk[] {
    this.closeUpstream()
    this.after = decision.afterCut
    const trim = decision.trimHistory ? { side: trip.side, loopStart: trip.loopStart } : undefined
    return [...this.blocks.close(trim, this.hooks.marker), { type: 'finish', reason: { kind: 'stop' } }]
  }

  /** Stop the provider request without waiting on it: a slow or failing close must not hold the cut. */
  private closeUpstream(): void {
    this.upstreamDone = true
    try {
      Promise.resolve(this.iterator.return?.()).catch(() => {})
    } catch {
      // A synchronous throw from return() leaves nothing to close.
    }
  }
}
