import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { STATUS_ARGS } from '../../io/git.js'
import { runProcessSync } from '../../io/process.js'
import { fileReport } from './report-file.js'

/** `svc` in a lane's shell on a host: `svc lane report` with the options it has at home; the lane's git state and
 * verdict file go with the report, and the kernel checks them by SPEC.md's report rules when it arrives. Anything
 * else is run at home. Exit 0 for done, 4 for blocked or failed (as at home), 1 for a usage error. */
export function hostSvc(args: string[], env: NodeJS.ProcessEnv, cwd: string, stdin: () => string): number {
  const fail = (m: string) => {
    process.stderr.write(`svc: ${m}\n`)
    return 1
  }
  if (args[0] !== 'lane' && args[0] !== 'worker')
    return fail(`on a host a lane runs only svc lane report; run svc ${args[0] ?? ''} at home`)
  if (args[1] !== 'report')
    return fail(`on a host a lane runs only svc lane report; run svc ${args.slice(0, 2).join(' ')} at home`)
  if (!env.SERVICE_HOST_OUTBOX) return fail('not inside a lane')
  let o
  try {
    o = parseArgs({
      args: args.slice(2),
      strict: true,
      options: {
        file: { type: 'string' },
        stdin: { type: 'boolean' },
        status: { type: 'string' },
        verdict: { type: 'string' },
        defects: { type: 'string' },
        'verdict-file': { type: 'string' },
        'allow-unpushed': { type: 'boolean' },
      },
    }).values
  } catch (e) {
    return fail((e as Error).message)
  }
  const status = o.status ?? 'done'
  if (!['done', 'blocked', 'failed'].includes(status)) return fail(`--status ${status}: one of done, blocked, failed`)
  if ((o.file === undefined) === !o.stdin) return fail('give the report with --file <path> or --stdin')
  const read = (p: string) => readFileSync(p.startsWith('/') ? p : join(cwd, p), 'utf8')
  let body: string
  let verdictText: string | undefined
  try {
    body = o.file !== undefined ? read(o.file) : stdin()
    verdictText = o['verdict-file'] === undefined ? undefined : read(o['verdict-file'])
  } catch (e) {
    return fail((e as Error).message)
  }
  // Not a worktree (a play directory): no git facts.
  const st = runProcessSync(['git', ...STATUS_ARGS], {
    cwd,
    env: { ...env, GIT_OPTIONAL_LOCKS: '0' },
  })
  const git = st?.code === 0 ? st.stdout : undefined
  const defects = o.defects === undefined ? undefined : Number(o.defects)
  if (defects !== undefined && !(Number.isInteger(defects) && defects >= 0))
    return fail(`--defects ${o.defects}: a whole number, 0 or more`)
  fileReport(env.SERVICE_HOST_OUTBOX, status, body, {
    ...(git !== undefined ? { git } : {}),
    ...(o.verdict !== undefined ? { verdict: o.verdict } : {}),
    ...(defects !== undefined ? { defects } : {}),
    ...(verdictText !== undefined ? { verdictText, verdictPath: o['verdict-file'] } : {}),
    ...(o['allow-unpushed'] ? { allowUnpushed: true } : {}),
  })
  return status === 'done' ? 0 : 4
}
