import * as v from 'valibot'

export type Checked<T> = { ok: true; value: T } | { ok: false; problem: string }

/** What is wrong with a value, on one line: the key path of the first issue and what was expected there. */
export function issueText(issues: readonly v.BaseIssue<unknown>[]): string {
  const issue = issues[0]
  const key = v.getDotPath(issue) ?? '(top level)'
  const what =
    issue.expected === 'never'
      ? 'unknown key'
      : issue.received === 'undefined'
        ? issue.expected?.startsWith('"') // an absent key: the key itself is what was expected
          ? 'missing'
          : `missing; expected ${issue.expected}`
        : issue.expected
          ? `expected ${issue.expected}, got ${issue.received}`
          : issue.message
  return `${key}: ${what}`
}

/** A value read from a file checked against its schema. The value itself is kept (with any field a newer writer
 * added), so writing it back loses nothing; its type is the schema's. */
export function checkShape<S extends v.GenericSchema>(schema: S, value: unknown): Checked<v.InferOutput<S>> {
  const r = v.safeParse(schema, value)
  return r.success ? { ok: true, value: value as v.InferOutput<S> } : { ok: false, problem: issueText(r.issues) }
}
