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

