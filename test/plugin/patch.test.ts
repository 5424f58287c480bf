import { describe, expect, it } from 'vitest'
import { readFile } from 'node:fs/promises'
import { Config } from '../../src/plugin/index.ts'
import { loopBreakerRows, parsePatchFile } from '../../src/session/index.ts'

describe('cordis.patch.yml (the bundle patch `dsh plugin add` applies)', () => {
  it('inserts one loop-breaker row, named after the package, with exactly the schema defaults', async () => {
    const document = parsePatchFile(await readFile('cordis.patch.yml', 'utf8'), 'cordis.patch.yml') as any[]
    const packageName = JSON.parse(await readFile('package.json', 'utf8')).name
    const [insert] = document
    expect(insert.insert).toHaveLength(1)
    expect(insert.insert[0]).toMatchObject({ id: 'loop-breaker', name: packageName })
    expect(loopBreakerRows(document)).toEqual([Config({})])
  })

  it("turns on only the host's hmr row, as the launcher's watch-only fallback (no module reloads)", async () => {
    const document = parsePatchFile(await readFile('cordis.patch.yml', 'utf8'), 'cordis.patch.yml') as any[]
    expect(document).toHaveLength(2)
    expect(document[1]).toEqual({ id: 'hmr', disabled: false, config: { root: [] } })
  })
})
