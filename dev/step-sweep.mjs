#!/usr/bin/env node
// Replays real agent runs through the built step judge (lib/detector.js): SWE-agent's trajectories on
// SWE-bench (gpt-4-0125-preview, three budgets, as committed in nus-apr/auto-code-rover, with each
// budget's list of resolved tasks) and InterCode's multi-turn runs of seven models on bash, SQL, Python
// and CTF tasks (princeton-nlp/intercode, with each run's reward). Each step's command is one tool
// call, the previous step's output its result. Prints the reports by kind, every report in a run that
// succeeded (resolved, or full reward) with the commands before it, and a summary.
// `node dev/step-sweep.mjs [--set key=value ...]` (after `npx tsup`): the copies are found as the
// real-output corpus finds its own (test/fixtures/real-output/README.md); nothing is committed of them.
import { parseArgs } from 'node:util'
import { settingsFromArgs } from './settings-args.mjs'
import { StepJudge } from '../lib/detector.js'
import { openSource } from '../test/fixtures/real-output/corpus.mjs'

const { values } = parseArgs({ options: { set: { type: 'string', multiple: true } } })
const config = settingsFromArgs(values.set)

/** SWE-agent's runs: { id, succeeded, steps: [{ command, output }] }. */
function* sweAgentRuns() {
  const source = openSource({ repo: 'nus-apr/auto-code-rover', dir: 'results/swe-agent-results' })
  const files = source.list()
  for (const report of files.filter((path) => path.endsWith('/final_report.json'))) {
    const budget = report.slice(0, -'/final_report.json'.length)
    const resolved = new Set(Object.values(source.json(report)?.resolved_per_project ?? {}).flat())
    for (const path of files.filter((file) => file.startsWith(`${budget}/`) && file.endsWith('.traj'))) {
      const trajectory = source.json(path)?.trajectory
      if (!Array.isArray(trajectory)) continue
      const task = path.slice(budget.length + 1, -'.traj'.length)
      yield { id: `swe-agent/${budget.split('/').pop()}/${task}`, tool: 'swe_agent', succeeded: resolved.has(task), steps: trajectory.map((step) => ({ command: step.action, output: step.observation })) }
    }
  }
}

/** InterCode's runs, the same shape. */
function* interCodeRuns() {
  const source = openSource({ repo: 'princeton-nlp/intercode', dir: 'data/results' })
  for (const path of source.list().filter((file) => file.endsWith('.json'))) {
    const runs = source.json(path)
    for (const run of Object.values(runs ?? {})) {
      const history = run?.turn_history
      if (!Array.isArray(history?.actions) || !Array.isArray(history.observations)) continue
      const tool = String(run.environment ?? 'exec').replace(/^ic_/, '')
      yield { id: `intercode/${path.split('/').slice(-2).join('/')}#${run.task_id}`, tool, succeeded: run.summary?.max_reward === 1,
        steps: history.actions.map((command, i) => ({ command: String(command), output: String(history.observations[i] ?? '') })) }
    }
  }
}

for (const [name, runs] of [['SWE-agent', sweAgentRuns()], ['InterCode', interCodeRuns()]]) {
  let total = 0
  let succeeded = 0
  let steps = 0
  const reports = []
  for (const run of runs) {
    total++
    if (run.succeeded) succeeded++
    steps += run.steps.length
    const judge = new StepJudge(config)
    run.steps.forEach((step, i) => {
      const verdict = judge.observe({ text: '', toolCalls: [{ name: run.tool, arguments: JSON.stringify({ command: step.command }) }], previousResults: i > 0 ? [run.steps[i - 1].output] : undefined })
      if (verdict === undefined) return
      const last = run.steps.slice(Math.max(0, i - 2), i + 1).map((s) => s.command)
      const kind = verdict !== 'repeated-step' ? verdict : last.every((command) => command === last[0]) ? 'same command' : 'masked repeat'
      reports.push({ run, at: i, kind })
    })
  }
  const kinds = {}
  for (const { kind } of reports) kinds[kind] = (kinds[kind] ?? 0) + 1
  for (const { run, at, kind } of reports.filter(({ run }) => run.succeeded)) {
    const before = run.steps.slice(Math.max(0, at - 3), at + 1).map((step) => step.command.trim().split('\n')[0].slice(0, 80))
    console.log(`SUCCEEDED ${run.id} step ${at} ${kind}: ${JSON.stringify(before)}`)
  }
  console.log(`${name}: ${total} runs (${succeeded} succeeded), ${steps} steps; ${reports.length} reports in ${new Set(reports.map(({ run }) => run)).size} runs (${JSON.stringify(kinds)}); in runs that succeeded ${reports.filter(({ run }) => run.succeeded).length}`)
}
