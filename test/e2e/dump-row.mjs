/**
 * Prints one row of a `dsh --dump-config` listing with the layer comment dsh printed above its group
 * (`# == <bundle>, patched by <file>`), so the log shows where the row and its config came from.
 * Usage: `node test/e2e/dump-row.mjs <dump.yml> <row id>`; exits 1 when the row is absent.
 */
import { readFileSync } from 'node:fs'

const [file, id] = process.argv.slice(2)
if (file === undefined || id === undefined) {
  process.stderr.write('usage: dump-row.mjs <dump.yml> <row id>\n')
  process.exit(2)
}
let layer = ''
let row
for (const line of readFileSync(file, 'utf8').split('\n')) {
  if (line.startsWith('# == ')) {
    if (row !== undefined) break
    layer = line
  } else if (line.startsWith('- ')) {
    if (row !== undefined) break
    if (line === `- id: ${id}`) row = [layer, line]
  } else if (row !== undefined) {
    row.push(line)
  }
}
if (row === undefined) {
  process.stderr.write(`dump-row: no row "${id}" in ${file}\n`)
  process.exit(1)
}
process.stdout.write(row.join('\n').trimEnd() + '\n')
