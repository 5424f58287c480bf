/**
 * Provider wordings of "the request does not fit the model's context", and of its cousin "the output
 * reserve (`max_tokens`) does not fit what is left". There is no standard status for either: each
 * provider answers 400 (sometimes 413, sometimes no body) with its own sentence, so the only portable
 * signal is the wording. Each row names the provider whose real error text it was taken from; the
 * tests (`test/retry/overflow-patterns.test.ts`) hold that text verbatim, one case per row.
 *
 * Known traps, handled by the classifier before this table is consulted: a tokens-per-minute
 * "Request too large ... on tokens per min (TPM)" is a rate limit; "string too long ... maximum length"
 * is an invalid request (one field too long, not the context); a "429" echoed inside prompt text is
 * never read as a status (status comes only from the failure's `status` field).
 */

/** One provider's wording of an overflow error: a row of `OUTPUT_RESERVE_PATTERNS` or `CONTEXT_OVERFLOW_PATTERNS`. */
export interface WordingPattern {
  /** The provider (or server) whose wording this is. */
  provider: string
  /** Matches that provider's error text anywhere in the failure's message and its `cause` chain. */
  pattern: RegExp
}

/** Output reserve overflow: shrinking history does not help, lowering `max_tokens` does. */
export const OUTPUT_RESERVE_PATTERNS: readonly WordingPattern[] = [
  { provider: 'OpenAI', pattern: /\bmax_tokens is too large\b/i },
  { provider: 'OpenAI', pattern: /\bsupports at most \d+ completion tokens\b/i },
  { provider: 'Anthropic', pattern: /\bmax_tokens: \d+ > \d+, which is the maximum allowed number of output tokens\b/i },
  { provider: 'Anthropic', pattern: /\binput length and `?max_tokens`? exceed context limit\b/i },
  { provider: 'vLLM', pattern: /'max_tokens' or 'max_completion_tokens' is too large\b/i },
  { provider: 'DeepSeek', pattern: /\bInvalid max_tokens value, the valid range of max_tokens is\b/i },
]

/** Context overflow: the prompt itself is too long; compaction can make it fit. */
export const CONTEXT_OVERFLOW_PATTERNS: readonly WordingPattern[] = [
  { provider: 'Anthropic', pattern: /\bprompt is too long\b/i },
  { provider: 'Amazon Bedrock', pattern: /\binput is too long for requested model\b/i },
  { provider: 'OpenAI', pattern: /\bexceeds the context window\b/i },
  { provider: 'OpenAI / DeepSeek / vLLM / Groq', pattern: /\bmaximum context length is \d+ tokens\b/i },
  { provider: 'OpenRouter', pattern: /\bendpoint's maximum context length is \d+\b/i },
  { provider: 'Azure OpenAI', pattern: /\bcontext_length_exceeded\b/i },
  { provider: 'Google Gemini / Vertex AI', pattern: /\binput token count \(?\d+\)? exceeds the maximum number of tokens allowed\b/i },
  { provider: 'xAI', pattern: /\bmaximum prompt length is \d+\b/i },
  { provider: 'Groq / Cerebras', pattern: /\breduce the length of the messages\b/i },
  { provider: 'Cerebras', pattern: /\bcurrent length is \d+ while limit is \d+\b/i },
  { provider: 'Mistral', pattern: /\btoo large for model with \d+ maximum context length\b/i },
  { provider: 'Together AI', pattern: /`?inputs`? tokens \+ `?max_new_tokens`? must be <= \d+/i },
  { provider: 'Ollama', pattern: /\bprompt too long; exceeded (?:max )?context length\b/i },
  { provider: 'llama.cpp', pattern: /\bexceeds the available context size\b/i },
  { provider: 'llama.cpp', pattern: /\bexceed_context_size_error\b/i },
  { provider: 'vLLM', pattern: /\bis longer than the maximum model length of \d+\b/i },
  { provider: 'vLLM', pattern: /\binput length \(?\d+\)? exceeds (?:the )?model's maximum context length\b/i },
  { provider: 'LM Studio', pattern: /\bgreater than the context length\b/i },
  { provider: 'LM Studio', pattern: /\bloaded with context length of only \d+ tokens\b/i },
  { provider: 'GitHub Copilot', pattern: /\btoken count of \d+ exceeds the limit of \d+\b/i },
  { provider: 'Moonshot / Kimi', pattern: /\bexceeded model token limit\b/i },
  { provider: 'MiniMax', pattern: /\bcontext window exceeds limit\b/i },
  { provider: 'DashScope (Qwen)', pattern: /\bRange of input length should be \[\d+, ?\d+\]/i },
  { provider: 'Z.ai (GLM)', pattern: /\bmodel_context_window_exceeded\b/i },
  { provider: 'Anthropic (413)', pattern: /\brequest_too_large\b|\brequest exceeds the maximum allowed number of bytes\b/i },
  { provider: 'HTTP 413', pattern: /\brequest entity too large\b/i },
  // A 400/413 with no body: Bedrock and some gateways reject an oversized request without a word.
  { provider: 'OpenAI SDK (no body)', pattern: /\b4(?:00|13) status code \(no body\)/i },
  { provider: 'DSH DeepSeek adapter (no body)', pattern: /\bAPI error \(HTTP 4(?:00|13)\)$/i },
]

/** Tokens-per-minute limits say "request too large" but clear by waiting: a rate limit, not an overflow. */
export const THROUGHPUT_LIMIT_PATTERN = /\b(?:tokens|requests) per (?:min(?:ute)?|second|day)\b|\((?:TPM|RPM|TPD|RPD|ITPM|OTPM)\)/i

/** One string field over its maximum length is an invalid request; shrinking history does not fix it. */
export const FIELD_TOO_LONG_PATTERN = /\bstring[_ ]above[_ ]max[_ ]length\b|\bstring too long\. Expected a string with maximum length\b/i

export function matchWording(patterns: readonly WordingPattern[], text: string): WordingPattern | undefined {
  return patterns.find(({ pattern }) => pattern.test(text))
}
