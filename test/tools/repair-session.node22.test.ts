/**
 * The repair end to end with the real rc.8 persistence (Node 22): a session written the way
 * loop-breaker 0.1.0 wrote it (its `loop-breaker/break` event appended at the cut, which rc.8's
 * `session.append` accepts) is refused on resume; after tools/repair-session.mjs it resumes, a new
 * prompt completes, and DSH and the analyzer read the very records 0.1.0 wrote.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { copyFile, mkdir, mkdtemp, open, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join, relative } from 'node:path'
import { readSession, repairSessionLog } from '../../src/session/index.ts'
import { textAnswer } from '../support/host.ts'
import type { Script } from '../support/host.ts'
import { createPersistentHost } from '../support/persistence.ts'
import { DSH_INVARIANTS, STREAM_GRAMMAR, eventsOf, loopBreakerPlugin, phrasePoolReasoning, streamBlocks, toDeltas } from '../support/loop-breaker.ts'
import type { Config } from '../../src/plugin/index.ts'
import { runTool } from './run-tool.ts'

const disposers: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const dispose of disposers.splice(0).reverse()) await dispose()
})

const LOOP = phrasePoolReasoning('Plan: patch the parser.')
const AGENT = { provider: 'scripted', model: 'scripted-model' }

async function persistentHost(script: Script, config: Config, root: string, before = STREAM_GRAMMAR) {
  const host = await createPersistentHost(script, { root, before, after: [[loopBreakerPlugin(), config]] })
  disposers.push(() => host.dispose())
  return host
}

describe('repair-session with the real rc.8 persistence (Node 22)', () => {
  it('a log written by loop-breaker 0.1.0 is refused by rc.8; repaired, it resumes and keeps its records', async () => {
    const scratch = await mkdtemp(join(tmpdir(), 'repair-node22-'))
    disposers.push(() => rm(scratch, { recursive: true, force: true }))
    const loopThenAnswer = (onCut: () => void): Script => (_options, call) =>
      call === 0 ? streamBlocks([{ type: 'reasoning', deltas: toDeltas(LOOP) }], { onReturn: onCut }) : textAnswer(`answer ${call}`)

    // What the plugin records for this cut (today's plugin, journal on): the data 0.1.0 wrote.
    const today = await persistentHost(loopThenAnswer(() => {}), {}, join(scratch, 'today'))
    const reference = today.createAgent('reference')
    await today.ask(reference, 'fix the parser')
    const records = eventsOf(reference, 'loop-breaker/break')
    expect(records.map((record) => record.action)).toEqual(['remind'])

    // The same session as 0.1.0 wrote it: the record appended at the cut under its own event type.
    const root = join(scratch, 'sessions')
    // (The records' invariant refuses that form, which is the point: this host plays 0.1.0 without it.)
    const old = await persistentHost(loopThenAnswer(() => agent.session.append('loop-breaker/break', records[0])), { journal: false }, root, DSH_INVARIANTS)
    const agent = old.createAgent('written-by-0.1.0')
    await old.ask(agent, 'fix the parser')
    const log = await old.sessionFile(agent)
    expect(agent.session.events.filter((event: any) => event.type === 'loop-breaker/break').map((event: any) => event.data)).toEqual(records)
    await old.dispose()
    disposers.pop()
    const analyzedBefore = JSON.parse((await runTool('analyze-session.mjs', ['--json', log])).stdout).files[0].calls

    // The same log, to be repaired with Raw-block frames (what Node 20 writes) in a second home.
    const rawRoot = join(scratch, 'raw-sessions')
    const rawLog = join(rawRoot, relative(root, log))
    await mkdir(dirname(rawLog), { recursive: true })
    await copyFile(log, rawLog)

    const refusing = await persistentHost(() => textAnswer('never'), {}, root)
    await expect((refusing.ctx as any).agentLoop.resume(refusing.ctx, { resumeSessionId: 'written-by-0.1.0', agentOptions: AGENT }))
      .rejects.toMatchObject({ name: 'SessionFormatUnsupportedError', message: expect.stringContaining('"loop-breaker/break"') })
    await refusing.dispose()
    disposers.pop()

    const repaired = await runTool('repair-session.mjs', ['--force', log])
    expect(repaired.code).toBe(0)
    expect(repaired.stdout).toContain('rewrote loop-breaker/break ×1 as hook/result')
    expect(await readFile(`${log}.bak`)).toEqual(await readFile(rawLog))
    const rawWrite = await mkdtemp(join(scratch, 'raw-'))
    const rawOut = join(rawWrite, 'session.jsonl.zstd')
    const file = await open(rawOut, 'wx')
    await repairSessionLog(rawLog, (bytes) => file.write(bytes).then(() => {}), { rawFrames: true })
    await file.close()
    await copyFile(rawOut, rawLog)
    // Raw blocks hold the text as it is: no smaller than the text, unlike node:zlib's frames.
    expect((await readFile(rawLog)).length).toBeGreaterThan((await readFile(log)).length)

    // The analyzer reads the same records, calls and verdicts as before the repair.
    for (const file of [log, rawLog]) {
      const session = await readSession(file)
      expect(session.issues).toEqual([])
      expect([...session.calls.flatMap((call) => call.recorded), ...session.events].map((event) => event.data)).toEqual(records)
      expect(JSON.parse((await runTool('analyze-session.mjs', ['--json', file])).stdout).files[0].calls).toEqual(analyzedBefore)
    }

    for (const home of [root, rawRoot]) {
      const again = await persistentHost(() => textAnswer('resumed answer'), {}, home)
      const { agent: resumed } = await (again.ctx as any).agentLoop.resume(again.ctx, { resumeSessionId: 'written-by-0.1.0', agentOptions: AGENT })
      expect(eventsOf(resumed, 'loop-breaker/break')).toEqual(records)
      await again.ask(resumed, 'continue')
      expect(eventsOf(resumed, 'assistant/message').at(-1).message.content[0].text).toBe('resumed answer')
      await again.dispose()
      disposers.pop()
    }
  })
})
