/**
 * One session file analysed: read it once, replay every call under one or
 * more detector configs (the first is the reported one, the others count
 * breaks for a sweep), and set each verdict beside what the live plugin
 * recorded for that call. The shapes here are the analyzer's `--json` output.
 */
import { SessionReader } from './reader.ts'
import { SessionReplay } from './replay.ts'
import type { CallVerdict, DetectorModule } from './replay.ts'
import { WorkerReplayer } from './replay-worker.ts'
import type { CallVerdicts } from './replay-worker.ts'
import type { DeltaSide, PluginEvent, SessionCall, SessionFormat } from './types.ts'
import { isContinuationSummary } from '../message-source.ts'

/** One call of a file as the analyzer reports it: what it was, the replay's verdict, and what the plugin recorded or left. */
export interface AnalyzedCall {
  turn: number
  step: number
  attempt: number
  reasoningChars: number
  textChars: number
  /** UTF-16 length of the call's tool-call arguments. */
  toolChars: number
  /** Names of the call's tool calls. */
  toolCalls: string[]
  /** The stream's finish kind (`stop`, `tool-calls`, `error`, ...), or null when it never finished. */
  finish: string | null
  /** The replay's break under the reported config, or null. */
  break: CallVerdict['break']
  /** The replay's stall reason under the reported config, or null. */
  stall: CallVerdict['stall']
  /** The plugin's record for this call: `{type, ...data}` with `type` the record name `loop-breaker/break` or `loop-breaker/stall`. */
  recorded: ({ type: string } & Record<string, unknown>) | null
  /** Why part of the call may be missing (it spans a skipped frame of a damaged log), or null. */
  damaged: string | null
  /**
   * What the plugin left in the call's messages, which is all a log written without the journal says:
   * the side of the block it closed with its trim marker and the count the marker gives, and the summary
   * of the notice that followed; null when neither is there.
   */
  trace: CutTrace | null
  /** How the replay compares with what the plugin recorded or left; null when they agree or there is nothing to compare. */
  comparison: Comparison | null
  /** The call hit the output length limit: continued (`continue`, the count so far) or left to end the turn (`end`). */
  continuation: { action: string; count: number; cutToolCall: string | null } | null
  /** Repeated steps this call's request was first built without (see docs/continuation-and-crop.md). */
  crop: { steps: number; messages: number } | null
}

/** What a cut leaves in a call's messages, for a log written without the journal. */
export interface CutTrace {
  /** The side of the block the plugin closed with its trim marker, or null without a marker. */
  side: DeltaSide | null
  /** The count the trim marker gives, or null without a marker. */
  removedChars: number | null
  /** The summary of the loop-breaker notice that followed the call, or null. */
  notice: string | null
}

/**
 * `disagree`: replay and record differ. `cannot-judge`: the log ends where the live plugin cut (the stream
 * stops at the tripping delta), so a replay that does not trip by then cannot say where it would have.
 */
export interface Comparison {
  kind: 'disagree' | 'cannot-judge'
  message: string
}

/** One session file analysed: the analyzer's `--json` output for it. */
export interface FileAnalysis {
  file: string
  format: SessionFormat
  calls: AnalyzedCall[]
  /** Read damage, one message each (the file was not read fully when non-empty). */
  errors: string[]
  /** Per extra config (sweep), in order: breaks and stalls found over this file. */
  sweep: Array<{ breaks: number; stalls: number }>
  /** Records and chunks skipped, by type. */
  skipped: Record<string, number>
  /** Whether the log holds any loop-breaker record or trace, i.e. the plugin was running when it was written. */
  pluginActive: boolean
  /** The file is not a session log at all (its one error says so). */
  notASession: boolean
}

/** How `analyzeFile` reports progress and where it replays. */
export interface AnalyzeOptions {
  /** Called with the number of file bytes consumed so far (for progress lines). */
  onProgress?: (bytesRead: number) => void
  /**
   * Replay on a worker thread, overlapping the detector with reading (about
   * twice as fast on two cores). Needs the URL of the detector module
   * (`lib/detector.js`); only from the built `lib/session.js`.
   */
  replayWorker?: { detectorUrl: string }
}

/** The replay of one file, in this thread or on a worker; verdicts per call come back in call order. */
interface Replayer {
  userMessage(): void
  submit(call: SessionCall): void | Promise<void>
  finish(): Promise<CallVerdicts[]>
}

