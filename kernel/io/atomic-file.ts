import { closeSync, fsyncSync, openSync, writeSync, renameSync, unlinkSync, readFileSync, mkdirSync } from 'node:fs'
import { open, rename, unlink, mkdir, link, writeFile } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import { faultPoint } from './fault.js'

let counter = 0
const tempName = (path: string) => join(dirname(path), `.${basename(path)}.${process.pid}.${++counter}.tmp`)

/** Temp files of an interrupted write look like this; they are never read as data. */
export const isTempName = (name: string) => /^\..+\.\d+\.\d+\.tmp$/.test(name)

/** The pid of the process that made a temp file, from its name. */
export const tempOwner = (name: string): number | undefined => Number(/\.(\d+)\.\d+\.tmp$/.exec(name)?.[1]) || undefined

async function fsyncDir(dir: string) {
  const h = await open(dir, 'r')
  try {
    await h.sync()
  } finally {
    await h.close()
  }
}

/** Write a whole file so that a reader (or a crash) sees either the old content or the new one: unique temp
 * name, fsync, rename, fsync of the directory. */
export async function writeFileAtomic(path: string, content: string | Uint8Array, mode = 0o600): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 })
  const tmp = tempName(path)
  const h = await open(tmp, 'wx', mode)
  try {
    faultPoint('write-temp')
    await h.writeFile(content)
    faultPoint('fsync-temp')
    await h.sync()
  } catch (e) {
    await h.close()
    await unlink(tmp).catch(() => {})
    throw e
  }
  await h.close()
  faultPoint('rename')
  await rename(tmp, path)
  faultPoint('fsync-dir')
  await fsyncDir(dirname(path))
}

/** The same, for the few places that must not yield (the runner's exit path). */
export function writeFileAtomicSync(path: string, content: string, mode = 0o600): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 })
  const tmp = tempName(path)
  const fd = openSync(tmp, 'wx', mode)
  try {
    writeSync(fd, content)
    fsyncSync(fd)
  } catch (e) {
    closeSync(fd)
    try {
      unlinkSync(tmp)
    } catch {}
    throw e
  }
  closeSync(fd)
  renameSync(tmp, path)
}

/** Create a file only if it does not exist yet, content complete or not at all. Returns false if it existed. */
export function createFileOnce(path: string, content: string, mode = 0o600): Promise<boolean> {
  return publishFileOnce(path, (tmp) => writeFile(tmp, content, { mode, flag: 'wx' }))
}

/** Make a file whole under a temp name (`fill` writes it: this process, or a program such as git), then give it
 * its name only if that name is free: fsync, an exclusive link, fsync of the directory. Returns false if the name
 * was taken (nothing replaced). A temp a crash leaves behind has a temp name, so the store's sweep removes it. */
export async function publishFileOnce(path: string, fill: (tmp: string) => Promise<void>): Promise<boolean> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 })
  const tmp = tempName(path)
  try {
    await fill(tmp)
    const h = await open(tmp, 'r')
    try {
      await h.sync()
    } finally {
      await h.close()
    }
    try {
      await link(tmp, path)
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false
      throw e
    }
    await fsyncDir(dirname(path))
    return true
  } finally {
    await unlink(tmp).catch(() => {})
  }
}

/** Append one line durably. */
export async function appendLine(path: string, line: string): Promise<void> {
  const h = await open(path, 'a', 0o600)
  try {
    await h.write(line.endsWith('\n') ? line : line + '\n')
    await h.sync()
  } finally {
    await h.close()
  }
}

export function readTextOrUndefined(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8')
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw e
  }
}
