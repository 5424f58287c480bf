/**
 * Every documented command runs as written (issue 29): the shell blocks (```sh, ```bash, ```shell) of
 * README.md and docs/*.md, and the `$ ` lines of their other blocks (transcripts), run against a fresh
 * home, as a user who follows the docs runs them: the CLI installed with the documented `npm install -g`,
 * the package cloned from this checkout and packed, added by tarball, every `dsh` on that home. The .zh
 * files hold the same blocks (test/docs/i18n.test.ts checks that), so the English files are read.
 *
 * Only what a user substitutes is substituted (SUBSTITUTIONS below: the repository URL, the session the
 * user picks, the port their server printed) and what a user has already (the SETUP below: a project
 * directory, a model). The model is the e2e's scripted one (test/e2e/scripted-model.mjs, no network),
 * chosen in the home-level patch layer `~/.dsh/cordis.patch.yml`, which applies to every profile, as a
 * user's model choice does; the profiles' own patches stay as dsh creates them.
 *
 * Every block needs a rule in RULES (run, start as a server, or development-only with the reason): a block
 * with no rule, or a rule that matches no block, fails the step, so a new doc block must be handled here.
 * Rules run in their order here (the order a user follows: install, add, run, read), not in file order.
 * A block runs as one `bash -e -o pipefail` script: a line that fails fails the step, with its output.
 * A server block (`dsh --profile web`) is started with `--port 0 --no-open` after its own arguments (the
 * test picks a free port and has no browser), must print its address, stay up SERVER_UP_SECONDS and
 * answer HTTP, and is then stopped.
 *
 * Usage (Node >= 22.15, from test/e2e/run.sh): `node test/e2e/doc-commands.mjs <work dir>`.
 */
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs'
import { basename, dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..')
const e2e = join(root, 'test/e2e')
const work = process.argv[2]
if (work === undefined) {
  process.stderr.write('usage: doc-commands.mjs <work dir>\n')
  process.exit(2)
}
const SERVER_UP_SECONDS = 3
const started = Date.now()
const log = (line) => process.stdout.write(`[docs ${String(Math.round((Date.now() - started) / 1000)).padStart(4)}s] ${line}\n`)
/** The web server a server rule started, killed when the step fails while it runs. */
let server = null
function fail(message) {
  process.stderr.write(`\n[docs] FAILED: ${message}\n`)
  process.exit(1)
}
process.on('exit', () => server?.kill('SIGKILL'))

// ── the blocks ──────────────────────────────────────────────────────────────────────────────────────
const SHELL = new Set(['sh', 'bash', 'shell'])
const files = ['README.md', ...readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md') && !f.endsWith('.zh.md')).sort().map((f) => `docs/${f}`)]

/** Every shell block, and the `$ ` lines of every other fenced block, as `{file, line, script}`. */
function extract(file) {
  const blocks = []
  let open = null
  readFileSync(join(root, file), 'utf8').split('\n').forEach((text, index) => {
    const fence = /^(\s*)(`{3,}|~{3,})\s*([\w-]*)/.exec(text)
    if (open === null) {
      if (fence) open = { indent: fence[1].length, fence: fence[2], lang: fence[3], line: index + 1, body: [] }
      return
    }
    if (fence && fence[2].startsWith(open.fence) && fence[3] === '') {
      const body = SHELL.has(open.lang) ? open.body : open.body.filter((l) => l.startsWith('$ ')).map((l) => l.slice(2))
      if (body.length > 0) blocks.push({ file, line: open.line, script: body.join('\n') })
      open = null
      return
    }
    // A block inside a list item is indented with it; its lines lose that indentation.
    open.body.push(text.slice(Math.min(open.indent, /^ */.exec(text)[0].length)))
  })
  // A block is named by its file, its first line and, when several blocks of the file open with that
  // line, which of them it is (`nth`, from 0).
  for (const block of blocks) {
    const first = block.script.split('\n')[0]
    block.first = first
    block.nth = blocks.filter((other) => other.first === first && other !== block && other.line < block.line).length
  }
  return blocks
}
const blocks = files.flatMap(extract)

// ── the user's world ────────────────────────────────────────────────────────────────────────────────
// A fresh HOME, DSH_HOME unset (the docs' `~/.dsh`, the default); npm's download cache and pnpm's store
// stay the runner's (nothing the docs name); global npm packages go under the user's own prefix (a user
// without root does the same). The CLI and pnpm run.sh cached are taken off PATH: the documented
// installs provide them, and PATH holds the CLI's directory as install.md's `export PATH=` line, kept in
// the user's shell profile, makes it hold it in every later shell.
const home = join(work, 'user')
const prefix = join(home, '.npm-global')
const npmCache = spawnSync('npm', ['config', 'get', 'cache'], { encoding: 'utf8' }).stdout.trim()
const env = { ...process.env, HOME: home, npm_config_cache: npmCache, npm_config_prefix: prefix, npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false' }
delete env.DSH_HOME
env.PATH = [join(home, 'dsh-cli/node_modules/.bin'), join(prefix, 'bin'), ...process.env.PATH.split(':').filter((dir) => !/\/\.cache\/(dsh-cli|pnpm)-/.test(dir))].join(':')
const dshHome = join(home, '.dsh')
const checkout = join(home, 'dsh-loop-breaker')
const project = join(home, 'my-project')

// SETUP: what the user has before the docs start.
mkdirSync(project, { recursive: true })
mkdirSync(dshHome, { recursive: true })
const modelPatch = `# The user's model: the e2e's scripted model (no network), for every profile.
- insert:
    - id: e2e-scripted-model
      name: ${e2e}/scripted-model.mjs
- id: agent-default-model
  config:
    provider: e2e-scripted
    model: e2e-phrase-pool
`
writeFileSync(join(dshHome, 'cordis.patch.yml'), modelPatch)
log(`HOME=${home} (DSH_HOME unset: ~/.dsh); the model, in ~/.dsh/cordis.patch.yml:\n${modelPatch}`)

// ── sessions the user picks ─────────────────────────────────────────────────────────────────────────
/** The session the headless task wrote (found after its rule ran). */
let taskSession = null
function findTaskSession() {
  const dir = join(dshHome, 'sessions', `--${project.replaceAll('/', '-').replace(/^-/, '')}--`)
  const ids = existsSync(dir) ? readdirSync(dir).filter((id) => existsSync(join(dir, id, 'session.jsonl.zstd'))) : []
  if (ids.length !== 1) fail(`expected one session of the headless task under ${dir}, found ${ids.length}`)
  return { dirName: basename(dir), id: ids[0], file: join(dir, ids[0], 'session.jsonl.zstd') }
}
/** A copy of the task's session as dsh-loop-breaker 0.1.0 logged it (what the repair commands are for). */
let legacyCount = 0
function legacySession() {
  const source = taskSession ?? fail('a repair block ran before the headless task')
  const id = `session-00000000-0000-4000-8000-${String(++legacyCount).padStart(12, '0')}`
  const file = join(dirname(dirname(source.file)), id, 'session.jsonl.zstd')
  mkdirSync(dirname(file), { recursive: true })
  const plain = join(work, `legacy-${legacyCount}.jsonl`)
  for (const args of [[join(root, 'tools/decompress-session.mjs'), source.file, plain], [join(e2e, 'legacy-session.mjs'), plain, file, id]]) {
    const result = spawnSync(process.execPath, args, { encoding: 'utf8' })
    if (result.status !== 0) fail(`preparing a 0.1.0 session: ${args.join(' ')}: ${result.stderr}`)
  }
  return { dirName: source.dirName, id, file }
}

// ── substitutions: only what a user substitutes ─────────────────────────────────────────────────────
// [placeholder, what the user puts there]; `session` is the session the rule picks, `server` the running
// web server. Whatever `<...>` is left after these fails the step.
const SUBSTITUTIONS = [
  ['<repository-url>', () => root, 'the URL the user clones from: this checkout'],
  ['<session.jsonl.zstd>', ({ session }) => session.file, 'the session log the user reads'],
  ['--<project-dir>--/<session-id>', ({ session }) => `${session.dirName}/${session.id}`, 'the session the user reads'],
  ['--<cwd>--/<id>', ({ session }) => `${session.dirName}/${session.id}`, 'the session the user reads or repairs'],
  ['--<working directory>--/<session id>', ({ session }) => `${session.dirName}/${session.id}`, 'the session the user repairs'],
  ['session-<uuid>', ({ session }) => session.id, 'the session the user continues'],
  ['<port>', ({ server }) => String(server.port), 'the port the running dsh --profile web printed'],
]
function substitute(script, context) {
  let out = script
  for (const [placeholder, value] of SUBSTITUTIONS) if (out.includes(placeholder)) out = out.replaceAll(placeholder, value(context))
  // Comments (after " # ") may name things in angle brackets; a here-doc's `<<` is no placeholder.
  const code = out.split('\n').map((line) => line.split(/\s#\s/)[0]).join('\n').replace(/<<-?'?\w+'?/g, '')
  const left = /<[a-z][\w .-]*>/i.exec(code)
  if (left) fail(`no substitution for ${left[0]} in:\n${script}`)
  return out
}

// ── rules, in the order a user follows the docs ─────────────────────────────────────────────────────
// how: 'run' (exit 0 required), 'server' (a web server: start, stay up, answer HTTP, stop), 'dev' (not
// run: development only, with the reason). `first` is the block's first line (exact); `cwd` where the
// user stands; `session` which session the placeholders name; `omit` lines of the block not run, each
// with the reason; `check` inspects the output; `during` runs another block while the server is up.
const DEV_SUITE = "the repository's own suites and benches: .ci/run runs each as a CI step of its own"
const RULES = [
  { file: 'docs/install.md', first: 'npm install --prefix "$HOME/dsh-cli" --legacy-peer-deps -E @deepseek-ai/dsh@0.1.0-rc.8 \\', how: 'run', cwd: home },
  { file: 'README.md', first: 'git clone <repository-url> dsh-loop-breaker && cd dsh-loop-breaker', how: 'run', cwd: home },
  {
    file: 'README.md', first: 'npm ci && npm run demo   # the main job: a real in-process DSH agent loop whose model loops, cut and corrected',
    how: 'run', cwd: checkout,
    omit: [['npm test                 # the tests on Node 20, in under 2 minutes; `npm run test:corpus` adds the corpus passes, `npm run test:node22` the persistence tests on Node 22', DEV_SUITE]],
  },
  { file: 'docs/install.md', first: 'cd dsh-loop-breaker     # the checkout where npm pack wrote the tarball', nth: 0, how: 'run', cwd: home },
  { file: 'docs/install.md', first: 'dsh --profile headless --dump-config', how: 'run', cwd: home, check: expectOut('- id: loop-breaker') },
  {
    file: 'docs/install.md', first: 'dsh --profile web --dump-config', how: 'run', cwd: home,
    check: expectOut("- id: hmr\n  name: '@deepseek-ai/cordis-plugin-hmr'\n  config:\n    root: []\n  disabled: false"),
  },
  {
    file: 'docs/install.md', first: 'dsh --profile headless --patch ~/.dsh/profiles/headless/node_modules/dsh-loop-breaker/retry.patch.yml --dump-config',
    how: 'run', cwd: home, check: expectOut('- id: retry-coordinator'),
  },
  {
    file: 'docs/install.md', first: 'cd ~/my-project', how: 'run', cwd: home,
    check: expectOut('Done: the build script now runs the tests before packing.'), after: () => (taskSession = findTaskSession()),
  },
  { file: 'docs/install.md', first: 'P=~/.dsh/profiles/headless; T=$P/node_modules/dsh-loop-breaker', how: 'run', cwd: home, session: 'task' },
  { file: 'README.md', first: 'cd ~/.dsh/profiles/web', how: 'run', cwd: home, session: 'task' },
  { file: 'docs/tools.md', first: 'P=~/.dsh/profiles/headless', how: 'run', cwd: home },
  { file: 'docs/tools.md', first: 'T=~/.dsh/profiles/headless/node_modules/dsh-loop-breaker', nth: 1, how: 'run', cwd: home, session: 'task', check: expectOut('{"type":"session","version":0') },
  { file: 'docs/install.md', first: 'cd dsh-loop-breaker     # the checkout where npm pack wrote the tarball', nth: 1, how: 'run', cwd: home },
  { file: 'README.md', first: 'dsh --profile web --patch ~/.dsh/profiles/web/node_modules/dsh-loop-breaker/retry.patch.yml   # or copy its rows into your patch', how: 'server', cwd: project },
  { file: 'docs/install.md', first: 'dsh --profile web', how: 'server', cwd: project, during: 'url=http://127.0.0.1:<port>      # the line dsh --profile web printed' },
  {
    file: 'docs/install.md', first: 'url=http://127.0.0.1:<port>      # the line dsh --profile web printed', how: 'during', cwd: home, session: 'task',
    check: (out) => (out.match(/"ok":true/g) ?? []).length === 4 && !out.includes('"ok":false') ? null : 'expected four answers with "ok":true and none with "ok":false',
  },
  { file: 'docs/install.md', first: 'node ~/.dsh/profiles/web/node_modules/dsh-loop-breaker/tools/repair-session.mjs --force \\', how: 'run', cwd: home, session: 'legacy' },
  { file: 'docs/tools.md', first: 'T=~/.dsh/profiles/headless/node_modules/dsh-loop-breaker', nth: 0, how: 'run', cwd: home, session: 'legacy', check: expectOut('loop-breaker/break') },
  { file: 'docs/tools.md', first: '~/.dsh/profiles/headless/node_modules/.bin/dsh-loop-breaker-repair --dry-run ~/.dsh/sessions/--<cwd>--/<id>/session.jsonl.zstd', how: 'run', cwd: home, session: 'legacy', check: expectOut('loop-breaker/break') },
  { file: 'docs/development.md', first: 'npm test              # Node 20: builds lib/, then every test but the corpus passes and the Node-22 ones', how: 'dev', reason: `${DEV_SUITE} (\`npm run e2e\` is the script this step belongs to, \`bash .ci/run\` is CI itself)` },
  { file: 'docs/development.md', first: 'npx tsup   # the bench loads lib/index.js: build each side of the A/B in its own checkout', how: 'dev', reason: 'a cachegrind measurement (valgrind is not installed in CI; minutes per side)' },
]
function expectOut(text) {
  return (out) => (out.includes(text) ? null : `the output does not hold ${JSON.stringify(text)}`)
}

// Each block matches exactly one rule, each rule at least one block. A rule without `nth` takes every
// block of its file that opens with its first line, and they must be the same commands.
const matches = (rule, block) => rule.file === block.file && rule.first === block.first && (rule.nth === undefined || rule.nth === block.nth)
for (const block of blocks) {
  const found = RULES.filter((rule) => matches(rule, block))
  if (found.length === 0) fail(`${block.file}:${block.line}: no rule for this block; add one to RULES in test/e2e/doc-commands.mjs:\n${block.script}`)
  if (found.length > 1) fail(`${block.file}:${block.line}: ${found.length} rules match this block`)
}
for (const rule of RULES) {
  rule.blocks = blocks.filter((block) => matches(rule, block))
  if (rule.blocks.length === 0) fail(`the rule for ${rule.file} "${rule.first}" matches no block: update RULES`)
  if (new Set(rule.blocks.map((block) => block.script)).size > 1) fail(`the rule for ${rule.file} "${rule.first}" matches different blocks: give it an nth`)
}

// ── running ─────────────────────────────────────────────────────────────────────────────────────────
function scriptOf(rule, block, context) {
  let lines = block.script.split('\n')
  for (const [line, reason] of rule.omit ?? []) {
    if (!lines.includes(line)) fail(`${block.file}:${block.line}: the omitted line is not in the block: ${line}`)
    lines = lines.filter((l) => l !== line)
    log(`not run, ${block.file}:${block.line}: ${line.split('#')[0].trim()} (${reason})`)
  }
  return substitute(lines.join('\n'), context)
}
function sessionFor(rule) {
  if (rule.session === 'task') return taskSession ?? fail(`${rule.file} "${rule.first}" needs the headless task's session`)
  if (rule.session === 'legacy') return legacySession()
  return null
}
function show(block, script) {
  log(`${block.file}:${block.line}\n${script.replace(/^/gm, '    $ ')}`)
}
function runScript(rule, block, context) {
  const script = scriptOf(rule, block, context)
  show(block, script)
  const result = spawnSync('bash', ['-e', '-o', 'pipefail', '-c', script], { cwd: rule.cwd, env, encoding: 'utf8', maxBuffer: 1 << 26 })
  const out = `${result.stdout}${result.stderr}`
  if (result.status !== 0) fail(`${block.file}:${block.line} exited with ${result.status ?? result.signal}; output (last 40 lines):\n${out.split('\n').slice(-40).join('\n')}`)
  const problem = rule.check?.(result.stdout)
  if (problem) fail(`${block.file}:${block.line}: ${problem}; stdout (last 40 lines):\n${result.stdout.split('\n').slice(-40).join('\n')}`)
  log(`ok (last line: ${out.trim().split('\n').at(-1)?.slice(0, 160) ?? ''})`)
}
const sleep = (ms) => new Promise((done) => setTimeout(done, ms))
async function runServer(rule, block) {
  const lines = block.script.split('\n')
  if (lines.length !== 1) fail(`${block.file}:${block.line}: a server block must be one command`)
  // The test's own flags go after the block's arguments (the launcher's --patch must precede the web
  // app's flags), before a trailing comment.
  const [command, comment] = lines[0].split(/\s+(?=#)/)
  const script = `${substitute(command, {})} --port 0 --no-open${comment ? `   ${comment}` : ''}`
  show(block, script)
  const child = spawn('bash', ['-c', `exec ${script}`], { cwd: rule.cwd, env, stdio: ['ignore', 'pipe', 'pipe'] })
  server = child
  let out = ''
  child.stdout.on('data', (data) => (out += data))
  child.stderr.on('data', (data) => (out += data))
  let exited = null
  child.on('exit', (code, signal) => (exited = code ?? signal))
  const stop = async () => {
    if (exited === null) child.kill('SIGTERM')
    for (let i = 0; i < 100 && exited === null; i++) await sleep(100)
    if (exited === null) child.kill('SIGKILL')
    server = null
  }
  const dead = (what) => `${block.file}:${block.line} ${what}; output (last 40 lines):\n${out.split('\n').slice(-40).join('\n')}`
  let url = null
  for (let i = 0; i < 600 && url === null && exited === null; i++) {
    url = /^dsh web: (http\S+)/m.exec(out)?.[1] ?? null
    if (url === null) await sleep(100)
  }
  if (url === null) {
    await stop()
    fail(dead(exited === null ? 'printed no address within 60 s' : `exited with ${exited} before it served`))
  }
  await sleep(SERVER_UP_SECONDS * 1000)
  if (exited !== null) fail(dead(`printed ${url}, then exited with ${exited} within ${SERVER_UP_SECONDS} s`))
  const response = await fetch(url).catch((error) => error)
  if (!(response instanceof Response) || response.status !== 200) {
    await stop()
    fail(dead(`did not answer GET ${url} with 200 (${response instanceof Response ? response.status : response.message})`))
  }
  log(`up for ${SERVER_UP_SECONDS} s at ${url}, GET / answered 200`)
  if (rule.during) {
    const inner = RULES.find((r) => r.first === rule.during)
    for (const innerBlock of inner.blocks) runScript(inner, innerBlock, { server: { port: new URL(url).port }, session: sessionFor(inner) })
    inner.done = true
    if (exited !== null) fail(dead(`exited with ${exited} while ${inner.file}:${inner.blocks[0].line} ran`))
  }
  await stop()
  log('stopped')
}

let ran = 0
let classified = 0
for (const rule of RULES) {
  for (const block of rule.blocks) {
    if (rule.how === 'dev') {
      log(`not run, ${block.file}:${block.line} (${block.script.split('\n').length} lines): ${rule.reason}`)
      classified++
    } else if (rule.how === 'run') {
      runScript(rule, block, { session: sessionFor(rule) })
      ran++
    } else if (rule.how === 'server') {
      await runServer(rule, block)
      ran++
    } else if (rule.how === 'during') {
      ran++
    }
  }
  rule.after?.()
}
for (const rule of RULES) if (rule.how === 'during' && !rule.done) fail(`${rule.file} "${rule.first}" never ran: no server rule names it`)
log(`${ran} blocks ran, ${classified} development-only blocks not run, of ${blocks.length} in ${files.length} files`)
