import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { SvcError } from '../../kernel/domain/errors.js'
import type { IssueView } from '../../kernel/port/port.js'
import { age, json, textTable } from '../format.js'
import { oneOf } from '../io.js'
import type { Args, Run } from '../verbs.js'

/** `svc issue new|list|show|close`: the issues a worker can belong to. */

function bodyOf(args: Args<'issue new'>, cwd: string): string | undefined {
  if (args.body !== undefined && args['body-file'] !== undefined)
    throw new SvcError('usage', 'pass one of --body or --body-file, not both')
  if (args['body-file'] === undefined) return args.body
  const path = resolve(cwd, args['body-file'])
  try {
    return readFileSync(path, 'utf8')
  } catch (e) {
    throw new SvcError(
      'usage',
      `cannot read the body file ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
    )
  }
}

function describe(i: IssueView): string {
  const rows: [string, string | undefined][] = [
    ['ref', i.ref],
    ['project', i.project],
    ['state', i.state],
    ['title', i.title],
    ['url', i.url],
    ['created', i.created],
    ['closed', i.closed],
  ]
  const head = rows
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}: ${v}\n`)
    .join('')
  return i.body ? `${head}\n${i.body.endsWith('\n') ? i.body : i.body + '\n'}` : head
}

/** Prints the new issue's reference as its last (and only) line. */
export const issueNew: Run<'issue new'> = async (port, args, io) => {
  if (args.title === undefined) throw new SvcError('usage', "--title is required: the issue's one-line title")
  const issue = await port.issueNew({
    project: args.project,
    title: String(args.title),
    body: bodyOf(args, io.cwd),
    cwd: io.cwd,
  })
  io.out(args.json ? json(issue) : `${issue.ref}\n`)
  return 0
}

export const issueList: Run<'issue list'> = async (port, args, io) => {
  const list = await port.issueList({
    project: args.project,
    state: oneOf(args, 'state', ['open', 'closed'] as const),
  })
  if (args.json) io.out(json(list))
  else
    io.out(
      textTable(
        ['REF', 'PROJECT', 'STATE', 'AGE', 'TITLE'],
        list.map((i) => [i.ref, i.project ?? '-', i.state, i.created ? age(Date.parse(i.created)) : '-', i.title]),
      ),
    )
  return 0
}

export const issueShow: Run<'issue show'> = async (port, args, io) => {
  const issue = await port.issueShow({ ref: args.ref, project: args.project, cwd: io.cwd })
  io.out(args.json ? json(issue) : describe(issue))
  return 0
}

export const issueClose: Run<'issue close'> = async (port, args, io) => {
  const r = await port.issueClose({ ref: args.ref, project: args.project, cwd: io.cwd })
  io.out(args.json ? json(r) : r.already ? `${r.issue.ref} was already closed\n` : `closed ${r.issue.ref}\n`)
  return 0
}
