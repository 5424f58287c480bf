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
import type { PluginEvent, SessionCall, SessionFormat } from './types.ts'

export interface AnalyzedCall {
  turn: number
  step: number
  attempt: number
  reasoningChars: number
  textChars: number
  /** Names of the call's tool calls. */
  toolCalls: string[]
  /** The stream's finish kind (`stop`, `tool-calls`, `error`, ...), or null when it never finished. */
  finish: string | null
  break: CallVerdict['break']
  stall: CallVerdict['stall']
  /** The plugin's recorded event for this call: `{type, ...data}` of `loop-breaker/break` or `/stall`. */
  recorded: ({ type: string } & Record<string, unknown>) | null
  /** The call hit the output length limit: continued (`continue`, the count so far) or left to end the turn (`end`). */
  continuation: { action: string; count: number; cutToolCall: string | null } | null
  /** Repeated steps this call's request was first built without (see docs/continuation-and-crop.md). */
  crop: { steps: number; messages: number } | null
}

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
  /** Whether the log holds any `loop-breaker/*` event, i.e. the plugin was running when it was written. */
  pluginActive: boolean
}

export interface AnalyzeOptions {
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

/** Reads `file` once and replays it under `configs[0]` (reported) and every further config (counted). */
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
    if (call.recorded.length > 0) pluginActive = true
    await replayer.submit(call)
    // Only the call's description is kept: its deltas can go once replayed.
    calls.push({ ...call, deltas: [] })
  }
  const verdicts = await replayer.finish()
  const sweep = configs.slice(1).map((_, index) => ({
    breaks: verdicts.filter((verdict) => verdict[index + 1]!.break !== null).length,
    stalls: verdicts.filter((verdict) => verdict[index + 1]!.stall !== null).length,
  }))
  return {
    file,
    format: reader.format,
    calls: calls.map((call, index) => describe(call, verdicts[index]![0]!)),
    errors: reader.issues.map((issue) => `${file}: ${issue.message}`),
    sweep,
    skipped: Object.fromEntries(reader.skipped),
    pluginActive,
  }
}

/** Whether the replay and the plugin's record disagree on this call (null: nothing to compare). */
export function disagreement(call: AnalyzedCall, pluginActive: boolean): string | null {
  const recorded = call.recorded
  if (recorded?.type === 'loop-breaker/break') {
    if (call.break === null) return `recorded a ${String(recorded.rule)} break the replay does not find`
    if (call.break.rule !== recorded.rule || call.break.side !== recorded.side || call.break.at !== recorded.at) {
      return `recorded ${String(recorded.rule)} ${String(recorded.side)}@${String(recorded.at)}, replay ${call.break.rule} ${call.break.side}@${call.break.at}`
    }
    return null
  }
  if (recorded?.type === 'loop-breaker/stall') {
    return call.stall === recorded.reason ? null : `recorded stall ${String(recorded.reason)}, replay ${call.stall ?? 'none'}`
  }
  if (!pluginActive) return null
  if (call.break !== null) return 'replay breaks, the plugin recorded nothing'
  if (call.stall !== null) return 'replay stalls, the plugin recorded nothing'
  return null
}

function describe(call: SessionCall, verdict: CallVerdict): AnalyzedCall {
  return {
    turn: call.turn,
    step: call.step,
    attempt: call.attempt,
    reasoningChars: call.reasoningChars,
    textChars: call.textChars,
    toolCalls: call.toolCalls.map((tool) => tool.name),
    finish: call.finish?.kind ?? null,
    break: verdict.break,
    stall: verdict.stall,
    recorded: recordedOf(call.recorded),
    continuation: continuationOf(call.recorded),
    crop: cropOf(call.recorded),
  }
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
