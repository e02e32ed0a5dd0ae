import { copyFileSync, existsSync, lstatSync, statSync, utimesSync } from 'node:fs'
import { join } from 'node:path'
import { git } from './git.js'
import { isFile, mayConvert, nul, rawIds, regularFiles, withTempIndex } from './git-raw.js'
import { unseenWork } from './git-unseen.js'

/** The snapshot of a worktree for a park: every byte of its work in a tree, through a temporary index. */

/** No line-ending conversion, and no refusal over one, while the snapshot's index is filled. */
const RAW = {
  GIT_CONFIG_COUNT: '2',
  GIT_CONFIG_KEY_0: 'core.autocrlf',
  GIT_CONFIG_VALUE_0: 'false',
  GIT_CONFIG_KEY_1: 'core.safecrlf',
  GIT_CONFIG_VALUE_1: 'false',
}

/** Regular files added or changed in the index against HEAD, with their mode. */
async function changedFiles(dir: string, env: Record<string, string>): Promise<Map<string, string>> {
  const fields = (
    await git(dir, ['diff-index', '--cached', '-z', '--no-renames', '--diff-filter=AMT', 'HEAD'], env)
  ).split('\0')
  const files = new Map<string, string>()
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const mode = fields[i].replace(/^:/, '').split(' ')[1]
    if (mode === '100644' || mode === '100755') files.set(fields[i + 1], mode)
  }
  return files
}

/** Put the raw bytes of these files in the index, whatever attributes or filters would have made of them: the
 * patch must give back the bytes of the worktree, not a normalised copy. */
async function storeRaw(dir: string, files: Map<string, string>, env: Record<string, string>): Promise<void> {
  if (!files.size) return
  const paths = [...files.keys()]
  const ids = await rawIds(dir, paths, true)
  await git(
    dir,
    ['update-index', '-z', '--index-info'],
    env,
    paths.map((p, i) => `${files.get(p)} ${ids[i]}\t${p}\0`).join(''),
  )
}

/** The tree of everything in the worktree: tracked changes, untracked files, edits behind the assume-unchanged and
 * skip-worktree flags, files hidden by ignore rules the lane wrote itself (launched at `launchedAt`), each as its
 * raw bytes. Files the branch's own ignore rules hide stay out. */
export async function snapshotTree(dir: string, launchedAt: number): Promise<string> {
  const unseen = await unseenWork(dir, launchedAt)
  return withTempIndex(dir, 'snapshot', async (index, e, gitDir) => {
    const env = { ...e, ...RAW }
    // Start from a copy of the worktree's own index: its stat data spares hashing every unchanged file. `add -A`
    // then makes the copy match the working tree whatever it held, so the tree is the same as from HEAD's.
    // The copy gets an mtime a second older than the index: git rehashes an entry whose file is not older than
    // the index ("racily clean"), and a copy made now would hide an edit of the same size in the same second.
    const own = join(gitDir, 'index')
    if (existsSync(own)) {
      const st = statSync(own)
      copyFileSync(own, index)
      utimesSync(index, st.atime, new Date(st.mtimeMs - 1000))
    } else await git(dir, ['read-tree', 'HEAD'], env)
    // The copy must not inherit the flags that hide edits from `add`.
    if (unseen.flagged.length)
      for (const flag of ['--no-assume-unchanged', '--no-skip-worktree'])
        await git(dir, ['update-index', '-z', flag, '--stdin'], env, nul(unseen.flagged))
    // --sparse: a new file outside the sparse patterns is work like any other.
    await git(dir, ['add', '--sparse', '-A'], env)
    if (unseen.hidden.length)
      await git(
        dir,
        ['add', '--sparse', '-f', '--pathspec-from-file=-', '--pathspec-file-nul'],
        { ...env, GIT_LITERAL_PATHSPECS: '1' },
        nul(unseen.hidden),
      )
    const files = await changedFiles(dir, env)
    for (const p of unseen.flagged) {
      const st = lstatSync(join(dir, p), { throwIfNoEntry: false })
      if (st?.isFile() && !files.has(p)) files.set(p, st.mode & 0o100 ? '100755' : '100644')
    }
    // A file git may convert is stored as its raw bytes even where its filtered bytes are HEAD's: a clean filter
    // that drops lines, or a line-ending conversion, would otherwise hide the change.
    const all = await regularFiles(dir, { env })
    for (const p of await mayConvert(dir, [...all.keys()]))
      if (!files.has(p) && isFile(join(dir, p))) files.set(p, all.get(p)!.mode)
    await storeRaw(dir, files, env)
    return (await git(dir, ['write-tree'], env)).trim()
  })
}

/** Paths that are a git repository of their own in `tree` but not in HEAD: a patch records only their commit id,
 * never their files, so such work cannot be parked. */
export async function addedGitlinks(dir: string, tree: string): Promise<string[]> {
  const out = await git(dir, ['diff-tree', '-r', '-z', '--no-renames', 'HEAD', tree])
  const fields = out.split('\0')
  const found: string[] = []
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const [oldMode, newMode] = fields[i].replace(/^:/, '').split(' ')
    if (newMode === '160000' && oldMode !== '160000') found.push(fields[i + 1])
  }
  return found
}
