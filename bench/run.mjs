// Runs every bench/*.bench.mjs in its own Node process (so heap and RSS figures are not polluted by
// another benchmark), in name order, echoes what each prints, and writes everything to bench/report.md
// (not committed: figures belong to one run on one machine, so they are produced, never copied).
// Benches are reports, not gates: on a shared, noisy machine a timing target can be missed by noise.
// Convention for a bench's exit status: 0 = every target met; 3 = a target missed, figures printed
// ("MISSED"); anything else (another code, a signal) = the bench crashed or its measurement is invalid
// ("crashed"). This runner exits 0 unless a bench crashed.
import { readdirSync, writeFileSync } from 'node:fs'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { cpus } from 'node:os'
import { fileURLToPath } from 'node:url'
import { dirname, join } from 'node:path'

const TARGET_MISSED = 3

const here = dirname(fileURLToPath(import.meta.url))
const only = process.argv.slice(2)
const benches = readdirSync(here)
  .filter((file) => file.endsWith('.bench.mjs'))
  .filter((file) => only.length === 0 || only.some((name) => file.startsWith(name)))
  .sort()

/** Runs one bench, echoing its output as it comes, and returns its exit outcome and output. */
async function runBench(file) {
  const child = spawn(process.execPath, ['--expose-gc', join(here, file)], { stdio: ['ignore', 'pipe', 'inherit'] })
  let output = ''
  child.stdout.setEncoding('utf8')
  child.stdout.on('data', (text) => {
    output += text
    process.stdout.write(text)
  })
  const [code, signal] = await once(child, 'close')
  const outcome = code === 0 ? 'met' : code === TARGET_MISSED ? 'MISSED' : `crashed (exit ${code ?? signal})`
  return { file, outcome, output }
}

const outcomes = []
for (const file of benches) {
  console.log(`\n## ${file}`)
  outcomes.push(await runBench(file))
}
console.log('\n## summary')
for (const { file, outcome } of outcomes) console.log(`${file}: ${outcome}`)

const report = [
  '# Benchmark report',
  '',
  `One run of \`npm run bench\`: ${new Date().toISOString()}, Node ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}.`,
  'Figures belong to this run on this machine; targets and how to measure are in docs/development.md.',
  '',
  '| bench | outcome |',
  '|---|---|',
  ...outcomes.map(({ file, outcome }) => `| \`${file}\` | ${outcome} |`),
  ...outcomes.flatMap(({ file, output }) => ['', `## ${file}`, '', '```text', output.trimEnd(), '```']),
  '',
].join('\n')
const reportFile = join(here, 'report.md')
writeFileSync(reportFile, report)
console.log(`\nreport written to ${reportFile}`)
process.exit(outcomes.some(({ outcome }) => outcome.startsWith('crashed')) ? 1 : 0)
