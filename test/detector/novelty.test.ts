// The novelty rule on its own terms: what it cuts, at which level of evidence, and what it lets
// through. The loop shapes at every delta size and side are test/detector/shape-sweep.test.ts's.
import { describe, expect, it } from 'vitest'
import { DEFAULT_CONFIG, StreamDetector } from '../../src/detector/index.ts'
import { circlingDecisionLoop, counterLoop, latencyBound, longPoolLoop, longSentences, nounFrameLoop, paraphrasePoolLoop, randomlyDrawnRows, retryBlockLoop } from '../fixtures/detector/shapes.mjs'
import { PROSE_EN, productiveProse } from '../fixtures/detector/loops.mjs'
import { sweepShape } from '../fixtures/detector/shape-sweep.mjs'
import { feed, feedFixed } from './feed.ts'

const exactRulesOff = { reasoningCycleMaxPeriod: 0, textCycleMaxPeriod: 0, toolCycleMaxPeriod: 0, tokenPeriodMinRepeats: 0, toolTokenPeriodMinRepeats: 0,
  reasoningPoolMinRepeatedChars: 0, textPoolMinRepeatedChars: 0, toolPoolMinRepeatedChars: 0 }

describe('novelty', () => {
  // A sentence with a counter is said again word for word but for its counter (its shape repeats), so
  // the middle level reads it, over a run of noveltyMiddleMinSpan; the strongest level, over its
  // longer span, cuts it when the middle one is off.
  it.each([
    ['middle', {}, 'noveltyMiddleMinSpan'],
    ['strongest', { noveltyMiddleMinSpan: 262144, noveltyWeakMinSpan: 262144 }, 'noveltyMinSpan'],
  ] as const)('cuts a sentence with a counter at its %s level, where the run of familiar text began', (_, levels, span) => {
    const { text, onset } = counterLoop({ seed: 1, side: 'text', prefixChars: 4000, loopChars: 6000 })
    for (const delta of [3, 16, 64]) {
      const trip = feedFixed(text, 'text', delta, { ...exactRulesOff, ...levels })
      expect(trip?.rule).toBe('novelty')
      // Familiar once seen twice: the run begins on the third sentence, within a window of it.
      expect(trip!.loopStart).toBeGreaterThanOrEqual(onset)
      expect(trip!.loopStart).toBeLessThan(onset + 3 * 110 + DEFAULT_CONFIG.noveltyWindowChars)
      expect(trip!.at - trip!.loopStart).toBeGreaterThanOrEqual(DEFAULT_CONFIG[span])
      // repeatedChars is the run's length where the rule verified it: a unit's end inside the last stride.
      expect(trip!.loopStart + trip!.repeatedChars).toBeLessThanOrEqual(trip!.at)
      expect(trip!.loopStart + trip!.repeatedChars).toBeGreaterThan(trip!.at - DEFAULT_CONFIG.cycleCheckStride - delta)
    }
  })

  it('cuts a frame whose one word changes at the middle level, which the strongest level alone never cuts, unlike a counter', () => {
    const counter = counterLoop({ seed: 1, side: 'text', prefixChars: 0, loopChars: 6000 })
    const frame = nounFrameLoop({ seed: 1, side: 'text', prefixChars: 0, loopChars: 6000 })
    const frameTrip = feed(frame.text, 'text', { config: exactRulesOff })!
    expect(frameTrip.rule).toBe('novelty')
    expect(frameTrip.at - frameTrip.loopStart).toBeGreaterThanOrEqual(DEFAULT_CONFIG.noveltyMiddleMinSpan)
    const strongestOnly = { ...exactRulesOff, noveltyMiddleMinSpan: 262144, noveltyWeakMinSpan: 262144 }
    expect(feed(frame.text, 'text', { config: strongestOnly })).toBeUndefined()
    expect(feed(counter.text, 'text', { config: strongestOnly })?.rule).toBe('novelty')
  })

  it('lets a passage quoted twice through (a gram seen once is no evidence), and up to four times with a header each', () => {
    const passage = longSentences(12, 'en', 5, 80, 160).join(' ') + '\n'
    const twice = `${productiveProse(2000, 'en', 3)}Before:\n${passage}After:\n${passage}${productiveProse(3000, 'en', 4)}`
    expect(feed(twice, 'text', { config: exactRulesOff })).toBeUndefined()
    // A licence file that bundles its dependencies' licences: the same text four times, each under a
    // new name. The run must last noveltyMinPeriods times the distance back to the earlier copy.
    const names = ['alpha-parser', 'beta-router', 'gamma-cache', 'delta-logger']
    const bundle = names.map((name, i) => `${name} (${2019 + i}):\n\n${passage}`).join('\n')
    for (const side of ['reasoning', 'text'] as const) expect(feed(bundle, side, { config: exactRulesOff }), side).toBeUndefined()
  })

  it('lets a document of many sections copied under headers of their own through, and cuts the same copies under a counter', () => {
    const passage = longSentences(12, 'en', 7, 80, 160).join(' ') + '\n'
    // Thirty copies (~40 K chars), each under the names of the packages it covers: every header is
    // new material, and the copies come back from over a thousand chars.
    const packages = ['args', 'csslib', 'logging', 'mime', 'shelf', 'watcher', 'crypto', 'convert', 'archive', 'glob', 'yaml', 'http',
      'stream', 'channel', 'collection', 'pool', 'matcher', 'charcode', 'typed', 'source', 'span', 'scanner', 'semver', 'pub', 'cli',
      'repl', 'grinder', 'inspection', 'protocol', 'analyzer', 'frontend', 'server', 'client', 'meta', 'boolean', 'selector', 'term',
      'glyph', 'native', 'synchronization', 'stack', 'trace', 'checked', 'config', 'mappable', 'plus', 'ffi', 'package', 'file', 'path',
      'async', 'util', 'lints', 'test', 'core', 'api', 'js', 'interop', 'web', 'socket', 'quiver', 'fixnum', 'protobuf', 'plugin',
      'timing', 'vm', 'service', 'dart', 'style', 'math', 'intl', 'markdown', 'html', 'node', 'preamble', 'browser', 'launcher', 'isolate',
      'oauth', 'jwt', 'retry', 'cancel', 'token', 'url', 'launcher2', 'mustache', 'template', 'string', 'buffer', 'cookie']
    const sections = (header: (copy: number) => string) => Array.from({ length: 30 }, (_, copy) => `${header(copy)}\n\n${passage}`).join('\n')
    const bundle = sections((copy) => `${packages[3 * copy]}, ${packages[3 * copy + 1]} and ${packages[3 * copy + 2]} license:`)
    for (const side of ['reasoning', 'text'] as const) expect(feed(bundle, side, { config: exactRulesOff }), side).toBeUndefined()
    // The same copies under a header that only counts: nothing new between them, a loop.
    const counted = sections((copy) => `Attempt ${copy + 1} of the summary:`)
    for (const side of ['reasoning', 'text'] as const) expect(feed(counted, side, { config: exactRulesOff })?.rule, side).toBe('novelty')
    // The headers are what lets the bundle through: with new material never ending a run, it is cut.
    expect(feed(bundle, 'text', { config: { ...exactRulesOff, noveltyNewMaterialMinPeriod: 262144 } })?.rule).toBe('novelty')
    expect(feed(bundle, 'text', { config: { ...exactRulesOff, noveltyNewMaterialShare: 0 } })?.rule).toBe('novelty')
  })

  // Weak evidence grows with the trace: a correct 20-60 K trace revisits its material with 0.6-0.7 of its
  // grams familiar for 1-2.5 K chars (real-output corpus), so the middle and weak levels also ask a run
  // for noveltyWeakHistoryShare of the text before it. A loop that deep is still cut, that much later.
  it('asks a middle- or weak-level run for a share of the text before it: a decision circled after 40 K chars is cut, later and bounded', () => {
    const prefixChars = 40000
    const { text, onset } = circlingDecisionLoop({ seed: 3, language: 'en', side: 'reasoning', prefixChars, loopChars: 16000 })
    const early = feed(text, 'reasoning', { config: { ...exactRulesOff, noveltyWeakHistoryShare: 0 } })!
    const late = feed(text, 'reasoning', { config: exactRulesOff })!
    expect(early.rule).toBe('novelty')
    expect(late.rule).toBe('novelty')
    expect(late.at - late.loopStart).toBeGreaterThanOrEqual(DEFAULT_CONFIG.noveltyWeakHistoryShare * late.loopStart)
    expect(late.at).toBeGreaterThan(early.at + 4000)
    expect(late.at - onset).toBeLessThanOrEqual(DEFAULT_CONFIG.noveltyWeakHistoryShare * (onset + 1000) + latencyBound('circlingDecision', 'reasoning'))
  })

  // A list whose items share one frame (real AlpacaEval answers: herbs, each "To dry X, hang the sprigs
  // ...") is as familiar as a loop of a frame, and ends by its tenth item: the middle and weak levels wait
  // for noveltyWeakMinPeriods rounds. The same frame going on is cut.
  it('lets a list of ten items in one frame through, and cuts the frame written on and on', () => {
    const herbs = ['basil', 'mint', 'rosemary', 'thyme', 'oregano', 'sage', 'parsley', 'dill', 'chives', 'tarragon', 'lavender', 'lemon balm', 'marjoram', 'bay leaves',
      'cilantro', 'fennel', 'lovage', 'savory', 'chamomile', 'catnip', 'borage', 'sorrel', 'hyssop', 'chervil', 'yarrow', 'mugwort', 'comfrey', 'nettle', 'angelica', 'rue']
    const how = ['hang the sprigs in a warm, dry place out of direct sunlight', 'spread the leaves on a paper towel and let them air-dry', 'tie small bundles and hang them upside down in a dark room']
    const item = (herb: string, n: number) => `${n}. ${herb[0].toUpperCase()}${herb.slice(1)}: To dry ${herb}, you can ${how[(n * 7) % 3]}. Once the leaves are dry and crumbly, remove them from the stems and store them in an airtight container.\n`
    const lead = 'There are many herbs you can dry for cooking or tea. Here are some, with how to dry and store each:\n\n'
    const tail = '\nA few tips: label each jar with the date, keep the jars in a cool dark cupboard, and replace dried herbs after a year or so.\n'
    const list = lead + herbs.slice(0, 10).map((herb, i) => item(herb, i + 1)).join('') + tail
    expect(feed(list, 'text')).toBeUndefined()
    expect(feed(list, 'text', { config: { noveltyWeakMinPeriods: DEFAULT_CONFIG.noveltyMinPeriods } })?.rule).toBe('novelty')
    const loop = lead + herbs.map((herb, i) => item(herb, i + 1)).join('')
    expect(feed(loop, 'text')?.rule).toBe('novelty')
  })

  // An answer that translates an argument, then re-lists a question's ten options in one frame (four
  // sentences, a "not" placed differently in each) before choosing: two correct DeepSeek-Coder-V2 answers
  // of MMLU-Pro (held out) were cut so by the weak level waiting 8 rounds; 10 rounds let them through.
  it('lets an answer re-list the ten options of a question in one frame before choosing', () => {
    const not = (on: number) => (on ? ' not' : '')
    const option = ([home, doctors, call, everything]: number[]) => `Either Ann or Ben is${not(home)} at home. All doctors are${not(doctors)} at home if they are${not(call)} on call. Ann is a doctor and on call. So not everything is${not(everything)} at home.`
    const nots = [[0, 1, 0, 1], [1, 1, 0, 0], [0, 0, 1, 1], [1, 0, 1, 0], [0, 1, 1, 0], [1, 0, 0, 1], [0, 1, 0, 0], [1, 1, 1, 0], [0, 0, 0, 1], [1, 0, 1, 1]]
    const answer = 'The given argument in predicate logic is:\n1. \\( Ha \\vee Hb \\)\n2. \\( (\\forall x)[Dx \\supset (Cx \\supset \\neg Hx)] \\)\n3. \\( Da \\cdot Ca \\)\n4. \\( \\neg (\\forall x) \\neg Hx \\)\n\n'
      + "Let's translate each part step by step:\n\n1. \\( Ha \\vee Hb \\): Either Ann (Ha) or Ben (Hb) is at home.\n2. \\( (\\forall x)[Dx \\supset (Cx \\supset \\neg Hx)] \\): All doctors are not at home if they are on call.\n"
      + '3. \\( Da \\cdot Ca \\): Ann is a doctor and on call.\n4. \\( \\neg (\\forall x) \\neg Hx \\): Not everything is not at home.\n\nNow let\'s compare with the options:\n'
      + nots.map((flags, i) => `${'ABCDEFGHIJ'[i]}. ${option(flags)}`).join('\n') + `\n\nThe correct interpretation is:\nG. ${option(nots[6])}\n\nThe answer is (G).\n`
    for (const side of ['reasoning', 'text'] as const) {
      expect(feed(answer, side)).toBeUndefined()
      expect(feed(answer, side, { config: { noveltyWeakMinPeriods: 8 } })?.rule).toBe('novelty')
    }
  })

  // Keyword lists of one stem were the real-output corpus's commonest cut answers (AlpacaEval, WildBench).
  it('lets a list naming 60 new items in one frame through, and cuts the same frame going round its items', () => {
    const audiences = ['beginners', 'students', 'professionals', 'Hollywood', 'indie filmmakers', 'Mac', 'Windows', 'Linux', 'iPad', 'Android', 'teams', 'novelists',
      'playwrights', 'television', 'documentaries', 'comics', 'podcasts', 'video games', 'stage plays', 'short films', 'web series', 'animation', 'commercials',
      'music videos', 'radio dramas', 'screenwriting classes', 'film schools', 'writers rooms', 'freelancers', 'agencies', 'producers', 'directors', 'script doctors',
      'translators', 'festivals', 'contests', 'collaboration', 'outlining', 'storyboarding', 'budgeting', 'scheduling', 'revisions', 'formatting', 'pitch decks',
      'treatments', 'loglines', 'table reads', 'cloud backup', 'offline use', 'dark mode', 'accessibility', 'low budgets', 'education', 'nonprofits', 'churches',
      'YouTube creators', 'TikTok skits', 'audio books', 'kids', 'retirees']
    const lead = 'Here are 60 keywords you could target for a screenwriting software site:\n\n'
    for (const item of [(name: string, n: number) => `${n}. Screenwriting software for ${name}\n`, (name: string) => `Screenwriting software for ${name}\n`]) {
      const list = `${lead}${audiences.map((name, i) => item(name, i + 1)).join('')}\nThese mix broad and long-tail terms.\n`
      expect(feed(list, 'text')).toBeUndefined()
      expect(feed(list, 'text', { config: { noveltyListMinRestatedShare: 0 } })?.rule).toBe('novelty')
      // The same frame naming seven items over and over: its lines are said again, a loop's evidence.
      const loop = lead + audiences.map((_, i) => item(audiences[i % 7], i + 1)).join('')
      const trip = feed(loop, 'text', { config: exactRulesOff })
      expect(trip?.rule).toBe('novelty')
      expect(trip!.at).toBeLessThan(1500)
    }
  })

  it('cuts every paraphrase pool and decision circled of 48 seeds within its bound, at every delta size', () => {
    // The shape sweep reads seeds 1-6; the slowest cuts lie further out: with the weak level waiting for
    // noveltyWeakMinPeriods rounds, the slowest paraphrase pool is cut ~4,450 chars
    // after onset and the slowest decision circled ~5,360 (~5,250 at 8 rounds), under their bounds of 4,800 and 5,600.
    expect([latencyBound('paraphrasePool', 'reasoning'), latencyBound('circlingDecision', 'reasoning')]).toEqual([4800, 5600])
    const seeds = Array.from({ length: 48 }, (_, i) => i + 1)
    for (const name of ['paraphrasePool', 'circlingDecision']) {
      const { rules, problems } = sweepShape(StreamDetector, undefined, name, 'reasoning', seeds)
      expect(problems, name).toEqual([])
      expect(rules, name).toEqual(['novelty'])
    }
  })

  it('reads only plain sentences (or units said again word for word) at the middle and weak levels: the same pool as list items with code spans waits', () => {
    const { text, onset } = paraphrasePoolLoop({ seed: 3, side: 'reasoning', prefixChars: 3000, loopChars: 40000 })
    const plain = feed(text, 'reasoning', { config: exactRulesOff })!
    expect(plain.rule).toBe('novelty')
    expect(plain.at - onset).toBeLessThan(latencyBound('paraphrasePool', 'reasoning'))
    // Every sentence a list item naming a file in a code span: documentation's shape, not a model talking to itself.
    const listed = text.slice(0, onset) + text.slice(onset).replace(/([^.\n]+\.) ?/g, '- $1 See `notes.md`.\n')
    const detector = new StreamDetector(exactRulesOff)
    const early = listed.slice(0, listed.indexOf('\n', onset + 8000))
    expect(feed(early, 'reasoning', { detector })).toBeUndefined()
    // The plain share is what holds it back: with none required, the weaker levels cut it within the pool's bound.
    const ungated = feed(listed, 'reasoning', { config: { ...exactRulesOff, noveltyPlainMinShare: 0 } })
    expect(ungated?.rule).toBe('novelty')
    expect(ungated!.at - onset).toBeLessThan(latencyBound('paraphrasePool', 'reasoning'))
    // It goes on (not cut in its first 8,000 chars), its items come back word for word, and the middle level cuts it.
    const trip = feed(listed.slice(early.length), 'reasoning', { detector })
    expect(trip?.rule).toBe('novelty')
    expect(trip!.at - trip!.loopStart).toBeGreaterThanOrEqual(DEFAULT_CONFIG.noveltyMiddleMinSpan)
  })

  // A story's scene going round (a longform-writing held-out sweep: small models' chapters replay their
  // dialogue paragraphs with a word swapped each round until their output ends), once read as marked
  // text and never cut: a sentence opening with a quotation mark was not plain, nor one with a word in
  // emphasis. A new word each round, so the scene never turns wholly familiar: the strongest level never holds.
  const swapped = ['quiet', 'sharp', 'soft', 'low', 'trembling', 'flat', 'hoarse', 'cold', 'warm', 'steady', 'thin', 'rough',
    'bright', 'dull', 'tired', 'eager', 'bitter', 'gentle', 'brittle', 'hollow', 'heavy', 'light', 'calm', 'tense', 'distant', 'urgent']
  const sceneLoop = (emphasis: (word: string) => string = (word) => word) => {
    const round = (r: number) => [
      `“You’re not a star,” she said, her voice ${emphasis(swapped[r % swapped.length])} now. “You’re a man who’s spent too long pretending to be one.”`,
      `“I used to think I was a star,” he said, his voice ${swapped[(r + 9) % swapped.length]}. “I still do, in a way. But I’m not sure it’s ${emphasis('enough')}.”`,
      `"You don't like people who try to be more than they are," he said. "You don't like ${emphasis('stars')}."`,
      `“Then why did you come back?” she asked, her eyes ${swapped[(r + 17) % swapped.length]}.`,
      `"Because the city stopped listening," he said. "And you never did."`,
    ].join('\n\n') + '\n\n'
    const prefix = productiveProse(3000, 'en', 1) + '\n\n'
    let loop = ''
    for (let r = 0; loop.length < 9000; r++) loop += round(r)
    return { text: prefix + loop, onset: prefix.length }
  }

  it('reads a sentence opening with a quotation mark as a plain sentence: a scene of dialogue going round with a word swapped is cut', () => {
    const { text, onset } = sceneLoop()
    for (const scene of [text, text.replace(/[“”"]/g, '')]) {
      for (const delta of [3, 16, 64]) {
        const trip = feedFixed(scene, 'text', delta, exactRulesOff)
        expect(trip?.rule).toBe('novelty')
        expect(trip!.at - onset).toBeLessThan(5000)
      }
    }
  })

  it('reads `*` around a word as emphasis, not markup: the scene with words in emphasis is cut; as bullets (`* `) it waits', () => {
    for (const emphasis of [(word: string) => `*${word}*`, (word: string) => `**${word}**`]) {
      const { text, onset } = sceneLoop(emphasis)
      for (const delta of [3, 16, 64]) {
        const trip = feedFixed(text, 'text', delta, exactRulesOff)
        expect(trip?.rule).toBe('novelty')
        expect(trip!.at - onset).toBeLessThan(5000)
      }
    }
    const { text, onset } = sceneLoop()
    const bullets = text.slice(0, onset) + text.slice(onset).replace(/^(?=\S)/gm, '* ')
    expect(feed(bullets.slice(0, onset + 8000), 'text', { config: exactRulesOff })).toBeUndefined()
  })

  it('lets a plain paragraph said twice in a row through (its grams seen once are no evidence), and cuts it said over and over', () => {
    for (const language of ['en', 'zh'] as const) {
      const paragraph = language === 'zh'
        ? '我先把计划再说一遍，免得漏掉什么。第一步是把分页从偏移量改成游标，这样清理任务删掉旧数据时不会让后面的批次跳过任何一行。第二步是在导入结束时比较源表和目标表的总数，不一致就报错并停下来。第三步是把最近三次丢失的数据补导回去，然后再跑一遍核对脚本。第四步是在清理任务和导入任务之间加一把锁，两者不再同时运行。最后把这次排查的经过写进运维手册，说明为什么偏移量分页在数据会被删除的表上不可靠，以后新写的导入脚本一律用游标，并且在代码评审的检查清单里加上这一条。另外，补导之前要先确认目标表里没有这些行的残留，否则唯一键会冲突，补导会在中途失败；确认的办法是按主键区间分批查询，每批一千行，只记录缺失的主键，查完以后再统一补导，补导完成后把缺失主键的清单和补导的行数一起附在事故记录里，方便以后回头核对。'
        : 'So the plan, once more, to be sure I have not missed anything. First the pagination moves from offsets to a cursor, so that the cleanup job deleting old rows can no longer make a later batch skip rows. Then the import compares the row counts of the source and the target at the end and stops with an error when they differ. Last, the rows lost in the three bad runs are imported again and the check runs once more.'
      const text = productiveProse(3000, language, 5) + paragraph + '\n' + paragraph + '\n' + productiveProse(3000, language, 6)
      for (const side of ['reasoning', 'text'] as const) expect(feed(text, side, { config: exactRulesOff }), `${language} ${side}`).toBeUndefined()
      const over = productiveProse(3000, language, 5) + `${paragraph}\n`.repeat(8)
      for (const side of ['reasoning', 'text'] as const) expect(feed(over, side, { config: exactRulesOff })?.rule, `${language} ${side}`).toBe('novelty')
    }
  })

  // A procedural simulation (the real-output corpus's string_splitting answers) says its rules again
  // word for word every round; what changes is the state written under each, in rows of values alone.
  it('lets a simulation through whose rounds reach a state never written before, and cuts the same rounds once the state stops changing', () => {
    const rules = ['One unit of machine A can be dismantled into two units of part X and one unit of part Y.',
      'Two units of machine B can be dismantled into one unit of part X.', 'Two units of machine C can be dismantled into one unit of part Y.',
      'One unit of part X and one unit of part Y can be combined into one unit of part Z.']
    /** Twelve rounds; from round `frozenAfter` on nothing applies, and `onset` is where that round begins. */
    const simulate = (frozenAfter: number) => {
      const state = { A: 9, B: 8, C: 9, X: 0, Y: 0, Z: 0 }
      let text = 'Let me apply the rules in order, round after round, from the initial state.\n\n'
      let onset = -1
      for (let round = 0; round < 12; round++) {
        if (round === frozenAfter) onset = text.length
        rules.forEach((rule, r) => {
          if (round < frozenAfter) {
            if (r === 0 && state.A > 0) { state.A--; state.X += 2; state.Y++ } else if (r === 1 && state.B > 1) { state.B -= 2; state.X++ } else if (r === 2 && state.C > 1) { state.C -= 2; state.Y++ } else if (r === 3 && state.X > 0 && state.Y > 0) { state.X--; state.Y--; state.Z++ }
          }
          text += `**Rule ${r + 1}:** ${rule}\n` + Object.entries(state).map(([part, count]) => `- ${part}: ${count}`).join('\n') + '\n\n'
        })
      }
      return { text, onset }
    }
    for (const side of ['reasoning', 'text'] as const) {
      expect(feed(simulate(12).text, side, { config: exactRulesOff }), side).toBeUndefined()
      const { text: frozen, onset } = simulate(3)
      const trip = feed(frozen, side, { config: exactRulesOff })
      expect(trip?.rule, side).toBe('novelty')
      expect(trip!.at - onset).toBeLessThan(3000)
    }
  })

  // A Go board's points checked one by one (the real-output corpus's tsumego answers): `D6` is a
  // position, state, not an id; the same few points said again are a loop.
  it('takes a board coordinate for state: candidates checked one by one pass, the same few points circled are cut', () => {
    const line = (i: number, point: string) => `${i}. **At ${point}**: Placing a black stone at ${point} would capture the white stone at ${point} immediately, but it doesn't seem to lead to capturing more stones.\n`
    const points = 'ABCDEFGHJ'.split('').flatMap((column) => [3, 4, 5, 6, 7].map((row) => `${column}${row}`))
    const candidates = 'To capture as many white stones as possible, let me look at each point in turn.\n\n' + points.map((point, i) => line(i + 1, point)).join('')
    const circled = 'To capture as many white stones as possible, let me look at each point in turn.\n\n' + points.map((_, i) => line(i + 1, ['D6', 'E5', 'D4'][i % 3])).join('')
    for (const side of ['reasoning', 'text'] as const) {
      expect(feed(candidates, side), side).toBeUndefined()
      expect(feed(circled, side)?.rule, side).toBe('novelty')
    }
  })

  it('takes a quoted string of capitals for state: substrings checked one by one pass, the same few circled are cut', () => {
    const line = (i: number, part: string) => `${i}. Check for the substring "${part}": it is not present in the string, so move on to the next position.\n`
    // Every window of four letters of one string, as the answer walks it: 40 substrings, none twice.
    const walked = 'QWERTYUIOPASDFGHJKLZXCVBNMQAZWSXEDCRFVTGBYH'
    const parts = Array.from({ length: 40 }, (_, i) => walked.slice(i, i + 4))
    expect(new Set(parts).size).toBe(40)
    const opening = 'The rule inserts a character after each of these substrings, so let me check every substring of four letters.\n\n'
    const checked = opening + parts.map((part, i) => line(i + 1, part)).join('')
    const circled = opening + parts.map((_, i) => line(i + 1, ['ABCD', 'BCDE', 'CDEA'][i % 3])).join('')
    for (const side of ['reasoning', 'text'] as const) {
      expect(feed(checked, side), side).toBeUndefined()
      expect(feed(circled, side)?.rule, side).toBe('novelty')
    }
  })

  it('takes a gram of values alone (a table of numbers or code points) as no evidence', () => {
    const table = Array.from({ length: 3000 }, (_, i) => `0x${(i * 7919 % 65536).toString(16).padStart(5, '0')}`).join(', ') + '\n'
    for (const side of ['reasoning', 'text', 'tool'] as const) expect(feed(table, side), side).toBeUndefined()
  })

  it('asks text that looks like data for the data span: identical rows pass under it and are cut over it', () => {
    const row = (n: number) => `| ${n} | check the config file | pending | bot |\n`
    const rows = (count: number) => '| # | task | status | owner |\n|---|---|---|---|\n' + Array.from({ length: count }, (_, i) => row(i + 1)).join('')
    expect(feed(rows(300), 'text')).toBeUndefined()
    const trip = feed(rows(1000), 'text')
    expect(trip?.rule).toBe('novelty')
    expect(trip!.at - trip!.loopStart).toBeGreaterThanOrEqual(DEFAULT_CONFIG.noveltyDataMinSpan)
  })

  // A labelling answer (CLongEval's news labelling, answered so by moonshot-v1: `新闻 12：体育` a line
  // for 140 items) names a new item each row and one of a few labels in no fixed order: familiar
  // words, no loop. A loop goes round its rows in the order of its last round, numbered or not.
  it('lets a labelling answer through (rows keyed by new items, a few labels in any order), and cuts the same rows going round in order', () => {
    const labels = {
      zh: ['教育', '时政', '科技', '娱乐', '财经', '房产', '家居', '体育', '游戏', '互联网'],
      en: ['Education', 'Politics', 'Technology', 'Entertainment', 'Finance', 'Real estate', 'Home', 'Sports', 'Games', 'Internet'],
    }
    const rows = {
      zh: (n: number, label: string) => `新闻 ${n}：${label}\n`,
      en: (n: number, label: string) => `News ${n}: ${label}\n`,
      numbered: (n: number, label: string) => `${n}. ${label}\n`,
    }
    let state = 7
    const draw = () => (state = (Math.imul(state, 1103515245) + 12345) >>> 0) % 10
    for (const [form, row] of Object.entries(rows)) {
      const names = form === 'zh' ? labels.zh : labels.en
      const answer = Array.from({ length: 300 }, (_, i) => row(i + 1, names[draw()])).join('')
      for (const side of ['text', 'reasoning'] as const) {
        for (const delta of [3, 16, 64]) expect(feedFixed(answer, side, delta), `${form} ${side} ${delta}`).toBeUndefined()
        // Asked for no order, the same rows are cut as a pool of lines said again.
        expect(feed(answer, side, { config: { noveltyDataMinOrder: 0 } })?.rule, `${form} ${side}`).toBe('novelty')
      }
      // Four labels going round in order: a loop with its item numbers climbing, cut within its bound.
      const loop = Array.from({ length: 300 }, (_, i) => row(i + 1, names[i % 4])).join('')
      const trip = feed(loop, 'text', { config: exactRulesOff })
      expect(trip?.rule, form).toBe('novelty')
      expect(trip!.at, form).toBeLessThan(2000)
      // Rows drawn in any order are still cut once they span noveltyItemListMinSpan: bounded.
      const endless = Array.from({ length: 2000 }, (_, i) => row(i + 1, names[draw()])).join('')
      const endlessTrip = feed(endless, 'text', { config: exactRulesOff })
      expect(endlessTrip?.rule, form).toBe('novelty')
      expect(endlessTrip!.at - endlessTrip!.loopStart, form).toBeGreaterThanOrEqual(DEFAULT_CONFIG.noveltyItemListMinSpan)
      expect(endlessTrip!.at, form).toBeLessThan(2 * DEFAULT_CONFIG.noveltyItemListMinSpan)
    }
  })

  it('keeps asking a numbered step said again for its usual span: a long row is no label', () => {
    const steps = ['Fill the 12-liter jug completely.', 'Pour water from the 12-liter jug into the 6-liter jug until it is full.', 'Empty the 6-liter jug.',
      'Pour the 6 liters from the 12-liter jug into the 6-liter jug.', 'Empty the 6-liter jug.']
    const loop = 'To measure 6 liters:\n' + Array.from({ length: 200 }, (_, i) => `${i + 1}. ${steps[i % steps.length]}\n`).join('')
    const trip = feed(loop, 'text', { config: exactRulesOff })
    expect(trip?.rule).toBe('novelty')
    expect(trip!.at).toBeLessThan(3000)
  })

  it('asks data to come back in its order: a few rows drawn at random pass over the data span, rows in a loop\'s order are cut', () => {
    const rows = ['north depot,17,open', 'south warehouse annex,23,closed']
    // A-B-B: each row follows the same two rows as last time, though B follows B, then A, by turns.
    const inOrder = 'site,bay,status\n' + Array.from({ length: 2400 }, (_, i) => rows[i % 3 === 0 ? 0 : 1]).join('\n') + '\n'
    const renumbered = Array.from({ length: 600 }, (_, i) => `export function handler${i + 1}(event) {\n  const state = load(event.id)\n  return save(state)\n}\n`).join('')
    for (const side of ['text', 'tool'] as const) {
      const drawn = randomlyDrawnRows({ seed: 3, side }).text
      expect(feed(drawn, side, { config: exactRulesOff }), side).toBeUndefined()
      expect(feed(drawn, side, { config: { ...exactRulesOff, noveltyDataMinOrder: 0 } })?.rule, side).toBe('novelty')
      for (const loop of [inOrder, renumbered]) {
        const trip = feed(loop, side, { config: exactRulesOff })
        expect(trip?.rule, side).toBe('novelty')
        expect(trip!.at - trip!.loopStart).toBeGreaterThanOrEqual(DEFAULT_CONFIG.noveltyDataMinSpan)
      }
    }
  })

  it('masks an id\'s first group that holds no digit as it masks the others: a quoted retry transcript stays familiar', () => {
    // Seed 20's transcript: block 24 carries the request id "aafcddcf-ea10-4d32-..."; its first group
    // unmasked made three new grams, the data level's run (0.98 of the window) restarted there and the
    // loop went uncut for 39,000 chars.
    const { text, onset } = retryBlockLoop({ seed: 20, language: 'en', side: 'reasoning', prefixChars: 3000, loopChars: 40000 })
    expect(text).toContain('x-request-id: aafcddcf-ea10-')
    for (const delta of [3, 16, 64]) {
      const trip = feedFixed(text, 'reasoning', delta)
      expect(trip?.rule, `delta ${delta}`).toBe('novelty')
      expect(trip!.loopStart - onset, `delta ${delta}`).toBeLessThan(1000)
      expect(trip!.at - onset, `delta ${delta}`).toBeLessThanOrEqual(latencyBound('retryBlock', 'reasoning', { seed: 20, language: 'en' }))
    }
  })

  // Minified JSON has no space, so a line restating one call is one token; with its id masked it was
  // no word (a token holding a value was never one), its line a row of values alone with no credit,
  // and such a loop ran uncut at any length on every side. A token with words besides its values is a
  // word with a slot now. In tool arguments the same lines written into a JSON file arrive escaped, and
  // the id's last group, read with the escape's backslash, stayed unmasked there. A counter as a key's
  // value (`"attempt":12`) was placed by the token before it, the line before with its own number, so it
  // read as a state number until it had four digits. An array written on one line, with no space at
  // all, was one token that never ended: it is read record by record now.
  it('reads a line of minified JSON restating one call under a new id or count as familiar: cut at the data span on every side, written into a file too', () => {
    let state = 7
    const hex = (length: number) => Array.from({ length }, () => ((state = (Math.imul(state, 1103515245) + 12345) >>> 0) >>> 16 & 15).toString(16)).join('')
    const call = () => `{"tool":"read_file","id":"call_${hex(8)}-${hex(4)}-${hex(4)}","args":{"path":"src/index.ts"}}\n`
    const calls = 'I will read the file first.\n' + Array.from({ length: 700 }, call).join('')
    // The same lines, each naming a file not named before, are progress: no loop. (A path whose only
    // change is a number, `src/module12/`, is the counter's line again, cut at the data span as rows are.)
    const name = (i: number) => Array.from({ length: 3 }, (_, place) => 'bcdfghklmnprstvz'[(i >> (4 * place)) & 15] + 'aeiou'[(i >> place) % 5]).join('')
    const reads = 'I will read every file in turn.\n' + Array.from({ length: 700 }, (_, i) => `{"tool":"read_file","id":"call_${hex(8)}-${hex(4)}-${hex(4)}","args":{"path":"src/${name(i)}/index.ts"}}\n`).join('')
    const attempts = 'I will read the file first.\n' + Array.from({ length: 700 }, (_, i) => `{"tool":"read_file","attempt":${i + 1},"args":{"path":"src/index.ts"}}\n`).join('')
    const oneLine = '{"todos":[' + Array.from({ length: 900 }, (_, i) => `{"id":${i + 1},"done":false,"title":"fix_login"}`).join(',') + ']}'
    const newTitles = '{"todos":[' + Array.from({ length: 900 }, (_, i) => `{"id":${i + 1},"done":false,"title":"fix_${name(i)}"}`).join(',') + ']}'
    for (const [side, text, other] of [['reasoning', calls, reads], ['text', calls, reads], ['tool', calls, reads],
      ['tool', JSON.stringify({ path: 'calls.jsonl', content: calls }), JSON.stringify({ path: 'reads.jsonl', content: reads })],
      ['reasoning', attempts, reads], ['tool', JSON.stringify({ path: 'calls.jsonl', content: attempts }), reads],
      ['text', oneLine, newTitles], ['tool', oneLine, newTitles], ['tool', JSON.stringify({ path: 'todos.json', content: oneLine }), JSON.stringify({ path: 'todos.json', content: newTitles })]] as const) {
      const label = `${side} ${text.startsWith('{"path"') ? 'in a file' : 'raw'} ${text.includes('"attempt"') ? 'count' : text.includes('"todos"') ? 'one line' : 'id'}`
      const trip = feed(text, side)
      expect(trip?.rule, label).toBe('novelty')
      expect(trip!.at, label).toBeLessThanOrEqual(DEFAULT_CONFIG.noveltyDataMinSpan + 2000)
      expect(feed(other, side), label).toBeUndefined()
    }
  })

  it('takes no piece that opens at a cut for new material: a long pool whose sentences run together stays one familiar run', () => {
    // Seed 11's pool of 20 sentences on one line: two of them end in " ." (no sentence end), so each
    // runs into whichever sentence follows it this round, and the unit is cut at 320 chars at a new
    // place each round. The piece after the cut opened on new grams, ended the run as new material,
    // and the loop was cut only 84,000 chars in on the tool side (bound 55,804).
    const { text, onset } = longPoolLoop({ seed: 11, language: 'en', side: 'tool', prefixChars: 3000, loopChars: 62000 })
    for (const delta of [3, 16, 64]) {
      const trip = feedFixed(text, 'tool', delta)
      expect(trip?.rule, `delta ${delta}`).toBe('novelty')
      expect(trip!.at - onset, `delta ${delta}`).toBeLessThanOrEqual(latencyBound('longPool', 'tool', { seed: 11, language: 'en' }))
    }
  })

  it('judges prose written into a file as prose, with the tool side\'s span', () => {
    const { text } = counterLoop({ seed: 2, side: 'tool', prefixChars: 1000, loopChars: 40_000 })
    const trip = feed(text, 'tool', { config: exactRulesOff })
    expect(trip?.rule).toBe('novelty')
    expect(trip!.at - trip!.loopStart).toBeGreaterThanOrEqual(DEFAULT_CONFIG.toolNoveltyMinSpan)
  })

  it('is switched off per side by its span set to 0', () => {
    const { text } = counterLoop({ seed: 1, side: 'text', prefixChars: 0, loopChars: 8000 })
    expect(feed(text, 'text', { config: { ...exactRulesOff, noveltyMinSpan: 0 } })).toBeUndefined()
    expect(feed(text, 'reasoning', { config: { ...exactRulesOff, toolNoveltyMinSpan: 0 } })?.rule).toBe('novelty')
    const tool = counterLoop({ seed: 1, side: 'tool', prefixChars: 0, loopChars: 40_000 }).text
    expect(feed(tool, 'tool', { config: { ...exactRulesOff, toolNoveltyMinSpan: 0 } })).toBeUndefined()
  })

  it('never trips on the prose fixtures read back to back with new text between', () => {
    const text = PROSE_EN + productiveProse(20_000, 'en', 9) + PROSE_EN
    for (const side of ['reasoning', 'text', 'tool'] as const) expect(feed(text, side), side).toBeUndefined()
  })
})
