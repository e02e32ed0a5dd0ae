/** USD per million tokens: input (uncached), cached input, output. List prices as published by OpenAI for these
 * models; a cost computed from them is an estimate and is always shown as one. */
const PRICES: Record<string, [number, number, number]> = {
  'gpt-5-mini': [0.25, 0.025, 2],
  'gpt-5-nano': [0.05, 0.005, 0.4],
  'gpt-5': [1.25, 0.125, 10],
  'codex-mini': [1.5, 0.375, 6],
  'o4-mini': [1.1, 0.275, 4.4],
  o3: [2, 0.5, 8],
  'gpt-4.1': [2, 0.5, 8],
}
/** Models not in the table are estimated at the price of the family codex uses by default. */
const FALLBACK = PRICES['gpt-5']

interface TokenUsage {
  input: number
  cachedInput: number
  output: number
}

/** The price row of a model: the longest table key the model name starts with (gpt-5-codex → gpt-5). */
export function pricesFor(model: string | undefined): [number, number, number] {
  const key = Object.keys(PRICES)
    .filter((k) => model?.startsWith(k))
    .sort((a, b) => b.length - a.length)[0]
  return key ? PRICES[key] : FALLBACK
}

/** Estimated USD for token usage. Cached input tokens are part of the input tokens (OpenAI's usage convention). */
export function estimateUsd(model: string | undefined, u: TokenUsage): number {
  const [input, cached, output] = pricesFor(model)
  const uncached = Math.max(0, u.input - u.cachedInput)
  return (uncached * input + u.cachedInput * cached + u.output * output) / 1_000_000
}

/** Which usage fields a codex estimate is made of. */
export const CODEX_USAGE_BASIS =
  "thread/tokenUsage/updated's total, the thread's running total: inputTokens less cachedInputTokens, " +
  'cachedInputTokens, outputTokens (reasoningOutputTokens are part of outputTokens)'

/** A thread's usage from codex's newest `thread/tokenUsage/updated` total. Codex reports the thread's running total
 * there after each model request, so the newest report is the whole thread: adding reports up would count earlier
 * requests again (three equal turns would show six turns' tokens). */
export function codexThreadUsage(total: Record<string, unknown> | undefined): TokenUsage {
  const n = (k: string) => (typeof total?.[k] === 'number' ? (total[k] as number) : 0)
  return { input: n('inputTokens'), cachedInput: n('cachedInputTokens'), output: n('outputTokens') }
}
