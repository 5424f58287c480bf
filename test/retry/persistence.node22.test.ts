import { afterEach, describe, expect, it } from 'vitest'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import * as retryCoordinator from '../../src/retry/index.ts'
import { say, textAnswer } from '../support/host.ts'
import type { Script } from '../support/host.ts'
import { createPersistentHost } from '../support/persistence.ts'

const cleanups: Array<() => Promise<unknown>> = []
afterEach(async () => { while (cleanups.length > 0) await cleanups.pop()!() })

async function* serviceUnavailable() {
  yield { type: 'finish', reason: { kind: 'error', failure: { message: 'Service Unavailable', code: 'SERVER', status: 503 } } } as any
}


describe('a session the coordinator retried in, written by the real rc.8 JSONL persistence', () => {
  it('is resumed by rc.8 and goes on: the retry records are DSH event types it knows', async () => {
    const root = await mkdtemp(join(tmpdir(), 'retry-coordinator-resume-'))
    cleanups.push(() => rm(root, { recursive: true, force: true }))
    const coordinator: [any, any] = [retryCoordinator, { budgets: { server: { initialDelayMs: 10, maxDelayMs: 20 } } }]

    const script: Script = (_options, call) => (call === 0 ? serviceUnavailable() : textAnswer(`answer ${call}`))
    const first = await createPersistentHost(script, { root, after: [coordinator] })
    const agent = first.createAgent('resume-after-retry')
    await say(agent, 'fix the parser')
    expect(agent.session.events.filter((event: any) => event.type === 'llm/retry').map((event: any) => event.data.policyKey)).toEqual(['retry-coordinator/server'])
    await first.sessionFile(agent)
    await first.dispose()

    const again = await createPersistentHost(() => textAnswer('resumed answer'), { root, after: [coordinator] })
    cleanups.push(again.dispose)
    const { agent: resumed } = await (again.ctx as any).agentLoop.resume(again.ctx, {
      resumeSessionId: 'resume-after-retry', agentOptions: { provider: 'scripted', model: 'scripted-model' },
    })
    const retries = resumed.session.events.filter((event: any) => event.type === 'llm/retry')
    expect(retries.map((event: any) => [event.data.kind, event.data.retry, event.data.delaySource])).toEqual([['server', 1, 'backoff']])
    await say(resumed, 'continue')
    const last = resumed.session.events.filter((event: any) => event.type === 'assistant/message').at(-1)
    expect(last.data.message.content[0].text).toBe('resumed answer')
  })
})
