import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { gitIn } from '../fixtures/sample-project.js'

/** A project of `files` small files in 20 top-level folders (so 5% is one folder), with a local bare origin. */
export function bigProject(dir: string, files: number): { checkout: string; origin: string; key: string } {
  const origin = join(dir, 'big-origin.git')
  const checkout = join(dir, 'big')
  mkdirSync(checkout, { recursive: true })
  gitIn(dir, 'init', '--quiet', '--bare', '--initial-branch=main', origin)
  gitIn(checkout, 'init', '--quiet', '--initial-branch=main')
  for (let i = 0; i < files; i++) {
    const folder = join(checkout, `d${String(i % 20).padStart(2, '0')}`, `s${Math.floor(i / 20) % 50}`)
    if (i < 1000) mkdirSync(folder, { recursive: true })
    writeFileSync(join(folder, `f${i}.txt`), `file ${i}\n`)
  }
  gitIn(checkout, 'add', '-A')
  gitIn(checkout, '-c', 'user.name=b', '-c', 'user.email=b@x', 'commit', '--quiet', '-m', 'big')
  gitIn(checkout, 'remote', 'add', 'origin', origin)
  gitIn(checkout, 'push', '--quiet', '-u', 'origin', 'main')
  gitIn(checkout, 'remote', 'set-head', 'origin', 'main')
  return { checkout, origin, key: 'big' }
}
