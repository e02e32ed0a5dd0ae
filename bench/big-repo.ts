import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { gitIn } from '../cli/demo/sample-project.js'
import { run } from './lib.js'

/** A project of `files` small files in 20 top-level folders (so 5% is one folder): a bare origin holding one commit,
 * and a clone of it. The commit is written by `git fast-import` straight into a pack, so the clone holds no loose
 * object, as a clone made over the network does not. Committed with `git add` instead, its 20 000 loose objects made
 * the first fetch of a lane start run `git gc` (git's automatic maintenance), which packed them and deleted 20 000
 * files while the start, and the floor after it, were being timed. */
export function bigProject(dir: string, files: number): { checkout: string; origin: string; key: string } {
  const origin = join(dir, 'big-origin.git')
  const checkout = join(dir, 'big')
  mkdirSync(dir, { recursive: true })
  gitIn(dir, 'init', '--quiet', '--bare', '--initial-branch=main', origin)
  const stream: string[] = []
  for (let i = 0; i < files; i++) {
    const content = `file ${i}\n`
    stream.push(`blob\nmark :${i + 1}\ndata ${Buffer.byteLength(content)}\n${content}\n`)
  }
  const message = 'big\n'
  stream.push(`commit refs/heads/main\ncommitter Bench <bench@example.com> 0 +0000\ndata ${message.length}\n${message}`)
  for (let i = 0; i < files; i++)
    stream.push(`M 100644 :${i + 1} d${String(i % 20).padStart(2, '0')}/s${Math.floor(i / 20) % 50}/f${i}.txt\n`)
  stream.push('\n')
  run('git', ['fast-import', '--quiet'], { cwd: origin, input: stream.join('') })
  gitIn(dir, 'clone', '--quiet', origin, checkout)
  return { checkout, origin, key: 'big' }
}
