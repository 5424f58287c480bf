/**
 * Real provider error texts, verbatim as each provider returns them (numbers vary per request), with the
 * status they come with. Shared by the pattern-table tests and the end-to-end overflow tests.
 */
export const CONTEXT_OVERFLOW_WORDINGS: Array<[provider: string, status: number | undefined, message: string]> = [
  ['Anthropic', 400, 'prompt is too long: 213462 tokens > 200000 maximum'],
  ['Amazon Bedrock', 400, 'Input is too long for requested model.'],
  ['OpenAI', 400, 'Your input exceeds the context window of this model. Please adjust your input and try again.'],
  ['OpenAI / DeepSeek / vLLM / Groq', 400, "This model's maximum context length is 131072 tokens. However, you requested 140000 tokens (140000 in the messages, 0 in the completion). Please reduce the length of the messages or completion."],
  ['OpenRouter', 400, "This endpoint's maximum context length is 200000 tokens. However, you requested about 250000 tokens (240000 of text input, 10000 in the output). Please reduce the length of either one, or use the \"middle-out\" transform to compress your prompt automatically."],
  ['Azure OpenAI', 400, "Error code: 400 - {'error': {'message': \"This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens. Please reduce the length of the messages.\", 'type': 'invalid_request_error', 'param': 'messages', 'code': 'context_length_exceeded'}}"],
  ['Google Gemini / Vertex AI', 400, 'The input token count (1230000) exceeds the maximum number of tokens allowed (1048576).'],
  ['xAI', 400, "This model's maximum prompt length is 131072 but the request contains 140000 tokens."],
  ['Groq / Cerebras', 400, 'Please reduce the length of the messages or completion.'],
  ['Cerebras', 400, 'Please reduce the length of the messages or completion. Current length is 8500 while limit is 8192'],
  ['Mistral', 400, 'Prompt contains 40000 tokens and 0 draft tokens, too large for model with 32768 maximum context length'],
  ['Together AI', 400, 'Input validation error: `inputs` tokens + `max_new_tokens` must be <= 32769. Given: 33000 `inputs` tokens and 2048 `max_new_tokens`'],
  ['Ollama', 400, 'prompt too long; exceeded max context length by 1500 tokens'],
  ['llama.cpp', 400, 'the request exceeds the available context size, try increasing it'],
  ['llama.cpp', 400, '{"code":400,"message":"request (9000 tokens) exceeds the context","type":"exceed_context_size_error","n_prompt_tokens":9000,"n_ctx":8192}'],
  ['vLLM', 400, 'The decoder prompt (length 9000) is longer than the maximum model length of 8192. Make sure that `max_model_len` is no smaller than the number of text tokens.'],
  ['vLLM', 400, "Input length (9000) exceeds model's maximum context length (8192)."],
  ['LM Studio', 400, 'The number of tokens to keep from the initial prompt is greater than the context length. Try to load the model with a larger context length, or provide a shorter input'],
  ['LM Studio', 400, 'Trying to keep the first 9000 tokens when context the overflows. However, the model is loaded with context length of only 4096 tokens, which is not enough. Try to load the model with a larger context length, or provide a shorter input'],
  ['GitHub Copilot', 400, 'prompt token count of 130000 exceeds the limit of 128000'],
  ['Moonshot / Kimi', 400, 'Invalid request: Your request exceeded model token limit: 131072'],
  ['MiniMax', 400, 'invalid params, context window exceeds limit'],
  ['DashScope (Qwen)', 400, '<400> InternalError.Algo.InvalidParameter: Range of input length should be [1, 30720]'],
  // Z.ai reports it as a finish reason; DSH's OpenAI-style translation turns that into this failure.
  ['Z.ai (GLM)', undefined, 'model stopped: model_context_window_exceeded'],
  ['Anthropic (413)', 413, 'Request exceeds the maximum allowed number of bytes.'],
  ['HTTP 413', 413, '413 Request Entity Too Large'],
  ['OpenAI SDK (no body)', 400, '400 status code (no body)'],
  ['DSH DeepSeek adapter (no body)', 400, 'DeepSeek API error (HTTP 400)'],
]

export const OUTPUT_RESERVE_WORDINGS: Array<[provider: string, message: string]> = [
  ['OpenAI', 'max_tokens is too large: 200000. This model supports at most 16384 completion tokens, whereas you provided 200000.'],
  ['OpenAI', 'This model supports at most 4096 completion tokens, whereas you provided 8192.'],
  ['Anthropic', 'max_tokens: 64000 > 32000, which is the maximum allowed number of output tokens for claude-opus-4-20250514'],
  ['Anthropic', 'input length and `max_tokens` exceed context limit: 188240 + 21333 > 200000, decrease input length or `max_tokens` and try again'],
  ['vLLM', "'max_tokens' or 'max_completion_tokens' is too large: 4096. This model's maximum context length is 8192 tokens and your request has 5000 input tokens (4096 > 8192 - 5000)."],
  ['DeepSeek', 'Invalid max_tokens value, the valid range of max_tokens is [1, 8192]'],
]


