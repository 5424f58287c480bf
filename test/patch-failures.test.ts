/**
 * The line for a patch save dsh could not apply, and the nudge for a save its watcher read half-written, on a
 * real Cordis context. `hmr/config-update-failed` is emitted here as cordis-plugin-hmr's `refreshConfig`
 * emits it (`ctx.parallel(event, filename, error)`, awaited by the refresh); the real watcher, in a running
 * `dsh --profile web`, is test/e2e/live-config.sh.
 */
import { mkdtemp, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Context } from '@deepseek-ai/cordis'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { sayUnappliedPatches } from '../src/patch-failures.ts'

const scratch = await mkdtemp(join(tmpdir(), 'patch-failures-'))
afterAll(() => rm(scratch, { recursive: true, force: true }))

const roots: Context[] = []
const written: string[] = []
afterEach(async () => {
  for (const root of roots.splice(0)) await root.fiber.dispose()
  // The plugins remember every patch file seen failing (the launcher reads them all); a removed one is no layer.
  for (const file of written.splice(0)) await rm(file)
})

const SAID = '; dsh did not apply this save and runs on with the settings it had (it will not start with the file as it is)'
const ROWS = '- id: loop-breaker\n  config:\n    maxFires: 4\n'
/** What the launcher throws on a file it cannot parse (dsh-app-boot `parsePatchList`), as HMR passes it on. */
const hostError = (file: string) => new Error(`dsh: patches ${file} must be a top-level YAML array of loader patch entries`)

/** A root context with one speaker per name, each writing into `lines`. */
async function mount(...plugins: string[]) {
  const root = new Context()
  roots.push(root)
  const lines: string[] = []
  const fibers = plugins.map((plugin) => (root as any).plugin({ name: plugin, apply: (ctx: any) => sayUnappliedPatches(ctx, plugin, (line) => lines.push(`${plugin} says ${line}`)) }).ctx.fiber)
  for (const fiber of fibers) await fiber.await()
  /** A failed refresh after a change of `file`, as HMR reports it (it awaits the listeners). */
  const failed = (file: string) => (root as any).parallel('hmr/config-update-failed', file, hostError(file))
  return { root, fibers, lines, failed }
}

let files = 0
async function patchFile(content: string) {
  const file = join(scratch, `${++files}.cordis.patch.yml`)
  await writeFile(file, content)
  written.push(file)
  return file
}

describe('a patch save dsh could not apply', () => {
  it("one line naming the file, the YAML error's line and the reason; once per save, again for the next save", async () => {
    const { lines, failed } = await mount('loop-breaker')
    // The save: the fresh file's `[]` left above the rows.
    const file = await patchFile(`# my patch\n[]\n${ROWS}`)
    await failed(file)
    const line = `loop-breaker: ${file}:3: not valid YAML: end of the stream or a document separator is expected${SAID}`
    expect(lines).toEqual([`loop-breaker says ${line}`])
    // The watcher may refresh twice for one save: still one line.
    await failed(file)
    expect(lines).toHaveLength(1)
    // Saved again (unchanged text, a new modification time): a line for that save too.
    await writeFile(file, `# my patch\n[]\n${ROWS}`)
    await utimes(file, new Date(), new Date((await stat(file)).mtimeMs + 1000))
    await failed(file)
    expect(lines).toEqual([`loop-breaker says ${line}`, `loop-breaker says ${line}`])
  })

  it('says what the launcher refuses besides YAML errors: no list, an entry that is not a mapping', async () => {
    const { lines, failed } = await mount('loop-breaker')
    const comments = await patchFile('# nothing here yet\n')
    const mapping = await patchFile('loop-breaker:\n  maxFires: 4\n')
    const scalar = await patchFile('- id: loop-breaker\n- just text\n')
    for (const file of [comments, mapping, scalar]) await failed(file)
    expect(lines).toEqual([
      `loop-breaker says loop-breaker: ${comments}: holds no list of patch entries (\`[]\` when there is none)${SAID}`,
      `loop-breaker says loop-breaker: ${mapping}: a Cordis patch file is a top-level YAML list of entries (\`- id: ...\`), got a mapping${SAID}`,
      `loop-breaker says loop-breaker: ${scalar}: patch entry 2 is the string "just text", not a mapping (\`- id: ...\`)${SAID}`,
    ])
  })

  it('names the other watched file when that one is broken and the saved one is fine', async () => {
    const { lines, failed } = await mount('loop-breaker')
    const home = await patchFile('- id: loop-breaker\n  config: {maxFires: 4\n')
    await failed(home)
    const profile = await patchFile(ROWS)
    await failed(profile)
    expect(lines).toHaveLength(2)
    expect(lines[1]).toMatch(new RegExp(`^loop-breaker says loop-breaker: ${home}:3: not valid YAML: `))
  })

  it('a save read half-written (every file parses once it settles): no line, the saved file is touched so the watcher reads it again', async () => {
    const { lines, failed } = await mount('loop-breaker')
    const file = await patchFile(ROWS)
    const before = await stat(file)
    await failed(file)
    expect(lines).toEqual([])
    const after = await stat(file)
    expect(after.mtimeMs).toBeGreaterThan(before.mtimeMs)
    expect(await readFile(file, 'utf8')).toBe(ROWS)
    // If the refresh the nudge caused fails too, the file is not touched again: the host's own reason is said.
    await failed(file)
    expect((await stat(file)).mtimeMs).toBe(after.mtimeMs)
    expect(lines).toEqual([`loop-breaker says loop-breaker: ${file}: ${hostError(file).message}${SAID}`])
  })

  it('with both plugins of the package running, one speaks; when it stops, the other does; none once both stop', async () => {
    const { fibers, lines, failed } = await mount('loop-breaker', 'retry-coordinator')
    const file = await patchFile(`[]\n${ROWS}`)
    await failed(file)
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatch(/^loop-breaker says loop-breaker: /)
    await fibers[0].dispose()
    await writeFile(file, `[]\n[]\n${ROWS}`)
    await failed(file)
    expect(lines).toHaveLength(2)
    expect(lines[1]).toMatch(/^retry-coordinator says retry-coordinator: /)
    await fibers[1].dispose()
    await writeFile(file, `[]\n${ROWS}`)
    await failed(file)
    expect(lines).toHaveLength(2)
  })
})
