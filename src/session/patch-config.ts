/**
 * The `loop-breaker` row's config from Cordis patch files (a profile's or the
 * package's `cordis.patch.yml`), so the analyzer replays with the settings the
 * live plugin ran with. Files are read as DSH reads them: js-yaml with the
 * entry-list dialect of `@deepseek-ai/cordis-plugin-include` (the JSON schema
 * plus `!!js` expression scalars), a top-level list of mappings, each either an
 * `insert` list or a patch that names its target by `id`. A row is any mapping
 * whose `id` or `name` is `loop-breaker` (or the package name) and that carries
 * a `config` mapping; rows are searched at any depth (`insert:` lists and
 * groups nest them). As in DSH's layers, a later row replaces an earlier row's
 * whole `config` (every field it leaves out is back at its default), and later
 * files win.
 */
import { readFile } from 'node:fs/promises'
import yaml from 'js-yaml'
import { PATCH_SCHEMA, kindOf } from '../patch-dialect.ts'
import { closestName } from '../closest-name.ts'
import { isMapping } from '../mapping.ts'
import { GUARD_SETTING_NAMES, REACTION_SETTING_NAMES, SETTING_NAMES, isRetiredSetting, retiredSettingsLine } from '../plugin/setting-names.ts'

const ROW_NAMES = new Set(['loop-breaker', 'dsh-loop-breaker'])

type Config = Record<string, unknown>

/** A patch file DSH would not apply, or a setting the analyzer cannot take from it; the message names the file. */
export class PatchFileError extends Error {}

/**
 * The `config` of every `loop-breaker` row in a parsed patch file, at any depth, in document order.
 * @param document - a parsed patch file (as `parsePatchFile` returns it), or any YAML value.
 * @returns each row's `config` mapping; empty when no row names the plugin.
 */
export function loopBreakerRows(document: unknown): Config[] {
  const rows: Config[] = []
  const visit = (node: unknown) => {
    if (Array.isArray(node)) {
      node.forEach(visit)
      return
    }
    if (!isMapping(node)) return
    const config = node.config
    if ((ROW_NAMES.has(node.id as string) || ROW_NAMES.has(node.name as string)) && isMapping(config)) rows.push(config)
    Object.values(node).forEach(visit)
  }
  visit(document)
  return rows
}

/**
 * One patch file's entries, checked as DSH checks them (a top-level list of mappings), plus the rule
 * DSH only warns about: a patch that is not an `insert` must name its target `id`, or it patches nothing.
 * @param source - the file's text.
 * @param file - the file's path, for the messages.
 * @returns the entries; empty for an empty file.
 * @throws PatchFileError when the text is not valid YAML, is not a list, or has an entry that is not a
 * mapping or names no `id`; the message names the file and the entry's line.
 */
export function parsePatchFile(source: string, file: string): Config[] {
  const lines: number[] = []
  let depth = 0
  let document: unknown
  try {
    document = yaml.load(source, {
      filename: file,
      schema: PATCH_SCHEMA,
      // The line of each top-level entry, for the errors below (js-yaml reports nodes opening at depth 2).
      listener(event, state) {
        if (event === 'open' && ++depth === 2) lines.push(state.line + 1)
        else if (event === 'close') depth--
      },
    })
  } catch (error) {
    if (!(error instanceof yaml.YAMLException)) throw error
    const line = error.mark === undefined ? '' : `:${error.mark.line + 1}`
    throw new PatchFileError(`${file}${line}: not valid YAML: ${error.reason}`)
  }
  // An empty file is an empty list to DSH too.
  if (document === undefined || document === null) return []
  if (!Array.isArray(document)) {
    throw new PatchFileError(`${file}: a Cordis patch file is a top-level YAML list of entries (\`- id: ...\`), got ${kindOf(document)}`)
  }
  document.forEach((entry, index) => {
    const where = `${file}:${lines[index] ?? '?'}`
    if (!isMapping(entry)) throw new PatchFileError(`${where}: patch entry ${index + 1} is ${kindOf(entry)}, not a mapping (\`- id: ...\`)`)
    if (entry.insert === undefined && typeof entry.id !== 'string') {
      throw new PatchFileError(`${where}: patch entry ${index + 1} has no \`id\`: a patch names the row it changes (\`- id: loop-breaker\`), or inserts rows (\`- insert: [...]\`)`)
    }
  })
  return document as Config[]
}

/**
 * The `loop-breaker` config in force after the given patch files, in order: the last row's, or `{}`.
 * @param files - patch file paths, earliest layer first.
 * @returns the last `loop-breaker` row's `config`, or `{}` when no file has one.
 * @throws PatchFileError for a file DSH would not apply (see `parsePatchFile`); file system errors pass through.
 */
export async function readPatchConfig(files: readonly string[]): Promise<Config> {
  let config: Config = {}
  for (const file of files) {
    const rows = loopBreakerRows(parsePatchFile(await readFile(file, 'utf8'), file))
    if (rows.length > 0) config = rows.at(-1)!
  }
  return config
}

/** A name in a `loop-breaker` row's config that is no setting of the plugin, and the setting it is closest to. */
export interface UnknownSetting {
  name: string
  closest: string | undefined
}

/**
 * A `loop-breaker` row's config as the analyzer takes it: the guards it replays with (`reasoning`,
 * `text`, `tool`, `steps`); the reaction settings (`escalate`, `maxFires`, ...), which decide what the
 * plugin does after a finding and not where it finds one, left aside; settings of an earlier version,
 * which the live plugin leaves out, named in its one line; and names that are no setting at all, which
 * the live plugin refuses.
 * @param config - a row's config, as `readPatchConfig` returns it.
 * @returns the guards, the live plugin's line on settings of an earlier version (if any), and each
 *   unknown name with the closest setting name (if one is close).
 */
export function guardsOf(config: Config): { guards: Config; retired: string | undefined; unknown: UnknownSetting[] } {
  const guards: Config = {}
  const unknown: UnknownSetting[] = []
  for (const [name, value] of Object.entries(config)) {
    if ((GUARD_SETTING_NAMES as readonly string[]).includes(name)) guards[name] = value
    else if (!(REACTION_SETTING_NAMES as readonly string[]).includes(name) && !isRetiredSetting(name)) unknown.push({ name, closest: closestName(name, SETTING_NAMES) })
  }
  return { guards, retired: retiredSettingsLine(config), unknown }
}
