#!/usr/bin/env node
// Replays DSH session logs through the loop-breaker's own detector (lib/detector.js, the very code the
// live plugin runs) and reports, call by call, where it would cut and what the plugin recorded.
// A thin shell over lib/session.js; run `npm run build` first in a checkout.
import { availableParallelism } from 'node:os'
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads'
import { GUARD_SETTING_NAMES, analyzeFile, closestName, findSessionFiles, guardsOf, jsExpression, readPatchConfig } from '../lib/session.js'
import * as detector from '../lib/detector.js'
import { UsageError, parseFlags } from './cli-flags.mjs'

const DETECTOR_URL = new URL('../lib/detector.js', import.meta.url).href
const GUARD_NAMES = new Set(GUARD_SETTING_NAMES)
/**
 * Heap cap of a reading thread: a log's live data is one call, far below it (bench/session.bench.mjs).
 * The young generation holds the lines being parsed; 16 MB instead of 32 takes about 14 MB off the
 * peak RSS on a 100 MB plain .jsonl at the same CPU time (measured ABAB, bench/session.bench.mjs).
 */
const READER_LIMITS = { maxOldGenerationSizeMb: 96, maxYoungGenerationSizeMb: 16 }

const HELP = `Usage: node tools/analyze-session.mjs <file-or-dir>... [options]

Replays every model call of DSH session logs through the loop-breaker detector
(the same StreamDetector the live plugin runs, fed the exact recorded deltas),
and the cross-call / cross-step judges across calls, then prints per call what
it finds beside what the plugin recorded.

Inputs
  <file>             a session log: .jsonl or .jsonl.zstd (all zstd frames), rc.8 or v4;
                     the encoding is told by the content, not the name
  <dir>              searched recursively for *.jsonl and *.jsonl.zstd; where one session
                     directory holds several generations (session.jsonl.zstd,
                     session.v4.jsonl.zstd, ...) only the newest is read

Options
  --json             one JSON document on stdout instead of tables:
                     {"files":[{"file","format","calls":[{"turn","step","attempt",
                     "reasoningChars","textChars","toolCalls","break","stall","recorded",
                     "trace","comparison","damaged","continuation","crop"}]}],
                     "summary":{"files","calls","breaks","stalls","continuations","crops",
                     "disagreements","cannotJudge","errors"}}
  --config <file>    a Cordis patch file (e.g. a profile's cordis.patch.yml); the guards
                     of its loop-breaker row (reasoning, text, tool, steps) are used.
                     Repeatable: as in DSH's layers, the last loop-breaker row replaces
                     earlier ones whole.
  --set key=value    override one guard or one detector threshold (after --config).
                     Repeatable.
  --sweep key=v1,v2,...
                     tuning: count breaks and stalls over all inputs for each value of one
                     setting (the other settings as configured)
  --jobs <n>         threads to use (default: the number of CPU cores): files are read on
                     worker threads; with fewer files than threads, each file's detector
                     runs on a thread of its own beside its reader
  --help             this text

Settings: the guards reasoning, text and tool (full, verbatim or off) and steps (true or
false), and every threshold in DETECTOR_SETTINGS of dsh-loop-breaker/detector (the detector's
calibration: docs/detector.md#settings), e.g. textPoolMinRepeatedChars, reasoningCycleMinSpan,
maxThinkingSteps; the live plugin runs every threshold at its default. The plugin's reaction
settings in a --config row (escalate, maxFires, ...) decide what it does after a finding, not
where it finds one: they are read and left aside. Thresholds in a --config row are settings
of an earlier version: named on stderr in one line and left aside, as the live plugin does. A
name that is no setting at all is named on stderr, with the closest setting, and left aside too.

Output columns: call (turn.step, #attempt when retried), end (the stream's finish: stop,
tool-calls, error, ...; none when it never finished, e.g. cancelled), chars of reasoning and
text, tool calls, verdict (break, stall or ok), rule, side@at (where the live plugin would cut:
UTF-16 length of that side so far), repeated chars (the count the plugin's cut gives in its
trim marker, notice and log line: the loop's characters it removes), the plugin's recorded
action, and its other records for the call: continued after the output length limit
(continue n, or end when the cap was spent) and steps cropped from its request (crop n). A log
written with journal: false records no action: a call the plugin cut there reads "cut by the
plugin (no journal: <side>)", from the trim marker that closed its block and the notice that
followed. A line marked ≠ is one where replay and record disagree (the summary then says how to
replay with the settings the plugin ran with); a line marked "? cannot judge: the log ends at
the cut (at N)" is a call the plugin cut whose replay does not trip by the end of the log,
which stops at the cut: a more patient setting cannot be judged there.

Damaged logs: a zstd frame that fails to decode or whose content checksum does not match
is skipped and listed under Errors with its byte range and the seq gap it leaves; every
frame after it is still read. A call that spans the skipped stretch is marked "damaged"
(its verdict may miss what was lost); the others are analysed as usual. See
docs/tools.md#damaged-logs.

Exit status: 0 every input read fully; 1 some input could not be read fully (errors listed,
skipped frames included; everything readable is still reported); 2 bad usage, invalid
settings, or an input that is not a DSH session log.`

