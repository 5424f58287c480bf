// A real `ci_status` tool for agent-loop tests of legitimate waits: each call returns the next of
// `answers` (the last one again once they run out), as a CI service answers successive polls.
import { defineTool } from '@deepseek-ai/dsh-tools'

export function ciStatusTool(answers: readonly string[]) {
  let polls = 0
  const tool = defineTool({
    name: 'ci_status',
    description: 'The status of a CI run.',
    parameters: { run: { type: 'number', required: true } },
    output: { schema: { type: 'string' }, render: (_args: unknown, value: string) => [{ type: 'text' as const, text: value }] },
    async execute() {
      return answers[Math.min(polls++, answers.length - 1)]!
    },
  })
  return { tool, polls: () => polls }
}
