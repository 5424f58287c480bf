// Rewrites the settings tables of README.md / docs/detector.md (and their .zh twins): the plugin's
// Config schema goes to the README, the detector's thresholds (DETECTOR_SETTINGS, the analyzer's --set)
// to docs/detector.md. The
// English rows are generated whole (field, default, description); a Chinese row keeps its translated
// description when the field already had one and says TRANSLATE otherwise, so a new setting cannot
// slip into the English table alone. test/plugin/readme.test.ts checks the result.
// Run after `npx tsup`: node dev/config-tables.mjs
import { readFileSync, writeFileSync } from 'node:fs'
import { ConfigFields } from '../lib/index.js'
import { DETECTOR_SETTINGS } from '../lib/detector.js'

const shown = (value) => (typeof value === 'string' ? `'${value}'` : String(value))
const pluginRows = Object.entries(ConfigFields.dict).map(([field, schema]) => ({ field, value: shown(schema.meta.default), description: schema.meta.description }))
const detectorRows = Object.entries(DETECTOR_SETTINGS).map(([field, setting]) => ({ field, value: shown(setting.default), description: setting.description }))

const ROW = /^\| `([A-Za-z]+)` \| `[^`]*` \| (.*) \|$/

function rewrite(file, chosen, translate) {
  const text = readFileSync(file, 'utf8')
  const lines = text.split('\n')
  const first = lines.findIndex((line) => ROW.test(line))
  let last = first
  while (last + 1 < lines.length && ROW.test(lines[last + 1])) last++
  if (first < 0) throw new Error(`${file}: no Config table`)
  const old = new Map(lines.slice(first, last + 1).map((line) => { const m = ROW.exec(line); return [m[1], m[2]] }))
  const table = chosen.map((row) => `| \`${row.field}\` | \`${row.value}\` | ${translate ? (old.get(row.field) ?? 'TRANSLATE: ' + row.description) : row.description.replace(/\|/g, '\\|')} |`)
  lines.splice(first, last - first + 1, ...table)
  writeFileSync(file, lines.join('\n'))
  const missing = table.filter((line) => line.includes('TRANSLATE:')).length
  if (missing > 0) console.log(`${file}: ${missing} row(s) to translate`)
}

for (const [file, chosen] of [['README', pluginRows], ['docs/detector', detectorRows]]) {
  rewrite(`${file}.md`, chosen, false)
  rewrite(`${file}.zh.md`, chosen, true)
}