class InThreadReplayer implements Replayer {
  private readonly replays: SessionReplay[]
  private readonly results: CallVerdicts[] = []
  constructor(detector: DetectorModule, configs: readonly object[]) {
    this.replays = configs.map((config) => new SessionReplay(detector, config))
  }
  userMessage(): void {
    for (const replay of this.replays) replay.userMessage()
  }
  submit(call: SessionCall): void {
    this.results.push(this.replays.map((replay) => replay.call(call)))
  }
  async finish(): Promise<CallVerdicts[]> {
    return this.results
  }
}

/**
 * Reads `file` once and replays it under `configs[0]` (reported) and every further config (counted).
 * @param file - the session log's path.
 * @param detector - the detector module to replay with (unused when `options.replayWorker` is set).
 * @param configs - the detector configs: the reported one first (at least one), then the sweep's.
 * @param options - progress callback, and the worker to replay on.
 * @returns the calls with their verdicts and comparisons, the read's damage, and the sweep's counts.
 * @throws what the replay throws: a detector config the detector refuses, or the worker's failure.
 * Damage and I/O errors do not throw: they are in the result's `errors`.
 */
export async function analyzeFile(file: string, detector: DetectorModule, configs: readonly object[], options: AnalyzeOptions = {}): Promise<FileAnalysis> {
  const reader = new SessionReader(file, { onProgress: options.onProgress })
  const replayer: Replayer = options.replayWorker
    ? new WorkerReplayer(options.replayWorker.detectorUrl, configs)
    : new InThreadReplayer(detector, configs)
  const calls: SessionCall[] = []
  let pluginActive = false
  for await (const item of reader) {
    if (item.kind === 'user-message') {
      replayer.userMessage()
      continue
    }
    if (item.kind === 'event') {
      pluginActive = true
      continue
    }
    const call = item.call
    if (call.recorded.length > 0 || call.trimmed !== undefined || call.notices.length > 0) pluginActive = true
    await replayer.submit(call)
    // Only the call's description is kept: its deltas and the tool results its request carried can go
    // once replayed. Kept, the results (about half of a log's bytes) made the reader's heap grow with
    // the log (to some 70 MB live on the 100 MB log of bench/session.bench.mjs, peak RSS +70 MB).
    calls.push({ ...call, deltas: [], previousResults: [] })
  }
  const verdicts = await replayer.finish()
  const sweep = configs.slice(1).map((_, index) => ({
    breaks: verdicts.filter((verdict) => verdict[index + 1]!.break !== null).length,
    stalls: verdicts.filter((verdict) => verdict[index + 1]!.stall !== null).length,
  }))
  const notASession = reader.issues.find((issue) => issue.kind === 'not-a-session')
  return {
    file,
    format: reader.format,
    calls: calls.map((call, index) => describe(call, verdicts[index]![0]!, pluginActive)),
    errors: notASession !== undefined
      // Whatever else went wrong (every line of a JSON file is malformed JSONL) follows from this one.
      ? [`${file}: not a DSH session log (${notASession.message.replace(/^not a session log \((.*)\)$/, '$1')})`]
      : reader.issues.map((issue) => `${file}: ${issue.message}`),
    sweep,
    skipped: Object.fromEntries(reader.skipped),
    pluginActive,
    notASession: notASession !== undefined,
  }
}

/**
 * How the replay compares with what the plugin recorded (its journal) or, without a journal, with the
 * traces a cut leaves (trim marker, notice): as far as those allow, the side and that a break happened.
 * @param call - the analysed call, verdict, record and trace filled in.
 * @param pluginActive - whether the plugin was running when the log was written (then silence is a verdict too).
 * @returns null when they agree or there is nothing to compare, else `disagree` or `cannot-judge` with a message.
 */
