import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import * as v from 'valibot'
import { SvcError } from '../../domain/errors.js'
import { createFileOnce, writeFileAtomic } from '../atomic-file.js'
import type { IssueComment, IssueFacts, IssueState, Tracker } from './types.js'

/** Issues svc keeps itself: `<home>/issues/<project>/<n>.md`, YAML front matter (title, state, created, and closed
 * once closed) then the body. A comment is a file of its own, `<n>.comments/<k>.md`, so a post is whole or absent.
 * Numbers (of issues and of comments) are taken by creating the file exclusively: two racing creations never
 * share one. */

const timestamp = v.pipe(v.string('must be an ISO timestamp'), v.isoTimestamp('must be an ISO timestamp'))
const FrontMatter = v.object(
  {
    title: v.pipe(
      v.string('must be text'),
      v.check((t) => t.trim() !== '', 'must not be empty'),
    ),
    state: v.picklist(['open', 'closed'], 'must be open or closed'),
    created: timestamp,
    closed: v.optional(timestamp),
  },
  'must be a mapping with title, state and created',
)

export interface LocalIssue extends IssueFacts {
  number: number
  created: string
  closed?: string
}

const NUMBERED = /^([1-9][0-9]{0,8})\.md$/
/** How many taken numbers a creation steps over before it gives up (only a flood of racing creations gets near). */
const MAX_TRIES = 1000

const yaml = () => import('yaml')

export class LocalIssues implements Tracker<number> {
  /** `dir` is the project's issue directory, `<home>/issues/<project>`. */
  constructor(
    readonly dir: string,
    readonly project: string,
  ) {}

  path = (n: number) => join(this.dir, `${n}.md`)
  private commentsDir = (n: number) => join(this.dir, `${n}.comments`)

  /** A new open issue; returns its number. */
  async create(title: string, body: string, now: Date): Promise<number> {
    const text = await render({ title, state: 'open', created: now.toISOString() }, body)
    return takeNumber(this.dir, await numbersIn(this.dir), (n) => createFileOnce(this.path(n), text))
  }

  async read(n: number): Promise<LocalIssue> {
    const path = this.path(n)
    let text: string
    try {
      text = await readFile(path, 'utf8')
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT')
        throw new SvcError(
          'not_found',
          `no issue local:${n} in project ${this.project}`,
          'svc issue list shows the issues',
        )
      throw e
    }
    const { meta, body } = await parseIssueFile(path, text)
    return { number: n, ...meta, body, url: pathToFileURL(path).href }
  }

  /** Every issue, oldest first. */
  async list(): Promise<LocalIssue[]> {
    return Promise.all((await numbersIn(this.dir)).sort((a, b) => a - b).map((n) => this.read(n)))
  }

  /** Close an issue; `already` when it was closed before. */
  async close(n: number, now: Date): Promise<{ issue: LocalIssue; already: boolean }> {
    const issue = await this.read(n)
    if (issue.state === 'closed') return { issue, already: true }
    const closed = now.toISOString()
    await writeFileAtomic(
      this.path(n),
      await render({ title: issue.title, state: 'closed', created: issue.created, closed }, issue.body),
    )
    return { issue: { ...issue, state: 'closed', closed }, already: false }
  }

  async resolve(n: number): Promise<IssueFacts> {
    const { title, body, url, state } = await this.read(n)
    return { title, body, url, state }
  }

  async comments(n: number): Promise<IssueComment[]> {
    await this.read(n)
    const dir = this.commentsDir(n)
    const numbers = (await numbersIn(dir)).sort((a, b) => a - b)
    return Promise.all(
      numbers.map(async (k) => ({ id: String(k), body: await readFile(join(dir, `${k}.md`), 'utf8') })),
    )
  }

  async comment(n: number, body: string): Promise<{ posted: true; url: string }> {
    await this.read(n)
    const dir = this.commentsDir(n)
    const k = await takeNumber(dir, await numbersIn(dir), (k) => createFileOnce(join(dir, `${k}.md`), body))
    return { posted: true, url: pathToFileURL(join(dir, `${k}.md`)).href }
  }
}

/** The numbers of the `<n>.md` files in a directory (none when it does not exist). */
async function numbersIn(dir: string): Promise<number[]> {
  try {
    return (await readdir(dir)).flatMap((f) => {
      const m = NUMBERED.exec(f)
      return m ? [Number(m[1])] : []
    })
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return []
    throw e
  }
}

/** The first free number after the highest taken one, claimed by `create` (false: someone else took it first). */
async function takeNumber(dir: string, taken: number[], create: (n: number) => Promise<boolean>): Promise<number> {
  let n = Math.max(0, ...taken) + 1
  for (let i = 0; i < MAX_TRIES; i++, n++) if (await create(n)) return n
  throw new SvcError('conflict', `could not take a free number in ${dir} after ${MAX_TRIES} tries`)
}

async function render(meta: v.InferOutput<typeof FrontMatter>, body: string): Promise<string> {
  const { stringify } = await yaml()
  return `---\n${stringify(meta)}---\n${body}`
}

/** The front matter and body of an issue file, or one line naming the file and what is wrong. */
async function parseIssueFile(
  path: string,
  text: string,
): Promise<{ meta: { title: string; state: IssueState; created: string; closed?: string }; body: string }> {
  const m = /^---\r?\n(?:([\s\S]*?)\r?\n)?---(?:\r?\n|$)/.exec(text)
  if (!m)
    throw new SvcError(
      'usage',
      `${path}: no front matter: the file must begin with a --- line, then title, state and created, then a --- line`,
    )
  let doc: unknown
  try {
    doc = (await yaml()).parse(m[1] ?? '')
  } catch (e) {
    // The parser counts lines from the front matter's first; the file has the opening --- line before it.
    const first = (e as Error).message
      .split('\n')[0]
      .replace(/ at line (\d+), column (\d+):?$/, (_, l, c) => ` (line ${Number(l) + 1}, column ${c})`)
    throw new SvcError('usage', `${path}: the front matter is not valid YAML: ${first}`)
  }
  const r = v.safeParse(FrontMatter, doc)
  if (!r.success) {
    const issue = r.issues[0]
    const key = v.getDotPath(issue)
    const what = key && issue.received === 'undefined' ? 'missing' : `${issue.message}, not ${issue.received}`
    throw new SvcError('usage', `${path}: front matter${key ? ` ${key}` : ''}: ${what}`)
  }
  return { meta: r.output, body: text.slice(m[0].length) }
}
