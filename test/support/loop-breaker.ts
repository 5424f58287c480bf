/**
 * The loop-breaker plugin inside the real test host, with DSH's stream-grammar checker
 * (`dsh-invariants` + `dsh-llm/invariant`) mounted so every chunk the plugin yields is validated, plus
 * builders for legal streams and degenerate text shaped like the loops recorded in the field.
 */
import * as invariantsPlugin from '@deepseek-ai/dsh-invariants'
import * as llmInvariant from '@deepseek-ai/dsh-llm/invariant'
import * as sessionInvariant from '@deepseek-ai/dsh-session/invariant'
import * as loopBreakerInvariant from '../../src/invariant.ts'
import type { GenerateOptions, StreamChunk } from '@deepseek-ai/dsh-llm'
import * as loopBreaker from '../../src/plugin/index.ts'
import type { Config, LoopBreakerInternals } from '../../src/plugin/index.ts'
import { JOURNAL_PREFIX, readJournalRecord } from '../../src/journal.ts'
import { createHost } from './host.ts'
import type { HostOptions, Script } from './host.ts'

/**
 * DSH's invariant checkers, for a host's `before` list: the stream grammar (`dsh-llm/invariant`), the
 * session log's turn and step structure (`dsh-session/invariant`) and this package's own records
 * (`src/invariant.ts`). Each throws InvariantError on an illegal stream or event.
 */
export const STREAM_GRAMMAR: NonNullable<HostOptions['before']> = [[invariantsPlugin], [llmInvariant], [sessionInvariant], [loopBreakerInvariant]]

/** DSH's own invariant checkers without this package's: for a host that plays a writer the records' invariant refuses (0.1.0). */
export const DSH_INVARIANTS: NonNullable<HostOptions['before']> = STREAM_GRAMMAR.filter(([plugin]) => plugin !== loopBreakerInvariant)

/**
 * The plugin as a Cordis plugin, with test internals bound in: a replacement detector when given, and its
 * visible log lines kept off the test runner's stderr (tests that check them read the logger instead).
 */
export function loopBreakerPlugin(internals: LoopBreakerInternals = {}): any {
  const bound: LoopBreakerInternals = { writeLine: () => {}, ...internals }
  return {
    name: loopBreaker.name,
    inject: loopBreaker.inject,
    Config: loopBreaker.Config,
    apply: (ctx: any, config: Config) => loopBreaker.apply(ctx, config, bound),
  }
}

/** A host with the grammar checker and the loop-breaker mounted (plus any extra `after` plugins). */
export function createGuardedHost(script: Script, config: Config = {}, options: HostOptions & { internals?: LoopBreakerInternals } = {}) {
  return createHost(script, {
    before: [...STREAM_GRAMMAR, ...(options.before ?? [])],
    after: [[loopBreakerPlugin(options.internals), config], ...(options.after ?? [])],
  })
}

/** One block of a scripted answer: its type and the deltas it streams. */
export type BlockScript =
  | { type: 'reasoning' | 'text'; deltas: string[] }
  | { type: 'tool-call'; id: string; name: string; deltas: string[] }

/**
 * A legal stream of the blocks one after another, ending with `finish` (default `stop`, or `tool-calls`;
 * `finish: 'max-tokens'` ends it as a provider does when the output length limit cut it).
 */
export async function* streamBlocks(blocks: BlockScript[], options: { signal?: AbortSignal; onReturn?: () => void; finish?: 'max-tokens' } = {}): AsyncIterable<StreamChunk> {
  let finished = false
  try {
    for (const [index, block] of blocks.entries()) {
      yield { type: 'block-start', index, blockType: block.type } as StreamChunk
      for (const delta of block.deltas) {
        if (options.signal?.aborted) return
        if (block.type === 'tool-call') yield { type: 'tool-call-delta', index, id: block.id, name: block.name, argumentsDelta: delta } as StreamChunk
        else yield { type: block.type === 'text' ? 'text-delta' : 'reasoning-delta', index, text: delta } as StreamChunk
      }
      const text = block.deltas.join('')
      yield {
        type: 'block-end',
        index,
        block: block.type === 'tool-call' ? { type: 'tool-call', id: block.id, name: block.name, arguments: text } : { type: block.type, text },
      } as StreamChunk
    }
    const hasTool = blocks.some((block) => block.type === 'tool-call')
    yield { type: 'finish', reason: { kind: options.finish ?? (hasTool ? 'tool-calls' : 'stop') } } as StreamChunk
    finished = true
  } finally {
    if (!finished) options.onReturn?.()
  }
}

/** Split text into deltas of a few characters, the way providers stream tokens. */
export function toDeltas(text: string, size = 7): string[] {
  const deltas: string[] = []
  for (let i = 0; i < text.length; i += size) deltas.push(text.slice(i, i + size))
  return deltas
}

/** A productive opening, then an endless-looking phrase-pool bleed (the seed's "OK. / Writing. / Go." loop). */
export function phrasePoolReasoning(prefix: string, repeats = 400): string {
  const pool = ['OK.', 'Writing.', 'Let me write.', 'Go.', 'Executing.', 'Now.', 'Output.']
  let state = 7
  const lines: string[] = []
  for (let i = 0; i < repeats; i++) {
    state = (state * 1103515245 + 12345) % 2147483648
    lines.push(pool[state % pool.length]!)
  }
  return `${prefix}\n${lines.join('\n')}`
}

/** A visible answer that starts well and then repeats one paragraph back to back. */
export function cyclingText(prefix: string, paragraph: string, repeats = 30): string {
  return prefix + paragraph.repeat(repeats)
}

/** The text of the last message of a request (the message the model reads last). */
export function lastMessageText(request: GenerateOptions): string {
  const last = request.messages.at(-1) as any
  if (typeof last.content === 'string') return last.content
  return last.content.map((part: any) => part.text ?? '').join('')
}

/**
 * The data of the events of one type recorded in an agent's session; for a loop-breaker record name
 * (`loop-breaker/break`, ...) the records the plugin wrote, read as the session reader reads them.
 */
export function eventsOf(agent: any, type: string): any[] {
  if (type.startsWith(JOURNAL_PREFIX)) {
    return agent.session.events.map((event: any) => readJournalRecord(event.type, event.data)).filter((record: any) => record?.name === type).map((record: any) => record.data)
  }
  return agent.session.events.filter((event: any) => event.type === type).map((event: any) => event.data)
}