/** What to do about disagreements and calls the replay cannot judge, after the summary. */
const NEXT_STEPS = {
  disagree: [
    'Where replay and record disagree, the live plugin most likely ran with other settings. Replay with',
    "the profile's patch layers, in DSH's order (the package's own patch first, then the profile's):",
    '  --config <DSH_HOME>/profiles/<profile>/node_modules/dsh-loop-breaker/cordis.patch.yml \\',
    '  --config <DSH_HOME>/profiles/<profile>/cordis.patch.yml',
    'plus any --patch file the session ran with.',
  ],
  cannotJudge: [
    'A call marked "cannot judge" was cut by the live plugin: its log ends at the cut, so a replay with more',
    'patient settings finds no later cut in it. Judge such a setting on logs the plugin did not cut',
    '(recorded before it was installed, or with the setting already in force).',
  ],
}

if (!isMainThread) {
  const { files, configs, replayWorker } = workerData
  let reported = 0
  const onProgress = (bytes) => {
    if (Date.now() - reported < 100) return
    reported = Date.now()
    parentPort.postMessage({ bytes })
  }
  for (const file of files) {
    parentPort.postMessage({ start: file })
    parentPort.postMessage({ result: await analyzeFile(file, detector, configs, { onProgress, replayWorker }) })
  }
} else {
  process.exitCode = await main(process.argv.slice(2)).catch((error) => {
    if (error instanceof UsageError || /^loop-breaker: /.test(error?.message)) {
      process.stderr.write(`analyze-session: ${error.message}\nRun with --help for usage.\n`)
      return 2
    }
    throw error
  })
}

async function main(argv) {
  const options = parseArguments(argv)
  if (options.help) {
    process.stdout.write(HELP + '\n')
    return 0
  }
  if (options.inputs.length === 0) throw new UsageError('no session file or directory given')
  const configs = await buildConfigs(options)
  const discovered = await findSessionFiles(options.inputs)
  const results = await analyzeAll(discovered.files, configs, options.jobs)
  const errors = [...discovered.errors, ...results.flatMap((result) => result.errors)]
  // A file that is not a session log is a mistake in the command line: its one error line says so.
  const notLogs = results.filter((result) => result.notASession)
  if (notLogs.length > 0 && !options.json) {
    process.stderr.write(notLogs.map((result) => `analyze-session: ${result.errors[0]}\n`).join(''))
    if (notLogs.length === results.length && discovered.errors.length === 0) return 2
  }
  const report = results.filter((result) => options.json || !result.notASession)
  if (options.json) process.stdout.write(JSON.stringify(jsonDocument(results, errors), null, 2) + '\n')
  else process.stdout.write(humanReport(report, errors.filter((error) => !notLogs.some((result) => result.errors[0] === error)), options.sweep, configs))
  return notLogs.length > 0 ? 2 : errors.length > 0 ? 1 : 0
}

function parseArguments(argv) {
  const { values, positionals } = parseFlags(argv, {
    help: { type: 'boolean', short: 'h' },
    json: { type: 'boolean' },
    config: { type: 'string', multiple: true },
    set: { type: 'string', multiple: true },
    sweep: { type: 'string', multiple: true },
    jobs: { type: 'string' },
  })
  const options = {
    inputs: positionals,
    json: values.json === true,
    help: values.help === true,
    configFiles: values.config ?? [],
    sets: (values.set ?? []).map((text) => keyValue('--set', text)),
    sweep: undefined,
    jobs: availableParallelism(),
  }
  if (values.sweep !== undefined) {
    if (values.sweep.length > 1) throw new UsageError('--sweep can be given once')
    const { key, raw } = keyValue('--sweep', values.sweep[0])
    options.sweep = { key, values: raw.split(',').map((entry) => entry.trim()).filter(Boolean) }
    if (options.sweep.values.length === 0) throw new UsageError(`--sweep ${key}= needs at least one value`)
  }
  if (values.jobs !== undefined) {
    const jobs = Number(values.jobs)
    if (!Number.isInteger(jobs) || jobs < 1) throw new UsageError(`--jobs must be a whole number >= 1 (got ${values.jobs})`)
    options.jobs = jobs
  }
  return options
}

