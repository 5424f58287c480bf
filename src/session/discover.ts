/**
 * Finds session logs under the paths a user names. A named file is always
 * read. A directory is searched recursively for `*.jsonl` / `*.jsonl.zstd`
 * files; where one session directory holds several generations of DSH's own
 * transcript (`session.jsonl.zstd`, `session.v4.jsonl.zstd`, ...), only the
 * newest generation is read, since a newer DSH writes the whole session anew
 * in its own format and the older file is a stale copy.
 */
import { readdir, stat } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'

const LOG_FILE = /\.jsonl(\.zstd)?$/
/** `session.jsonl[.zstd]` is generation 0 (rc.8); `session.vN.jsonl[.zstd]` is generation N. */
const TRANSCRIPT = /^session(?:\.v(\d+))?\.jsonl(?:\.zstd)?$/

/** The session logs found under the paths given, and the paths that could not be searched. */
export interface DiscoveredFiles {
  /** Logs to read, in the order of the paths given; a directory's logs in name order. */
  files: string[]
  /** Paths that do not exist or cannot be listed, with the reason. */
  errors: string[]
}

/**
 * Find the session logs under the paths a user names (see the top of this file for the rules).
 * @param paths - files (always kept, whatever their name) and directories (searched recursively).
 * @returns the logs found, in order, and one message per path that does not exist or cannot be listed.
 * @throws never for a missing or unreadable path: it is reported in `errors` and the search goes on.
 */
export async function findSessionFiles(paths: readonly string[]): Promise<DiscoveredFiles> {
  const files: string[] = []
  const errors: string[] = []
  for (const path of paths) {
    let info
    try {
      info = await stat(path)
    } catch (error) {
      errors.push(`${path}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file or directory' : (error as Error).message}`)
      continue
    }
    if (info.isDirectory()) files.push(...newestGenerations(await walk(path, errors)))
    else files.push(path)
  }
  return { files, errors }
}

async function walk(directory: string, errors: string[]): Promise<string[]> {
  let entries
  try {
    entries = await readdir(directory, { withFileTypes: true })
  } catch (error) {
    errors.push(`${directory}: ${(error as Error).message}`)
    return []
  }
  const found: string[] = []
  for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    const path = join(directory, entry.name)
    if (entry.isDirectory()) found.push(...await walk(path, errors))
    else if (entry.isFile() && LOG_FILE.test(entry.name)) found.push(path)
  }
  return found
}

function newestGenerations(files: string[]): string[] {
  const newest = new Map<string, { file: string; generation: number }>()
  for (const file of files) {
    const match = TRANSCRIPT.exec(basename(file))
    if (match === null) continue
    const generation = Number(match[1] ?? 0)
    const current = newest.get(dirname(file))
    if (current === undefined || generation > current.generation) newest.set(dirname(file), { file, generation })
  }
  return files.filter((file) => !TRANSCRIPT.test(basename(file)) || newest.get(dirname(file))?.file === file)
}
