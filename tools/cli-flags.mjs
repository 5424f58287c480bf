// Command-line flags of the shipped tools, read by node:util parseArgs. parseArgs runs non-strict with
// tokens so that every mistake is reported in the tools' own words ("unknown option --x", "--set needs a
// value"), the same on every Node version, instead of in parseArgs' wording.
import { parseArgs } from 'node:util'

/** A mistake in the command line: the tool prints it with a pointer to --help and exits 2. */
export class UsageError extends Error {}

/**
 * `options` as parseArgs takes them (`type`, `short`, `multiple`, no defaults); returns the given flags'
 * values (arrays for `multiple`) and the positional arguments, in order.
 */
export function parseFlags(argv, options) {
  const { tokens } = parseArgs({ args: argv, options, allowPositionals: true, strict: false, tokens: true })
  const values = {}
  const positionals = []
  for (const token of tokens) {
    if (token.kind === 'positional') positionals.push(token.value)
    if (token.kind !== 'option') continue
    const spec = options[token.name]
    if (spec === undefined) throw new UsageError(`unknown option ${token.rawName}`)
    if (spec.type === 'boolean') {
      if (token.value !== undefined) throw new UsageError(`${token.rawName} takes no value`)
      values[token.name] = true
    } else {
      if (token.value === undefined) throw new UsageError(`${token.rawName} needs a value`)
      if (spec.multiple) (values[token.name] ??= []).push(token.value)
      else values[token.name] = token.value
    }
  }
  return { values, positionals }
}