function keyValue(flag, text) {
  const at = text.indexOf('=')
  if (at <= 0) throw new UsageError(`${flag} expects key=value (got ${JSON.stringify(text)})`)
  return { key: text.slice(0, at).trim(), raw: text.slice(at + 1).trim() }
}

/**
 * The reported config first, then one per sweep value, each `{ thresholds, guards }` (plain data: it
 * crosses to the worker threads) and validated by the detector itself. The patch rows give the guards
 * (`reasoning`, `text`, `tool`, `steps`), as the live plugin takes them; `--set` and `--sweep` give a
 * guard or any detector threshold.
 */
async function buildConfigs(options) {
  const fromPatches = await readPatchConfig(options.configFiles).catch((error) => {
    throw new UsageError(error.code === 'ENOENT' ? `--config ${error.path}: no such file` : error.message)
  })
  const { guards, retired, unknown } = guardsOf(fromPatches)
  if (retired !== undefined) process.stderr.write(`analyze-session: --config: ${retired}\n`)
  for (const { name, closest } of unknown) {
    process.stderr.write(`analyze-session: --config: ${name} is not a loop-breaker setting${didYouMean(closest)} (left aside; the live plugin refuses it)\n`)
  }
  const base = { thresholds: {}, guards }
  for (const { key, raw } of options.sets) setIn(base, checkedName('--set', key), settingValue(raw))
  if (options.sweep !== undefined) checkedName('--sweep', options.sweep.key)
  for (const [key, value] of Object.entries(guards)) {
    const expression = jsExpression(value)
    if (expression !== undefined) throw new UsageError(`--config: ${key} is a !!js expression (${expression}) that only DSH can evaluate: give its value with --set ${key}=<value>`)
  }
  const configs = [base]
  for (const raw of options.sweep?.values ?? []) {
    const swept = { thresholds: { ...base.thresholds }, guards: { ...base.guards } }
    setIn(swept, options.sweep.key, settingValue(raw))
    configs.push(swept)
  }
  for (const config of configs) new detector.DetectorPlan(config.thresholds, config.guards)
  return configs
}

/**
 * `key` when it names a guard or a detector threshold; otherwise a usage error with the closest name (a
 * mistyped or removed threshold would get the detector's own message, which lists all of them).
 */
function checkedName(flag, key) {
  if (GUARD_NAMES.has(key) || Object.hasOwn(detector.DETECTOR_SETTINGS, key)) return key
  const closest = closestName(key, [...GUARD_NAMES, ...Object.keys(detector.DETECTOR_SETTINGS)])
  throw new UsageError(`${flag} ${key}: no such guard or detector threshold${didYouMean(closest)} (the thresholds: docs/detector.md#settings)`)
}

/** The hint after an unknown name: `, did you mean <closest>?`, or nothing when no name is close. */
function didYouMean(closest) {
  return closest === undefined ? '' : `, did you mean ${closest}?`
}

/** A guard goes to `guards`, anything else to `thresholds`. */
function setIn(config, key, value) {
  if (GUARD_NAMES.has(key)) config.guards[key] = value
  else config.thresholds[key] = value
}

/** The value a config gives `key`, guard or threshold. */
function valueIn(config, key) {
  return GUARD_NAMES.has(key) ? config.guards[key] : config.thresholds[key]
}

function settingValue(raw) {
  if (raw === 'true') return true
  if (raw === 'false') return false
  const number = Number(raw)
  return raw !== '' && Number.isFinite(number) ? number : raw
}

/**
 * Files in order. Each file is read on a worker thread whose heap is capped: V8 otherwise lets its heap
 * grow with the amount parsed, and memory must stay flat however large the log. Files are spread over
 * `jobs` such threads; with a spare thread per file, the detector runs on its own thread beside the reader.
 */
async function analyzeAll(files, configs, jobs) {
  const progress = createProgress(files.length)
  const threads = Math.max(1, Math.min(jobs, files.length))
  const replayWorker = threads < jobs ? { detectorUrl: DETECTOR_URL } : undefined
  const byFile = new Map()
  const shares = Array.from({ length: threads }, (_, index) => files.filter((_, at) => at % threads === index))
  await Promise.all(shares.map((share) => analyzeShare(share, { configs, replayWorker, progress, byFile })))
  progress.end()
  return files.map((file) => byFile.get(file))
}