/**
 * Overflow wordings that no row of the provider table holds, written for the meaning-based rule: a
 * token count compared with the model's limit, in either order and several languages. Each is a 400.
 */
export const MEANING_OVERFLOW_WORDINGS: Array<[language: string, message: string]> = [
  ['en', 'input length 130000 exceeds the limit of 128000'],
  ['en', 'Request failed: prompt tokens (140000) exceed model limit 131072'],
  ['en', 'prompt has 40000 tokens but model supports 32768'],
  ['en', 'The limit for this deployment is 32768 tokens, however your request contains 40000 tokens.'],
  ['en', 'messages are longer than the context size of the model (9000 > 8192)'],
  ['en', 'Total number of tokens 9100 is greater than the configured maximum 8192'],
  ['en', 'upstream rejected: the conversation is over the context window for qwen2.5-72b'],
  ['en', 'input_tokens=250000 > max_context=200000'],
  ['en', 'Token count 70000 goes beyond the maximum of 65536 for this model.'],
  ['zh', '请求的 token 数 140000 超过了模型最大上下文长度 131072'],
  ['zh', '输入长度超出模型的上下文限制，请缩短对话后重试'],
  ['zh', '提示词的长度 (9000) 大于最大上下文 8192'],
  ['ja', 'プロンプトのトークン数 (9000) がモデルの最大コンテキスト長 (8192) を超えています。'],
  ['ko', '입력 토큰 수(9000)가 모델의 최대 컨텍스트 길이(8192)를 초과했습니다.'],
  ['es', 'El número de tokens de la entrada (9000) supera el máximo de contexto del modelo (8192).'],
  ['fr', "Le nombre de jetons de l'entrée (9000) dépasse la longueur de contexte maximale du modèle (8192)."],
]

/** Period or plan allowances used up, written for the meaning-based quota rule; they arrive with any status. */
export const ALLOWANCE_WORDINGS: Array<[language: string, status: number, message: string]> = [
  ['en', 429, 'monthly token budget exhausted'],
  ['en', 429, 'You have reached your monthly spending limit. Raise it in the console to continue.'],
  ['en', 429, 'Your token allowance for this billing period has been used up.'],
  ['en', 403, 'Daily request quota for your plan exceeded; it resets at 00:00 UTC.'],
  ['en', 400, 'Subscription usage cap reached for the current cycle'],
  ['zh', 429, '您本月的 token 额度已用尽，请升级套餐或等待下个计费周期'],
  ['zh', 429, '账户配额已用完'],
  ['ja', 429, '今月の利用上限に達しました。'],
  ['ko', 429, '월간 사용 한도를 초과했습니다.'],
  ['es', 429, 'Has superado tu límite de gasto mensual.'],
  ['fr', 429, 'Vous avez dépassé votre quota mensuel.'],
]

/** Wordings that look like an overflow or an allowance but are neither, each with the kind it is. */
export const MEANING_TRAPS: Array<[what: string, status: number, message: string, kind: string]> = [
  ['OpenAI TPM "request too large"', 429, 'Request too large for gpt-4o in organization org-abc on tokens per min (TPM): Limit 30000, Requested 45000.', 'rate-limit'],
  ['TPM on a 400 from a gateway', 400, 'Request too large: input tokens per minute exceed the limit of 30000', 'rate-limit'],
  ['one string field too long', 400, "Invalid 'input': string too long. Expected a string with maximum length 1048576, but got a string with length 2000000 instead.", 'invalid-request'],
  ['output reserve in unknown words', 400, 'completion tokens (9000) exceed the maximum of 8192 for this model', 'invalid-request'],
  ['max_tokens over the limit', 400, 'max_tokens 200000 exceeds the model limit of 16384', 'invalid-request'],
  ['a request count over a limit', 429, 'request count exceeds the limit of 60 per minute', 'rate-limit'],
  ['a token rate over its limit on a 429', 429, 'prompt tokens exceed the limit of 100000 per minute for your tier', 'rate-limit'],
  ['zh request frequency', 429, '请求频率超过限制，请稍后再试', 'rate-limit'],
  ['zh per-minute token limit', 400, '每分钟 token 数超过限制', 'invalid-request'],
  ['ko per-minute request limit', 429, '분당 요청 한도를 초과했습니다', 'rate-limit'],
  ['rate limit by plan tier', 429, 'Rate limit reached for your plan: 60 requests per minute', 'rate-limit'],
  ['image too large', 400, 'image size exceeds the limit of 20MB', 'invalid-request'],
  ['tool schema count', 400, 'tools: array is longer than the maximum of 128 items', 'invalid-request'],
]
