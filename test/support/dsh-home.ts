// Vitest's global setup: one temporary DSH_HOME for the whole test run, which the workers inherit and
// which is removed when the run ends. DSH's adapters keep state under DSH_HOME (the DeepSeek adapter
// writes an anonymous user id there), so a test run touches neither the user's own DSH home nor leaves
// a directory behind: made per worker and never removed, it left one in the temp dir per test file.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export default function setup(): () => void {
  const home = mkdtempSync(join(tmpdir(), 'dsh-loop-breaker-test-home-'))
  process.env.DSH_HOME = home
  return () => rmSync(home, { recursive: true, force: true })
}
