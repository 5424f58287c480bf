/**
 * DSH's patch-file dialect: js-yaml with the entry-list schema of `@deepseek-ai/cordis-plugin-include`
 * (the JSON schema plus `!!js` expression scalars), and the rules by which DSH's launcher refuses a file.
 * The analyzer's patch reader (session/patch-config.ts) and the plugins' line on an unapplied save
 * (patch-failures.ts) read files through it.
 */
import yaml from 'js-yaml'
import { isMapping } from './mapping.ts'

/** A `!!js` scalar as DSH's loader holds it before evaluating it at mount time. */
interface JsExpression {
  __jsExpr: string
}

const JS_EXPRESSION = new yaml.Type('tag:yaml.org,2002:js', {
  kind: 'scalar',
  resolve: (data: unknown) => typeof data === 'string',
  construct: (data: string): JsExpression => ({ __jsExpr: data }),
})

/** DSH's patch dialect (`entryListSchema` of cordis-plugin-include). */
export const PATCH_SCHEMA = yaml.JSON_SCHEMA.extend(JS_EXPRESSION)

/**
 * Why DSH's launcher refuses a patch file's text, in its rules (`parsePatchList` of
 * `@deepseek-ai/dsh-app-boot`: this dialect, a top-level list, every entry a mapping), or `undefined` when it
 * takes it. Stricter than `parsePatchFile` where DSH is (a file with no list at all, empty or only comments,
 * is refused) and laxer where DSH only warns (an entry that names no `id`).
 * @param source - the file's text.
 * @param file - the file's path, for the message.
 * @returns one line naming the file (and the line, for a YAML error) and what is wrong, or `undefined`.
 */
export function patchFileRefusal(source: string, file: string): string | undefined {
  let document: unknown
  try {
    document = yaml.load(source, { filename: file, schema: PATCH_SCHEMA })
  } catch (error) {
    if (!(error instanceof yaml.YAMLException)) throw error
    const line = error.mark === undefined ? '' : `:${error.mark.line + 1}`
    return `${file}${line}: not valid YAML: ${error.reason}`
  }
  if (document === undefined || document === null) return `${file}: holds no list of patch entries (\`[]\` when there is none)`
  if (!Array.isArray(document)) return `${file}: a Cordis patch file is a top-level YAML list of entries (\`- id: ...\`), got ${kindOf(document)}`
  const index = document.findIndex((entry) => !isMapping(entry))
  if (index >= 0) return `${file}: patch entry ${index + 1} is ${kindOf(document[index])}, not a mapping (\`- id: ...\`)`
  return undefined
}

/**
 * The source of a `!!js` value, which only DSH can evaluate (at mount time).
 * @param value - a value read from a patch file.
 * @returns the expression's source, or `undefined` for any other value.
 */
export function jsExpression(value: unknown): string | undefined {
  return isMapping(value) && typeof value.__jsExpr === 'string' ? value.__jsExpr : undefined
}

/** How a value that is not what a patch file needs is named in a message. */
export function kindOf(value: unknown): string {
  if (Array.isArray(value)) return 'a list'
  if (isMapping(value)) return 'a mapping'
  return `the ${value === null ? 'null' : typeof value} ${JSON.stringify(value)}`
}
