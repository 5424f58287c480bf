/**
 * Reads the YAML that Cordis patch files are written in: block mappings and
 * sequences by indentation, `- key: value` rows, comments, plain / single- /
 * double-quoted scalars, numbers, booleans, null, and one-line flow
 * collections that are valid JSON. The package ships no YAML dependency (the
 * analyzer must run wherever the plugin is installed), so anything outside
 * this subset (anchors, tags, multi-line strings) fails loud with its line.
 */

type Value = null | boolean | number | string | Value[] | { [key: string]: Value }

interface Line {
  indent: number
  text: string
  number: number
}

export class YamlError extends Error {}

export function parseYaml(source: string, file = '<yaml>'): Value {
  const lines: Line[] = []
  source.split(/\r?\n/).forEach((raw, index) => {
    const text = stripComment(raw).trimEnd()
    if (text.trim() === '' || text === '---') return
    if (/^\s*\t/.test(text)) throw new YamlError(`${file}:${index + 1}: tabs cannot indent YAML`)
    lines.push({ indent: text.length - text.trimStart().length, text: text.trimStart(), number: index + 1 })
  })
  if (lines.length === 0) return null
  let at = 0

  const fail = (line: Line, why: string): never => { throw new YamlError(`${file}:${line.number}: ${why}`) }

  const block = (indent: number): Value => {
    const first = lines[at]!
    return first.text === '-' || first.text.startsWith('- ') ? sequence(indent) : mapping(indent)
  }

  const sequence = (indent: number): Value[] => {
    const items: Value[] = []
    while (at < lines.length && lines[at]!.indent === indent && (lines[at]!.text === '-' || lines[at]!.text.startsWith('- '))) {
      const line = lines[at]!
      const rest = line.text.slice(1).trimStart()
      if (rest === '') {
        at++
        items.push(at < lines.length && lines[at]!.indent > indent ? block(lines[at]!.indent) : null)
      } else if (isMappingEntry(rest) || rest.startsWith('- ')) {
        // "- key: value" opens a mapping whose keys align with "key".
        lines[at] = { indent: indent + (line.text.length - rest.length), text: rest, number: line.number }
        items.push(block(lines[at]!.indent))
      } else {
        at++
        items.push(scalar(rest, `${file}:${line.number}`))
      }
    }
    return items
  }

  const mapping = (indent: number): { [key: string]: Value } => {
    const object: { [key: string]: Value } = {}
    while (at < lines.length && lines[at]!.indent === indent) {
      const line = lines[at]!
      if (line.text.startsWith('- ')) fail(line, 'a sequence item where a mapping key was expected')
      const entry = splitEntry(line.text) ?? fail(line, `expected "key: value", got ${JSON.stringify(line.text)}`)
      at++
      if (entry.value !== '') object[entry.key] = scalar(entry.value, `${file}:${line.number}`)
      else if (at < lines.length && lines[at]!.indent > indent) object[entry.key] = block(lines[at]!.indent)
      // A sequence may sit at its key's own indentation ("key:\n- item").
      else if (at < lines.length && lines[at]!.indent === indent && lines[at]!.text.startsWith('- ')) object[entry.key] = sequence(indent)
      else object[entry.key] = null
    }
    if (at < lines.length && lines[at]!.indent > indent) fail(lines[at]!, 'unexpected indentation')
    return object
  }

  const value = block(lines[0]!.indent)
  if (at < lines.length) fail(lines[at]!, 'unexpected indentation')
  return value
}

function isMappingEntry(text: string): boolean {
  return splitEntry(text) !== undefined
}

function splitEntry(text: string): { key: string; value: string } | undefined {
  const quoted = /^("(?:[^"\\]|\\.)*"|'(?:[^']|'')*')\s*:(?:\s+|$)(.*)$/.exec(text)
  if (quoted) return { key: unquote(quoted[1]!), value: quoted[2]!.trim() }
  const plain = /^([^\s"'{[#][^:]*?)\s*:(?:\s+|$)(.*)$/.exec(text)
  return plain ? { key: plain[1]!, value: plain[2]!.trim() } : undefined
}

function scalar(text: string, where: string): Value {
  if (text.startsWith('"') || text.startsWith("'")) {
    if (!/^("(?:[^"\\]|\\.)*"|'(?:[^']|'')*')$/.test(text)) throw new YamlError(`${where}: unterminated or trailing text after a quoted string`)
    return unquote(text)
  }
  if (text.startsWith('[') || text.startsWith('{')) {
    try {
      return JSON.parse(text) as Value
    } catch {
      throw new YamlError(`${where}: only JSON-compatible flow collections are supported, got ${text}`)
    }
  }
  if (/^[&*!|>]/.test(text)) throw new YamlError(`${where}: anchors, aliases, tags and block scalars are not supported`)
  if (/^(null|Null|NULL|~)$/.test(text)) return null
  if (/^(true|True|TRUE)$/.test(text)) return true
  if (/^(false|False|FALSE)$/.test(text)) return false
  if (/^[-+]?(\d[\d_]*)?(\.\d+)?([eE][-+]?\d+)?$/.test(text) && /\d/.test(text)) return Number(text.replaceAll('_', ''))
  return text
}

function unquote(text: string): string {
  if (text.startsWith("'")) return text.slice(1, -1).replaceAll("''", "'")
  return JSON.parse(text) as string
}

/** Drops a `#` comment that starts the line or follows white space, outside quotes. */
function stripComment(line: string): string {
  let quote = ''
  for (let i = 0; i < line.length; i++) {
    const char = line[i]!
    if (quote) {
      if (char === '\\' && quote === '"') i++
      else if (char === quote) quote = ''
    } else if (char === '"' || char === "'") {
      if (i === 0 || /[\s:[{,-]/.test(line[i - 1]!)) quote = char
    } else if (char === '#' && (i === 0 || /\s/.test(line[i - 1]!))) {
      return line.slice(0, i)
    }
  }
  return line
}
