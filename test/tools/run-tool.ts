/**
 * Runs one of the command-line tools as a user does (a Node process over the
 * built lib/), returning its exit code and output.
 */
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join } from 'node:path'

const root = join(import.meta.dirname, '../..')

export interface ToolRun {
  code: number | null
  stdout: string
  stderr: string
  stdoutBytes: Buffer
}

export function runTool(tool: string, args: string[]): Promise<ToolRun> {
  if (!existsSync(join(root, 'lib/session.js'))) throw new Error('lib/ is not built: run `npm run build` (npm test does it)')
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(root, 'tools', tool), ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] })
    const out: Buffer[] = []
    const err: Buffer[] = []
    child.stdout.on('data', (chunk) => out.push(chunk))
    child.stderr.on('data', (chunk) => err.push(chunk))
    child.on('error', reject)
    child.on('close', (code) => {
      const stdoutBytes = Buffer.concat(out)
      resolve({ code, stdout: stdoutBytes.toString('utf8'), stderr: Buffer.concat(err).toString('utf8'), stdoutBytes })
    })
  })
}
