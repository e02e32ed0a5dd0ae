import { createHash } from 'node:crypto'
import { readdirSync, readFileSync } from 'node:fs'
import { open, unlink } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { SvcError } from '../domain/errors.js'
import type { LaunchIntent } from '../domain/lane-claim.js'
import { homePaths } from './home.js'
import { createFileOnce, isTempName } from './atomic-file.js'

/** Launch intents in the service home: one file per lane directory, created exclusively, so two launches can never
 * both be making one directory, and a launch cut short is found at the next start. */

/** The intent file of a lane directory: named after the directory's path. */
export const intentPath = (home: string, dir: string) =>
  join(homePaths(home).launches, `${createHash('sha256').update(dir).digest('hex').slice(0, 40)}.json`)

/** Write the intent durably, only if no intent holds its directory; false when one does. */
export const recordIntent = (home: string, intent: LaunchIntent): Promise<boolean> =>
  createFileOnce(intentPath(home, intent.dir), JSON.stringify(intent) + '\n')

/** The intent at `path`; undefined when it is gone. */
export function readIntent(path: string): LaunchIntent | undefined {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw e
  }
  try {
    const intent = JSON.parse(text) as LaunchIntent
    if (typeof intent.id === 'string' && typeof intent.dir === 'string') return intent
  } catch {
    // reported below
  }
  throw new SvcError('internal', `launch intent ${path} does not parse`)
}

/** Every intent file, and the temp files of intents whose writing was cut short. */
export function intentFiles(home: string): { intents: string[]; temps: string[] } {
  const dir = homePaths(home).launches
  let names: string[]
  try {
    names = readdirSync(dir)
  } catch {
    names = []
  }
  return {
    intents: names.filter((n) => n.endsWith('.json')).map((n) => join(dir, n)),
    temps: names.filter(isTempName).map((n) => join(dir, n)),
  }
}

/** Remove an intent, durably: its directory entry is synced. */
export async function dropIntent(path: string): Promise<void> {
  await unlink(path).catch((e) => {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e
  })
  const h = await open(dirname(path), 'r')
  try {
    await h.sync()
  } finally {
    await h.close()
  }
}
