/**
 * A scripted model that reads files one call at a time (the same file again and again makes a streak of
 * identical steps), then answers; the `read_file` tool it calls; and a compact view of a request.
 */
import { defineTool } from '@deepseek-ai/dsh-tools'
import type { GenerateOptions } from '@deepseek-ai/dsh-llm'
import { textAnswer } from './host.ts'
import type { Script } from './host.ts'
import { streamBlocks } from './loop-breaker.ts'

/** Call `i` reads `files[i]`; the call after the last read answers with text. */
export function repeatedReads(files: string[], answer = 'The parser drops the last token in lexer.ts.'): Script {
  return (_options, call) => call < files.length
    ? streamBlocks([{ type: 'tool-call', id: `call-${call}`, name: 'read_file', deltas: [JSON.stringify({ path: files[call] })] }])
    : textAnswer(answer)
}

export const READ_FILE = defineTool({
  name: 'read_file',
  description: 'Read a file.',
  parameters: { path: { type: 'string', required: true } },
  output: { schema: { type: 'string' }, render: (_args: unknown, value: string) => [{ type: 'text' as const, text: value }] },
  async execute(args: { path: string }) {
    return `contents of ${args.path}`
  },
})

/** A request as a list: `user`, `notice`, `result`, or `<tool> <path>` / `text` for assistant messages. */
export function requestShape(request: GenerateOptions): string[] {
  return request.messages.map((message: any) => {
    if (message.role === 'assistant') {
      const call = message.content.find((block: any) => block.type === 'tool-call')
      return call === undefined ? 'text' : `${call.name} ${JSON.parse(call.arguments).path}`
    }
    if (message.content.some((block: any) => block.type === 'tool-result')) return 'result'
    return message.source?.kind === 'plugin' ? 'notice' : 'user'
  })
}
