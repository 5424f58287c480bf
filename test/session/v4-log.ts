/**
 * Builds a DSH v4 session log (`session.v4.jsonl[.zstd]`, DSH >= 0.1.7) from the
 * events of a real rc.8 session, following the documented v4 record shapes
 * (../shared/dsh-host.md, "Session logs"): header `version: 4` with
 * `isSeeded`; no `assistant/chunk` events; each `assistant/message` embeds its
 * `stream` (`{type:'chunk', time, chunk}` records and packed
 * `text-chunks` / `reasoning-chunks` / `tool-call-chunks` runs); a failed
 * attempt with no message becomes `assistant/attempt {turn, step, stream}`;
 * the system prompt is a `system/message` event. No v4 writer is installable
 * at rc.8, so this is the only way to get v4 files with real content.
 */

type Event = { type: string; seq: number; time: number; data: any; [extra: string]: unknown }
type StreamRecord = Record<string, unknown>

const RUN_TYPES: Record<string, string> = {
  'text-delta': 'text-chunks',
  'reasoning-delta': 'reasoning-chunks',
  'tool-call-delta': 'tool-call-chunks',
}

/** The v4 JSONL lines (header first) for one session's rc.8 events. */
export function v4Lines(header: { id: string; createdAt: number; cwd?: string }, events: readonly Event[]): string[] {
  const out: Array<Record<string, unknown>> = []
  let stream: Array<{ time: number; chunk: any }> = []
  let systemWritten = false
  for (const event of events) {
    if (event.type === 'assistant/chunk') {
      stream.push({ time: event.time, chunk: event.data.chunk })
      if (event.data.chunk.type === 'finish' && event.data.chunk.reason.kind === 'error') {
        out.push({ type: 'assistant/attempt', time: event.time, data: { turn: event.data.turn, step: event.data.step, stream: packStream(stream) } })
        stream = []
      }
      continue
    }
    if (event.type === 'assistant/message') {
      const { turn, step, message, usage, interrupted } = event.data
      out.push({
        type: 'assistant/message',
        time: event.time,
        data: { turn, step, message, usage, ...(interrupted ? { interrupted } : {}), stream: packStream(stream) },
      })
      stream = []
      continue
    }
    if (event.type === 'request/header' && !systemWritten) {
      out.push({ type: 'system/message', time: event.time, data: { content: event.data.header.system } })
      systemWritten = true
    }
    const { seq: _seq, sourceEventSeqs: _sources, ...rest } = event
    out.push(rest)
  }
  const lines = [JSON.stringify({ type: 'session', version: 4, id: header.id, createdAt: header.createdAt, cwd: header.cwd, delegationDepth: 0, isSeeded: false })]
  out.forEach((record, seq) => lines.push(JSON.stringify({ type: record.type, seq, ...record })))
  return lines
}

/** Packs runs of >= 3 same-block deltas the way v4 stores them, every other chunk as a `chunk` record. */
function packStream(stream: Array<{ time: number; chunk: any }>): StreamRecord[] {
  const records: StreamRecord[] = []
  let at = 0
  while (at < stream.length) {
    const first = stream[at]!
    const runType = RUN_TYPES[first.chunk.type]
    let end = at + 1
    while (runType !== undefined && end < stream.length && sameRun(first.chunk, stream[end]!.chunk)) end++
    if (runType === undefined || end - at < 3) {
      for (let i = at; i < end; i++) records.push({ type: 'chunk', time: stream[i]!.time, chunk: stream[i]!.chunk })
      at = end
      continue
    }
    const run = stream.slice(at, end)
    const dt = run.slice(1).map((member, i) => member.time - run[i]!.time)
    if (runType === 'tool-call-chunks') {
      records.push({
        type: runType, time0: first.time, index: first.chunk.index, dt, id: first.chunk.id,
        ...(first.chunk.name !== undefined ? { name: first.chunk.name } : {}),
        args: run.map((member) => member.chunk.argumentsDelta),
      })
    } else {
      records.push({ type: runType, time0: first.time, index: first.chunk.index, dt, texts: run.map((member) => member.chunk.text) })
    }
    at = end
  }
  return records
}

function sameRun(a: any, b: any): boolean {
  return a.type === b.type && a.index === b.index && a.id === b.id && a.name === b.name
}
