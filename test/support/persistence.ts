/**
 * A real DSH host whose sessions are written to disk by the real rc.8
 * `dsh-session-persistence-jsonl` backend (Node >= 22.15 only: it imports
 * zstd from node:zlib). Used by `*.node22.test.ts` files to produce genuine
 * `session.jsonl.zstd` logs from scripted agent-loop runs.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createHost, type HostOptions, type Script } from './host.ts'

export interface PersistentHostOptions extends HostOptions {
  /** Root directory of the session logs; a fresh temp directory (removed on dispose) when absent. */
  root?: string
  /** Backend `compression`; default `'zstd'` (one zstd frame per write batch). */
  compression?: 'zstd' | 'none'
  /** Backend `packChunks`; default `true` (runs of >= 3 deltas become packed rows, as in the field). */
  packChunks?: boolean
}

/**
 * Mounts the JSONL persistence backend after the agent stack (it injects
 * `sessions`), ahead of any `after` plugins the caller passes.
 * `sessionFile(agent)` flushes the agent's session and returns the absolute
 * path of its log (`<root>/--<cwd>--/<id>/session.jsonl.zstd`).
 */
export async function createPersistentHost(script: Script, options: PersistentHostOptions = {}) {
  const ownsRoot = options.root === undefined
  const root = options.root ?? await mkdtemp(join(tmpdir(), 'loop-breaker-sessions-'))
  // Imported lazily so that merely importing this helper never loads node:zlib zstd.
  const persistence = await import('@deepseek-ai/dsh-session-persistence-jsonl')
  const host = await createHost(script, {
    before: options.before,
    after: [
      [persistence, {
        root,
        compression: options.compression ?? 'zstd',
        packChunks: options.packChunks ?? true,
        // The shortest window keeps frames per batch small, so a log holds many frames.
        writeBatchMaxDelayMs: 1,
      }],
      ...(options.after ?? []),
    ],
  })
  const ctx = host.ctx as any
  const sessionFile = async (agent: any): Promise<string> => {
    await ctx.sessions.flush(agent.session)
    return ctx.sessionPersistence.locate(agent.session.header).path
  }
  return {
    ...host,
    root,
    sessionFile,
    dispose: async () => {
      await host.dispose()
      if (ownsRoot) await rm(root, { recursive: true, force: true })
    },
  }
}
