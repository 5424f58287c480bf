import { readFile, stat } from 'node:fs/promises'
import * as zlib from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { textAnswer } from '../support/host.ts'
import { createPersistentHost } from '../support/persistence.ts'

describe('createPersistentHost', () => {
  it('writes a real session.jsonl.zstd for a scripted turn', async () => {
    const host = await createPersistentHost(() => textAnswer('hello there', 'thinking about it'))
    const agent = host.createAgent()
    await host.ask(agent, 'hi')
    const file = await host.sessionFile(agent)
    expect(file.startsWith(host.root)).toBe(true)
    expect(file.endsWith('session.jsonl.zstd')).toBe(true)
    expect((await stat(file)).size).toBeGreaterThan(0)
    // Node's decoder (absent from the Node 20 typings) reads only the first frame: the header line.
    const header = JSON.parse((zlib as any).zstdDecompressSync(await readFile(file)).toString('utf8').trim())
    expect(header).toMatchObject({ type: 'session', version: 0, id: agent.session.id })
    await host.dispose()
  })
})
