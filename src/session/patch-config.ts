/**
 * The `loop-breaker` row's config from Cordis patch files (a profile's or the
 * package's `cordis.patch.yml`), so the analyzer replays with the settings the
 * live plugin ran with. A row is any mapping whose `id` or `name` is
 * `loop-breaker` (or the package name) and that carries a `config` mapping;
 * rows are searched at any depth (`insert:` lists and groups nest them). As in
 * DSH's layers, a later row replaces an earlier row's whole `config` (every
 * field it leaves out is back at its default), and later files win.
 */
import { readFile } from 'node:fs/promises'
import { parseYaml } from './yaml-subset.ts'

const ROW_NAMES = new Set(['loop-breaker', 'dsh-loop-breaker'])

type Config = Record<string, unknown>

export function loopBreakerRows(document: unknown): Config[] {
  const rows: Config[] = []
  const visit = (node: unknown) => {
    if (Array.isArray(node)) {
      node.forEach(visit)
      return
    }
    if (typeof node !== 'object' || node === null) return
    const record = node as Record<string, unknown>
    const config = record.config
    if ((ROW_NAMES.has(record.id as string) || ROW_NAMES.has(record.name as string)) && typeof config === 'object' && config !== null && !Array.isArray(config)) {
      rows.push(config as Config)
    }
    Object.values(record).forEach(visit)
  }
  visit(document)
  return rows
}

/** The `loop-breaker` config in force after the given patch files, in order: the last row's, or `{}`. */
export async function readPatchConfig(files: readonly string[]): Promise<Config> {
  let config: Config = {}
  for (const file of files) {
    const rows = loopBreakerRows(parseYaml(await readFile(file, 'utf8'), file))
    if (rows.length > 0) config = rows.at(-1)!
  }
  return config
}
