import { existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { git, until } from '../helpers/home.js'
import { buildAndReport } from '../helpers/project.js'
import { filesOf, type World } from './lane-views-kit.js'

/** What the reap suites share: the reap call, the line it prints, and a capture of everything a refused reap must
 * leave as it was. `world` gives the suite's current World. */
export function reapKit(world: () => World) {
  const reap = (...args: string[]) => world().h.svc(['lane', 'reap', ...args], { timeoutMs: 90_000 })
  const stopped = (name: string) =>
    until(async () => (await world().conv(name)).activity === 'stopped', `${name} stopped`)
  const parkedFiles = (name: string) => readdirSync(world().convDir(name)).filter((f) => f.startsWith('parked-'))
  const svcRefs = () => git(world().checkout, 'for-each-ref', '--format=%(refname)', 'refs/svc/')

  /** Everything a refused reap must leave as it was. */
  async function capture(name: string, dir: string, branch?: string) {
    const w = world()
    const conv = await w.conv(name)
    return {
      exists: existsSync(dir),
      files: filesOf(dir),
      status: git(dir, 'status', '--porcelain', '--untracked-files=all'),
      head: git(dir, 'rev-parse', 'HEAD'),
      branch: branch ? git(w.checkout, 'rev-parse', `refs/heads/${branch}`) : undefined,
      worktrees: git(w.checkout, 'worktree', 'list', '--porcelain'),
      archived: conv.archived,
      listed: (await w.lane(conv.id)).archived,
      parked: parkedFiles(name),
      refs: svcRefs(),
    }
  }

  /** A builder that commits, pushes and reports done, runs `after`, then exits. */
  async function doneBuilder(key: string, after = ''): Promise<string> {
    const w = world()
    const id = await w.start(['--key', key, '--role', 'builder', '--prompt', buildAndReport(`built ${key}`) + after])
    const report = await w.waited(`${w.run}-${key}-builder-i1`)
    if (report.status !== 'done')
      throw new Error(`${w.run}-${key}-builder-i1 reported ${report.status}, not done: ${report.body}`)
    await stopped(`${w.run}-${key}-builder-i1`)
    return id
  }

  /** The files a patch gives back, applied to a fresh checkout of `commit` (every byte, mode and name). */
  function applied(patch: string, commit: string, label: string): Record<string, string> {
    const w = world()
    const scratch = join(w.h.home, `scratch-${label}`)
    // A clone, not a worktree of the checkout: the kernel prunes the checkout's worktrees after a reap, and a prune
    // racing a worktree add removes the new entry before git has locked it.
    git(w.h.home, 'clone', '--quiet', '--shared', '--no-checkout', w.checkout, scratch)
    git(scratch, 'checkout', '--quiet', '--detach', git(w.checkout, 'rev-parse', '--verify', `${commit}^{commit}`))
    git(scratch, 'apply', '--binary', '--whitespace=nowarn', patch)
    return filesOf(scratch, false)
  }

  return { reap, stopped, parkedFiles, svcRefs, capture, doneBuilder, applied }
}

export const reapedLine = (run: string, key: string, role: string, id: string, dir?: string, branch?: string) =>
  `reaped ${run}/${key} ${role} i1 (conv ${id})${dir ? `: removed ${dir}` : ''}` +
  `${branch ? `; branch ${branch} kept` : ''}\n`