/** One worker thread over `files`; a file it cannot finish (out of memory, a crash) is reported and the rest go on. */
function analyzeShare(files, context) {
  const { configs, replayWorker, progress, byFile } = context
  if (files.length === 0) return Promise.resolve()
  return new Promise((resolve) => {
    let current
    let failure
    const worker = new Worker(new URL(import.meta.url), { workerData: { files, configs, replayWorker }, resourceLimits: READER_LIMITS })
    worker.on('message', (message) => {
      if (message.start !== undefined) current = message.start
      else if (message.bytes !== undefined) progress.bytes(message.bytes)
      else {
        byFile.set(message.result.file, message.result)
        progress.fileDone()
      }
    })
    worker.on('error', (error) => { failure = error })
    worker.on('exit', () => {
      if (failure === undefined && files.every((file) => byFile.has(file))) return resolve()
      const failed = current ?? files.find((file) => !byFile.has(file))
      const why = failure?.code === 'ERR_WORKER_OUT_OF_MEMORY'
        ? `analysis ran out of memory (heap capped at ${READER_LIMITS.maxOldGenerationSizeMb} MB): a single call too large to hold`
        : `analysis failed: ${failure?.message ?? 'the worker thread exited'}`
      byFile.set(failed, { file: failed, format: 'unknown', calls: [], errors: [`${failed}: ${why}`], sweep: configs.slice(1).map(() => ({ breaks: 0, stalls: 0 })), skipped: {}, pluginActive: false, notASession: false })
      progress.fileDone()
      resolve(analyzeShare(files.filter((file) => !byFile.has(file)), context))
    })
  })
}

/** A single progress line on stderr, only when stderr is a terminal. */
function createProgress(total) {
  if (!process.stderr.isTTY) return { bytes() {}, fileDone() {}, end() {} }
  let done = 0
  let bytes = 0
  let last = 0
  const draw = () => process.stderr.write(`\r\x1b[Kanalyzing: ${done}/${total} files${bytes ? `, ${(bytes / 1e6).toFixed(1)} MB of the current file` : ''}`)
  return {
    bytes(read) {
      bytes = read
      if (Date.now() - last > 100) { last = Date.now(); draw() }
    },
    fileDone() { done++; bytes = 0; draw() },
    end() { process.stderr.write('\r\x1b[K') },
  }
}

function jsonDocument(results, errors) {
  const calls = results.flatMap((result) => result.calls)
  return {
    files: results.map(({ file, format, calls: fileCalls }) => ({
      file,
      format,
      calls: fileCalls.map(({ turn, step, attempt, reasoningChars, textChars, toolCalls, break: cut, stall, recorded, trace, comparison, damaged, continuation, crop }) =>
        ({ turn, step, attempt, reasoningChars, textChars, toolCalls, break: cut, stall, recorded, trace, comparison, damaged, continuation, crop })),
    })),
    summary: {
      files: results.length,
      calls: calls.length,
      breaks: calls.filter((call) => call.break !== null).length,
      stalls: calls.filter((call) => call.stall !== null).length,
      continuations: calls.filter((call) => call.continuation?.action === 'continue').length,
      crops: calls.filter((call) => call.crop !== null).length,
      disagreements: calls.filter((call) => call.comparison?.kind === 'disagree').length,
      cannotJudge: calls.filter((call) => call.comparison?.kind === 'cannot-judge').length,
      errors,
    },
  }
}

