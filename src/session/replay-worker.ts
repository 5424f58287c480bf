/**
 * Replays one session's calls on a worker thread while the calling thread
 * keeps reading and parsing the log: the detector costs more than decoding,
 * so the two overlap on two cores instead of adding up. Calls travel as one
 * string plus delta boundaries (cheap to copy between threads); verdicts come
 * back in order. At most {@link IN_FLIGHT} batches are queued, so memory stays
 * bounded when the reader runs ahead. Only usable from the built
 * `lib/session.js` (a worker thread loads plain JavaScript): the worker
 * imports this very module and the detector module by URL.
 */
import { Worker, parentPort, workerData } from 'node:worker_threads'
import { SessionReplay } from './replay.ts'
import type { CallVerdict, DetectorModule } from './replay.ts'
import type { DeltaSide, SessionCall } from './types.ts'

const BATCH_CALLS = 32
const IN_FLIGHT = 4
/** Side codes on the wire, in the order `pack` numbers them. */
const SIDES: DeltaSide[] = ['reasoning', 'text', 'tool']
/** A delta whose block the log does not name (stream indexes are never negative). */
const NO_BLOCK = -1

/** A call (or a "user spoke" mark) as it crosses the thread boundary. */
type Packed =
  | { user: true }
  | { user?: false; text: string; lengths: Uint32Array; sides: Uint8Array; blocks: Int32Array; finish: SessionCall['finish']; toolCalls: SessionCall['toolCalls']; previousResults: unknown[] }

/** Verdicts of one call: under the reported config, then under each sweep config. */
export type CallVerdicts = CallVerdict[]

export class WorkerReplayer {
  private readonly worker: Worker
  private batch: Packed[] = []
  private readonly results: CallVerdicts[] = []
  private inFlight = 0
  private wake: (() => void) | undefined
  private failure: Error | undefined

  constructor(detectorUrl: string, configs: readonly object[]) {
    const source = `import(${JSON.stringify(import.meta.url)}).then((module) => module.runReplayWorker())`
    // Capped heap: V8 would otherwise grow it with the amount replayed; the live data is a few batches.
    this.worker = new Worker(source, { eval: true, workerData: { detectorUrl, configs }, resourceLimits: { maxOldGenerationSizeMb: 64, maxYoungGenerationSizeMb: 16 } })
    this.worker.on('message', (verdicts: CallVerdicts[]) => {
      this.results.push(...verdicts)
      this.inFlight--
      this.wake?.()
    })
    this.worker.on('error', (error) => {
      this.failure = error
      this.wake?.()
    })
  }

  userMessage(): void {
    this.batch.push({ user: true })
  }

  async submit(call: SessionCall): Promise<void> {
    this.batch.push(pack(call))
    if (this.batch.length >= BATCH_CALLS) await this.send()
  }

  /** All verdicts, in call order; ends the worker. */
  async finish(): Promise<CallVerdicts[]> {
    await this.send()
    while (this.inFlight > 0 && this.failure === undefined) await new Promise<void>((resolve) => { this.wake = resolve })
    await this.worker.terminate()
    if (this.failure) throw this.failure
    return this.results
  }

  private async send(): Promise<void> {
    if (this.batch.length === 0) return
    while (this.inFlight >= IN_FLIGHT && this.failure === undefined) await new Promise<void>((resolve) => { this.wake = resolve })
    if (this.failure) throw this.failure
    const batch = this.batch
    this.batch = []
    this.inFlight++
    this.worker.postMessage(batch)
  }
}

/**
 * The worker's side, run inside the worker `analyzeFile` starts for `replayWorker`: loads the detector
 * from `workerData`, then replays each batch in order and answers with its verdicts.
 * @returns once the detector is loaded and the worker listens.
 * @throws when the detector module cannot be imported or refuses a config (the worker then fails, and
 * `analyzeFile` throws that error).
 */
export async function runReplayWorker(): Promise<void> {
  const { detectorUrl, configs } = workerData as { detectorUrl: string; configs: object[] }
  const detector = await import(detectorUrl) as DetectorModule
  const replays = configs.map((config) => new SessionReplay(detector, config))
  const port = parentPort
  if (port === null) throw new Error('runReplayWorker: not running in a worker thread')
  port.on('message', (batch: Packed[]) => {
    const verdicts: CallVerdicts[] = []
    for (const item of batch) {
      if (item.user) {
        for (const replay of replays) replay.userMessage()
        continue
      }
      const call = unpack(item)
      verdicts.push(replays.map((replay) => replay.call(call)))
    }
    port.postMessage(verdicts)
  })
}

function pack(call: SessionCall): Packed {
  const deltas = call.deltas
  const lengths = new Uint32Array(deltas.length)
  const sides = new Uint8Array(deltas.length)
  const blocks = new Int32Array(deltas.length)
  let text = ''
  for (let index = 0; index < deltas.length; index++) {
    const delta = deltas[index]
    lengths[index] = delta.text.length
    sides[index] = delta.side === 'reasoning' ? 0 : delta.side === 'text' ? 1 : 2
    blocks[index] = delta.block ?? NO_BLOCK
    text += delta.text
  }
  return { text, lengths, sides, blocks, finish: call.finish, toolCalls: call.toolCalls, previousResults: call.previousResults }
}

/** Only what the replay reads is rebuilt. */
function unpack(packed: Extract<Packed, { text: string }>): SessionCall {
  const deltas = new Array(packed.lengths.length)
  let at = 0
  for (let index = 0; index < packed.lengths.length; index++) {
    const length = packed.lengths[index]
    const block = packed.blocks[index]
    const text = packed.text.slice(at, at + length)
    deltas[index] = block === NO_BLOCK ? { side: SIDES[packed.sides[index]], text } : { side: SIDES[packed.sides[index]], text, block }
    at += length
  }
  return {
    turn: 0, step: 0, attempt: 0, deltas, reasoningChars: 0, textChars: 0, toolChars: 0, trimmed: undefined, notices: [],
    toolCalls: packed.toolCalls, finish: packed.finish, hasMessage: false, recorded: [], previousResults: packed.previousResults,
  }
}
