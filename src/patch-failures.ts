/**
 * Live-edit feedback for a save of a patch file that dsh could not apply at all, for both DSH plugins of
 * this package: such a save reaches no row, and rc.8 says nothing of it, so one running plugin listens to
 * `hmr/config-update-failed`, reads the files again and says what is wrong in one line. When every file
 * parses once the save has settled, the save was read half-written: the listener touches the file so the
 * watcher reads it again. Why and the host code involved: docs/config.md#on-a-live-edit.
 *
 * Not covered: a save read half-written that still parses (a write split in pieces) is applied as read.
 */
import { readFile, stat, utimes } from 'node:fs/promises'
import type { Stats } from 'node:fs'
import { setTimeout as sleep } from 'node:timers/promises'
import { patchFileRefusal } from './patch-dialect.ts'

declare module '@deepseek-ai/cordis' {
  interface Events {
    /** cordis-plugin-hmr: the refresh after a change of a watched config file failed (awaited by that refresh). */
    'hmr/config-update-failed'(filename: string, error: Error): Promise<void> | void
  }
}

/**
 * How long a save is given to settle before the files are read again: well past the watcher's 50 ms change
 * throttle, and longer than an in-place save of a patch file takes (one truncate and a few writes).
 */
const SETTLE_MS = 150

/**
 * What every running plugin of the package shares, on `globalThis` because each plugin's bundle carries its
 * own copy of this module: which plugins listen (the first speaks, so a save gets one line), the patch
 * files seen failing, per file the last save a line was said for (its modification time and the line), and
 * the modification time each nudge left.
 */
interface Shared {
  speakers: object[]
  files: Set<string>
  said: Map<string, string>
  nudged: Map<string, number>
}

const SHARED = Symbol.for('dsh-loop-breaker/patch-failures')

function shared(): Shared {
  const global = globalThis as { [SHARED]?: Shared }
  return (global[SHARED] ??= { speakers: [], files: new Set(), said: new Map(), nudged: new Map() })
}

interface PatchFailureContext {
  on(event: 'hmr/config-update-failed', listener: (filename: string, error: Error) => Promise<void>): unknown
  effect(execute: () => () => void, label?: string): unknown
}

/**
 * Registers, for the lifetime of the plugin's fiber, the listener described above.
 * @param ctx - the plugin's Cordis context.
 * @param plugin - the plugin's name, which starts the line.
 * @param write - where the line goes (stderr otherwise).
 */
export function sayUnappliedPatches(
  ctx: PatchFailureContext,
  plugin: string,
  write: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
): void {
  const state = shared()
  const speaker = {}
  ctx.effect(() => {
    state.speakers.push(speaker)
    return () => {
      state.speakers.splice(state.speakers.indexOf(speaker), 1)
    }
  }, `${plugin}: say unapplied patch saves`)
  const speaks = () => state.speakers[0] === speaker

  /** One line per save (the saved file at one modification time) and what is wrong with it. */
  const say = (filename: string, saved: Stats | undefined, problem: string) => {
    const said = `${saved?.mtimeMs}\n${problem}`
    if (state.said.get(filename) === said) return
    state.said.set(filename, said)
    write(`${plugin}: ${problem}; dsh did not apply this save and runs on with the settings it had (it will not start with the file as it is)`)
  }

  ctx.on('hmr/config-update-failed', async (filename, error) => {
    if (!speaks()) return
    try {
      state.files.add(filename)
      await sleep(SETTLE_MS)
      if (!speaks()) return
      const saved = await stat(filename).catch(() => undefined)
      // The launcher reads every watched file on any change: the saved one first, then the others seen failing.
      for (const file of [filename, ...[...state.files].filter((other) => other !== filename)]) {
        const problem = await refusalOf(file)
        if (problem !== undefined) return say(filename, saved, problem)
      }
      // Every file reads well now: the watcher read the save half-written, or something else failed.
      if (saved === undefined) return
      if (state.nudged.get(filename) === saved.mtimeMs) return say(filename, saved, `${filename}: ${firstLine(error)}`)
      state.nudged.set(filename, await touch(filename, saved))
    } catch (failure) {
      // Never fail the host's refresh: the line is all this adds.
      write(`${plugin}: could not check ${filename} after dsh failed to apply it: ${firstLine(failure)}`)
    }
  })
}

/** The launcher's reason to refuse the file as it is now, or `undefined`; a missing file is no layer to it. */
async function refusalOf(file: string): Promise<string | undefined> {
  let source: string
  try {
    source = await readFile(file, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    return `${file}: cannot be read: ${firstLine(error)}`
  }
  return patchFileRefusal(source, file)
}

/** Moves the file's modification time forward (its content untouched), so the watcher reports a change; returns the new time. */
async function touch(file: string, saved: Stats): Promise<number> {
  await utimes(file, saved.atime, new Date(Math.max(Date.now(), saved.mtimeMs + 1)))
  return (await stat(file)).mtimeMs
}

function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0]
}