function humanReport(results, errors, sweep, configs) {
  const out = []
  const byRule = new Map()
  let disagreements = 0
  let cannotJudge = 0
  for (const result of results) {
    out.push(`${result.file}  (${result.format}, ${result.calls.length} calls)`)
    const rows = [['call', 'end', 'reasoning', 'text', 'tool', 'verdict', 'rule', 'side@at', 'repeated', 'recorded', 'also', '']]
    for (const call of result.calls) {
      const comparison = call.comparison
      if (comparison?.kind === 'disagree') disagreements++
      if (comparison?.kind === 'cannot-judge') cannotJudge++
      const verdict = call.break ? 'break' : call.stall ? 'stall' : 'ok'
      if (call.break) byRule.set(call.break.rule, (byRule.get(call.break.rule) ?? 0) + 1)
      if (call.stall) byRule.set(call.stall, (byRule.get(call.stall) ?? 0) + 1)
      rows.push([
        `${call.turn}.${call.step}${call.attempt > 1 ? ` #${call.attempt}` : ''}`,
        call.finish ?? 'none',
        String(call.reasoningChars),
        String(call.textChars),
        call.toolCalls.length ? call.toolCalls.join(',') : '-',
        verdict,
        call.break?.rule ?? call.stall ?? '-',
        call.break ? `${call.break.side}@${call.break.at}` : '-',
        call.break ? String(call.break.repeatedChars) : '-',
        recordedText(call.recorded, call.trace),
        alsoText(call),
        [
          comparison === null ? '' : comparison.kind === 'disagree' ? `≠ ${comparison.message}` : `? ${comparison.message}`,
          call.damaged ? `damaged: ${call.damaged}` : '',
        ].filter(Boolean).join('; '),
      ])
    }
    if (result.calls.length === 0) out.push('  (no model call read)')
    else out.push(table(rows, [false, false, true, true, false, false, false, false, true, false, false, false]).map((line) => `  ${line}`).join('\n'))
    const skipped = Object.entries(result.skipped).filter(([type]) => type.startsWith('chunk:') || type.startsWith('stream:') || type === '(no type)')
    if (skipped.length) out.push(`  unknown chunks skipped: ${skipped.map(([type, count]) => `${type} ×${count}`).join(', ')}`)
    out.push('')
  }
  const calls = results.reduce((sum, result) => sum + result.calls.length, 0)
  const breaks = results.reduce((sum, result) => sum + result.calls.filter((call) => call.break).length, 0)
  const stalls = results.reduce((sum, result) => sum + result.calls.filter((call) => call.stall).length, 0)
  const continued = results.reduce((sum, result) => sum + result.calls.filter((call) => call.continuation?.action === 'continue').length, 0)
  const cropped = results.reduce((sum, result) => sum + result.calls.filter((call) => call.crop).length, 0)
  const comparisons = [
    disagreements ? `, ${disagreements} disagreement(s) with the recorded plugin events` : '',
    cannotJudge ? `, ${cannotJudge} call(s) the replay cannot judge` : '',
  ].join('')
  out.push(`Summary: ${results.length} file(s), ${calls} calls, ${breaks} break(s), ${stalls} stall(s), ${continued} continuation(s), ${cropped} crop(s)${comparisons}`)
  for (const [rule, count] of [...byRule].sort((a, b) => b[1] - a[1])) out.push(`  ${rule.padEnd(20)} ${count}`)
  if (disagreements) out.push('', ...NEXT_STEPS.disagree)
  if (cannotJudge) out.push('', ...NEXT_STEPS.cannotJudge)
  if (sweep) {
    out.push('', `Sweep of ${sweep.key} over all inputs:`)
    const rows = [[sweep.key, 'breaks', 'stalls']]
    sweep.values.forEach((value, index) => {
      const totals = results.reduce((sum, result) => ({
        breaks: sum.breaks + result.sweep[index].breaks, stalls: sum.stalls + result.sweep[index].stalls,
      }), { breaks: 0, stalls: 0 })
      rows.push([String(valueIn(configs[index + 1], sweep.key)), String(totals.breaks), String(totals.stalls)])
    })
    out.push(table(rows, [true, true, true]).map((line) => `  ${line}`).join('\n'))
  }
  if (errors.length) out.push('', `Errors (${errors.length}):`, ...errors.map((error) => `  ${error}`))
  return out.join('\n') + '\n'
}

function recordedText(recorded, trace) {
  if (recorded !== null) {
    if (recorded.type === 'loop-breaker/break') return `${recorded.action} (${recorded.rule} ${recorded.side}@${recorded.at})`
    return `${recorded.action} (${recorded.judge} ${recorded.reason})`
  }
  if (trace === null) return '-'
  // A log written with `journal: false`: only the plugin's traces in the messages say what it did.
  if (trace.side !== null || trace.notice?.includes(' / ')) return `cut by the plugin (no journal${trace.side === null ? '' : `: ${trace.side}`})`
  return `notice (no journal: ${trace.notice})`
}

/** The call's continuation and crop records: `continue 2`, `end 3`, `re-issue write_file`, `crop 2`. */
function alsoText(call) {
  const parts = []
  if (call.continuation) {
    parts.push(`${call.continuation.action} ${call.continuation.count}`)
    if (call.continuation.cutToolCall) parts.push(`re-issue ${call.continuation.cutToolCall}`)
  }
  if (call.crop) parts.push(`crop ${call.crop.steps}`)
  return parts.length ? parts.join(', ') : '-'
}

function table(rows, rightAligned) {
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => [...row[column]].length)))
  return rows.map((row) => row.map((cell, column) => {
    const pad = ' '.repeat(widths[column] - [...cell].length)
    return rightAligned[column] ? pad + cell : cell + pad
  }).join('  ').trimEnd())
}
