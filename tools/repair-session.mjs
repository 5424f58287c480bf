#!/usr/bin/env node
// Makes a session log written by loop-breaker 0.1.0 loadable by DSH rc.8 again: its `loop-breaker/*`
// events become the `hook/result` events the plugin writes now, every other line stays byte for byte.
// A thin shell over lib/session.js; run `npm run build` first in a checkout.
import { randomBytes } from 'node:crypto'
import { constants } from 'node:fs'
import { access, copyFile, open, rename, rm, stat } from 'node:fs/promises'
import { resolve } from 'node:path'
import { RepairError, repairSessionLog } from '../lib/session.js'
import { UsageError, parseFlags } from './cli-flags.mjs'

const HELP = `Usage: node tools/repair-session.mjs <in> [out] [options]

Rewrites a DSH session log that loop-breaker 0.1.0 wrote, which DSH rc.8 refuses to
load ("SessionFormatUnsupportedError: ... event type "loop-breaker/break" ..."), into
one it loads: every loop-breaker/* event becomes the hook/result event the plugin
writes now (same seq and time), every other line is copied byte for byte. A zstd log
(session.jsonl.zstd) is written as zstd frames again, a plain .jsonl log as plain text.

  <in>               the session log, e.g.
                     <DSH_HOME>/sessions/--<cwd>--/<id>/session.jsonl.zstd
  [out]              where to write the repaired log; it must not exist (see --force).
                     Without it, <in> is repaired in place, which needs --force. The
                     repaired log keeps <in>'s permission bits (DSH writes 0600).

Options
  --dry-run          say what would be rewritten; write nothing
  --force            overwrite [out], or repair <in> in place: the repaired log is
                     written to a temporary file beside it, then renamed over it
  --no-backup        in place, do not keep the original as <in>.bak (kept by default;
                     an existing <in>.bak is never overwritten)
  --help             this text

A log with no loop-breaker/* event is left alone and nothing is written. Close the
session in DSH before repairing it in place.

Exit status: 0 repaired, or nothing to repair; 1 the log cannot be repaired
(a damaged zstd frame, or a loop-breaker/* event the repair does not know): nothing
written; 2 bad usage, a file that cannot be read or written, not a session log, or
an output that exists without --force.`

process.exitCode = await main(process.argv.slice(2)).catch((error) => {
  if (error instanceof UsageError) {
    process.stderr.write(`repair-session: ${error.message}\nRun with --help for usage.\n`)
    return 2
  }
  if (error instanceof RepairError) {
    process.stderr.write(`repair-session: ${error.message}\n`)
    return error.kind === 'not-a-session' ? 2 : 1
  }
  if (typeof error?.code === 'string' && typeof error.syscall === 'string') {
    process.stderr.write(`repair-session: ${error.path ?? ''}${error.path ? ': ' : ''}${error.code === 'ENOENT' ? 'no such file or directory' : error.message}\n`)
    return 2
  }
  throw error
})

async function main(argv) {
  const { values, positionals } = parseFlags(argv, {
    help: { type: 'boolean', short: 'h' },
    'dry-run': { type: 'boolean' },
    force: { type: 'boolean' },
    'no-backup': { type: 'boolean' },
  })
  if (values.help) {
    process.stdout.write(HELP + '\n')
    return 0
  }
  if (positionals.length < 1 || positionals.length > 2) throw new UsageError('expects <in> [out]')
  const [input, given] = positionals
  const inPlace = given === undefined || resolve(given) === resolve(input)
  const output = inPlace ? input : given

  // A dry run, and the check that there is anything to do at all, read the log without writing.
  const found = await repairSessionLog(input, undefined)
  const changes = Object.entries(found.rewritten)
  if (changes.length === 0) {
    process.stdout.write(`${input}: no loop-breaker/* event, nothing to repair (${found.lines} lines read); nothing written\n`)
    return 0
  }
  const what = changes.map(([type, count]) => `${type} ×${count}`).join(', ')
  if (values['dry-run']) {
    process.stdout.write(`${input}: would rewrite ${what} as hook/result (${found.encoding}, ${found.lines} lines); nothing written\n`)
    return 0
  }

  const backup = inPlace && !values['no-backup'] ? `${input}.bak` : undefined
  if (inPlace && !values.force) throw new UsageError(`repairing ${input} in place replaces it: pass --force (the original is kept as ${input}.bak), or give an [out] file`)
  if (!inPlace && !values.force && await exists(output)) throw new UsageError(`${output} exists: pass --force to overwrite it`)
  if (backup !== undefined && await exists(backup)) throw new UsageError(`${backup} exists and is never overwritten: move it away, or pass --no-backup`)

  // DSH writes its logs 0600 (a session holds the user's prompts and files): the repaired log keeps the
  // input's permission bits, whatever the umask would give a new file.
  const { mode } = await stat(input)
  const temporary = `${output}.repair-${randomBytes(4).toString('hex')}.tmp`
  try {
    const file = await open(temporary, 'wx', 0o600)
    try {
      await file.chmod(mode & 0o7777)
      await repairSessionLog(input, (bytes) => file.write(bytes))
      await file.sync()
    } finally {
      await file.close()
    }
    // The original is copied, not moved, so a crash at any point leaves a loadable <in> or the original.
    if (backup !== undefined) await copyFile(input, backup, constants.COPYFILE_EXCL)
    await rename(temporary, output)
  } catch (error) {
    await rm(temporary, { force: true })
    throw error
  }
  process.stdout.write(`${input}: rewrote ${what} as hook/result → ${output}${backup ? ` (original kept as ${backup})` : ''}\n`)
  return 0
}

async function exists(path) {
  return access(path).then(() => true, () => false)
}
