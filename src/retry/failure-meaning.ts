/**
 * Classification by meaning, for wordings no provider table holds (proxies, self-hosted servers, cloud
 * gateways word the same facts their own way). Two statements are recognised:
 *
 * - "a token count is over the model's limit": a token-count subject (prompt, input, request, messages,
 *   context, tokens...) compared with a maximum, context length/size/window or limit, in either order
 *   ("input length 130000 exceeds the limit of 128000", "maximum context length is 8192 tokens, however
 *   you requested 9000 tokens", "prompt has 40000 tokens but model supports 32768").
 * - "an allowance for a billing period or plan is used up": a period or plan (monthly, daily, billing
 *   period, plan, subscription...) with a limit, quota, allowance, budget or credit that is exceeded,
 *   reached or exhausted. It cannot succeed before the period ends, whatever the status says.
 *
 * The traps (a tokens-per-minute "request too large", one over-long string field, an output reserve)
 * are settled by the classifier before these rules run (see docs/retry.md#how-failures-are-classified);
 * the rules themselves exclude the subjects that are not the prompt (output, completion, max_tokens) and
 * the request counts and rates that a rate limiter compares with its limit.
 */

/** English, word by word: subject, then a comparison, then the limit; gaps only of the words listed. */
const EN_SUBJECT = String.raw`(?<!\b(?:output|completion|generation|generated|new|reasoning)[\s_-]+)\b(?:prompt|input|request|requested|messages?|context|conversation|tokens?|token[\s_-]+count|number[\s_-]+of[\s_-]+(?:input[\s_-]+|prompt[\s_-]+)?tokens)(?:[\s_-]+tokens?)?\b`
/** A number, matched whole (the lookahead leaves one way to match it, so a repeated gap cannot backtrack). */
const EN_NUMBER = String.raw`\d[\d,_]*(?![\d,_])`
/** What may stand between the subject and its verb: qualifiers, the count itself, punctuation. */
const EN_SUBJECT_GAP = String.raw`(?:[\s(),:=]|${EN_NUMBER}|\b(?:tokens?|token[\s_-]+count|length|size|total|of|the|your|this|its|has|have|contains|containing|with|is|are|was|in)\b)*`
const EN_COMPARISON = String.raw`(?:\bexceed(?:s|ed|ing)?\b|\b(?:(?:is|are|was|were)\s+)?(?:longer|larger|greater|more|bigger)\s+than\b|\b(?:is|are|was|were)\s+(?:over|above|beyond)\b|\bgoes\s+(?:over|beyond)\b|\bsurpass(?:es|ed)?\b|>)`
const EN_LIMIT_GAP = String.raw`(?:[\s(),:]|${EN_NUMBER}|\b(?:the|your|this|its|our|a|an|model(?:'s|’s)?|allowed|available|supported|configured|permitted|current|of|tokens?)\b)*`
const EN_LIMIT = String.raw`(?:\bmax(?:imum)?(?:\b|_)|\blimits?\b|\bcontext(?:[\s_-]+(?:length|size|window))?\b|\bcapacity\b|\bmodel[\s_-]+length\b|\d[\d,_]*\s*tokens?\b)`
/** "The limit is N tokens, however you requested M tokens": the limit first, the count after a contrast. */
const EN_LIMIT_FIRST = String.raw`\b(?:max(?:imum)?|limit|context[\s_-]+(?:length|size|window)|supports?|allows?)\b[^.;\n]{0,40}?\d[^.;\n]{0,30}?\b(?:but|however|while|whereas|yet)\b[^.;\n]{0,30}?\b(?:prompt|input|request|requested|messages?|conversation|received|sent|provided|resulted\s+in|contains?|has)\b[^.;\n]{0,30}?\d[\d,_]*\s*tokens?\b`
/** "The prompt has N tokens but the model supports M": the count first, the limit after a contrast. */
const EN_COUNT_FIRST = String.raw`${EN_SUBJECT}[^.;\n]{0,20}?\d[\d,_]*\s*tokens?\b[^.;\n]{0,10}?\b(?:but|however|while|whereas)\b[^.;\n]{0,30}?\b(?:supports?|allows?|accepts?|limit|max(?:imum)?|context)\b[^.;\n]{0,30}?\d`

const EN_OVERFLOW = new RegExp(`${EN_SUBJECT}${EN_SUBJECT_GAP}${EN_COMPARISON}${EN_LIMIT_GAP}${EN_LIMIT}|${EN_LIMIT_FIRST}|${EN_COUNT_FIRST}`, 'i')

/**
 * Other languages word order freely (Japanese and Korean put the verb last), so within one clause the
 * three parts must all be present: a token-count subject, a comparison and a limit.
 */
interface ClauseRule {
  language: string
  subject: RegExp
  comparison: RegExp
  limit: RegExp
}

/** Whole words of a Latin-script language with accents (`\\b` knows only ASCII letters). */
function latinWords(alternatives: string): RegExp {
  return new RegExp(`(?<![\\p{L}\\d])(?:${alternatives})(?![\\p{L}\\d])`, 'iu')
}