export function disagreement(call: Omit<AnalyzedCall, 'comparison'>, pluginActive: boolean): Comparison | null {
  const recorded = call.recorded
  if (recorded?.type === 'loop-breaker/break') {
    if (call.break === null) {
      const at = Number(recorded.at)
      if (sideChars(call, recorded.side) <= at) return cannotJudge(at)
      return disagree(`recorded a ${String(recorded.rule)} break the replay does not find`)
    }
    if (call.break.rule !== recorded.rule || call.break.side !== recorded.side || call.break.at !== recorded.at) {
      return disagree(`recorded ${String(recorded.rule)} ${String(recorded.side)}@${String(recorded.at)}, replay ${call.break.rule} ${call.break.side}@${call.break.at}`)
    }
    return null
  }
  if (recorded?.type === 'loop-breaker/stall') {
    return call.stall === recorded.reason ? null : disagree(`recorded stall ${String(recorded.reason)}, replay ${call.stall ?? 'none'}`)
  }
  const trace = call.trace
  if (trace !== null && isBreakTrace(trace)) {
    if (call.break === null) return cannotJudge(trace.side === null ? null : sideChars(call, trace.side))
    if (trace.side !== null && trace.side !== call.break.side) return disagree(`cut by the plugin on ${trace.side} (no journal), replay breaks on ${call.break.side}`)
    return null
  }
  if (trace?.notice != null) {
    const reason = trace.notice.replace(/^.*?[:：]\s*\w+:\s*/, '')
    return call.stall === reason ? null : disagree(`the plugin's notice reports stall ${reason} (no journal), replay ${call.stall ?? 'none'}`)
  }
  if (!pluginActive) return null
  if (call.break !== null) return disagree('replay breaks, the plugin recorded nothing')
  if (call.stall !== null) return disagree('replay stalls, the plugin recorded nothing')
  return null
}

function disagree(message: string): Comparison {
  return { kind: 'disagree', message }
}

function cannotJudge(at: number | null): Comparison {
  return { kind: 'cannot-judge', message: `cannot judge: the log ends at the cut${at === null ? '' : ` (at ${at})`}` }
}

/** A trim marker, or a notice about a break (`<rule> / <side> / <count>`; a stall's reads `<judge>: <reason>`). */
function isBreakTrace(trace: CutTrace): boolean {
  return trace.side !== null || (trace.notice !== null && trace.notice.includes(' / '))
}

function sideChars(call: Pick<AnalyzedCall, 'reasoningChars' | 'textChars' | 'toolChars'>, side: unknown): number {
  return side === 'reasoning' ? call.reasoningChars : side === 'text' ? call.textChars : call.toolChars
}

function describe(call: SessionCall, verdict: CallVerdict, pluginActive: boolean): AnalyzedCall {
  // A continuation notice follows a call the length limit cut, not a loop: it is no trace of a cut or a stall.
  const notice = call.notices.find((summary) => !isContinuationSummary(summary)) ?? null
  const described = {
    turn: call.turn,
    step: call.step,
    attempt: call.attempt,
    reasoningChars: call.reasoningChars,
    textChars: call.textChars,
    toolChars: call.toolChars,
    toolCalls: call.toolCalls.map((tool) => tool.name),
    finish: call.finish?.kind ?? null,
    break: verdict.break,
    stall: verdict.stall,
    recorded: recordedOf(call.recorded),
    damaged: call.damaged ?? null,
    trace: call.trimmed === undefined && notice === null
      ? null
      : { side: call.trimmed?.side ?? null, removedChars: call.trimmed?.removedChars ?? null, notice },
    continuation: continuationOf(call.recorded),
    crop: cropOf(call.recorded),
  }
  return { ...described, comparison: disagreement(described, pluginActive) }
}

function continuationOf(events: PluginEvent[]): AnalyzedCall['continuation'] {
  const data = events.find((event) => event.type === 'loop-breaker/continue')?.data as Record<string, any> | undefined
  if (data === undefined) return null
  return { action: String(data.action), count: Number(data.count), cutToolCall: typeof data.cutToolCall?.name === 'string' ? data.cutToolCall.name : null }
}

function cropOf(events: PluginEvent[]): AnalyzedCall['crop'] {
  const crops = events.filter((event) => event.type === 'loop-breaker/crop').map((event) => event.data as Record<string, any>)
  if (crops.length === 0) return null
  return {
    steps: crops.reduce((sum, data) => sum + Number(data.steps), 0),
    messages: crops.reduce((sum, data) => sum + (Array.isArray(data.messageIds) ? data.messageIds.length : 0), 0),
  }
}

function recordedOf(events: PluginEvent[]): AnalyzedCall['recorded'] {
  const event = events.find((candidate) => candidate.type === 'loop-breaker/break' || candidate.type === 'loop-breaker/stall')
  return event === undefined ? null : { type: event.type, ...event.data }
}