const OVERFLOW_CLAUSES: readonly ClauseRule[] = [
  {
    language: 'zh',
    subject: /token|令牌|词元|(?:输入|请求|提示词?|消息|上下文|对话)的?\s*(?:长度|字数|总长度)/i,
    comparison: /超过|超出|大于|多于|高于/,
    limit: /最大|上限|限制|上下文/,
  },
  {
    language: 'ja',
    subject: /トークン|token|(?:入力|プロンプト|リクエスト|メッセージ|コンテキスト)(?:の)?(?:長さ|長|サイズ)/i,
    comparison: /超え|超過|上回/,
    limit: /最大|上限|制限|コンテキスト長/,
  },
  {
    language: 'ko',
    subject: /토큰|token|(?:입력|프롬프트|요청|메시지|컨텍스트)\s*(?:의\s*)?(?:길이|크기)/i,
    comparison: /초과|넘었|넘습|넘어/,
    limit: /최대|한도|제한|컨텍스트/,
  },
  {
    language: 'es',
    subject: latinWords(String.raw`tokens?|longitud\s+(?:de(?:l| la)?\s+)?(?:entrada|prompt|solicitud|petición|mensajes?|contexto)`),
    comparison: latinWords(String.raw`supera|superan|excede|exceden|sobrepasa|sobrepasan|es\s+mayor\s+que`),
    limit: latinWords('máxim[oa]|límite|contexto|ventana'),
  },
  {
    language: 'fr',
    subject: latinWords(String.raw`tokens?|jetons?|longueur\s+(?:de\s+l['’]entrée|du\s+prompt|de\s+la\s+requête|des\s+messages|du\s+contexte)`),
    comparison: latinWords(String.raw`dépasse|dépassent|excède|excèdent|est\s+supérieure?\s+à`),
    limit: latinWords('maximum|maximale|limite|contexte|fenêtre'),
  },
]

/** A throughput wording inside a clause (counted per unit of time): a rate limit, never an overflow. */
const CLAUSE_RATE = /每(?:分钟|秒|小时)|频率|速率|分あたり|毎分|レート|분당|초당|속도|\bpor\s+(?:minuto|segundo)\b|\bpar\s+(?:minute|seconde)\b/i

const CLAUSE_END = /[.;!?\n。；！？]+/

function clauseStates(rules: readonly ClauseRule[], text: string): ClauseRule | undefined {
  for (const clause of text.split(CLAUSE_END)) {
    if (CLAUSE_RATE.test(clause)) continue
    const rule = rules.find(({ subject, comparison, limit }) => subject.test(clause) && comparison.test(clause) && limit.test(clause))
    if (rule !== undefined) return rule
  }
  return undefined
}

/** The language whose wording says the prompt's token count is over the model's limit, if any. */
export function statesContextOverflow(text: string): string | undefined {
  if (EN_OVERFLOW.test(text)) return 'en'
  return clauseStates(OVERFLOW_CLAUSES, text)?.language
}

/** A period or plan, an allowance of it, and that allowance used up: in any order within a clause. */
const ALLOWANCE_CLAUSES: readonly ClauseRule[] = [
  {
    language: 'en',
    subject: /\b(?:daily|weekly|monthly|yearly|annual|billing[\s_-]+(?:period|cycle)|(?:this|the|current)[\s_-]+(?:month|period|cycle)|plan(?:'s)?|subscription)\b/i,
    limit: /\b(?:limit|quota|allowance|budget|cap|credits?|spend(?:ing)?|usage)\b/i,
    comparison: /\b(?:exceed(?:s|ed)?|reached|hit|exhausted|used\s+up|depleted|run\s+out|ran\s+out|over)\b/i,
  },
  {
    language: 'zh',
    subject: /额度|配额|套餐|本月|当月|每月|月度|今日|今天|每日|计费周期|账单周期/,
    limit: /额度|配额|用量|限额|预算|上限/,
    comparison: /用尽|用完|耗尽|已满|超出|超过|达到|已达/,
  },
  {
    language: 'ja',
    subject: /月間|今月|月次|日次|本日|プラン|請求期間|クォータ|利用枠/,
    limit: /上限|クォータ|利用枠|予算|クレジット/,
    comparison: /達し|超過|使い切|超え/,
  },
  {
    language: 'ko',
    subject: /월간|월별|이번\s*달|일일|요금제|플랜|할당량/,
    limit: /한도|할당량|예산|크레딧/,
    comparison: /초과|소진|도달/,
  },
  {
    language: 'es',
    subject: latinWords(String.raw`mensual|diari[oa]|del\s+plan|de\s+tu\s+plan|suscripción|periodo\s+de\s+facturación|cuota`),
    limit: latinWords('límite|cuota|presupuesto|créditos?|gasto'),
    comparison: latinWords('superad[oa]|excedid[oa]|agotad[oa]|alcanzad[oa]'),
  },
  {
    language: 'fr',
    subject: latinWords(String.raw`mensuel(?:le)?|quotidien(?:ne)?|forfait|abonnement|période\s+de\s+facturation|quota`),
    limit: latinWords('limite|quota|budget|crédits?|dépenses'),
    comparison: latinWords('dépassée?|atteinte?|épuisée?'),
  },
]

/** A rate limiter's own words: per unit of time, concurrency, "rate limit". Never an allowance. */
const RATE_WORDING = /\brate[\s_-]?limit|\bper[\s_-]+(?:second|minute|min|hour)\b|\b(?:RPM|TPM|RPS)\b|\bconcurren|\btoo many requests\b/i

/** The language whose wording says a billing-period or plan allowance is used up, if any. */
export function statesAllowanceExhausted(text: string): string | undefined {
  for (const clause of text.split(CLAUSE_END)) {
    if (RATE_WORDING.test(clause) || CLAUSE_RATE.test(clause)) continue
    const rule = ALLOWANCE_CLAUSES.find(({ subject, comparison, limit }) => subject.test(clause) && comparison.test(clause) && limit.test(clause))
    if (rule !== undefined) return rule.language
  }
  return undefined
}
