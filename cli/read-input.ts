import { closeSync, fstatSync, openSync, readSync } from 'node:fs'
import { resolve } from 'node:path'
import { SvcError } from '../kernel/domain/errors.js'
import { MAX_TEXT } from '../kernel/port/limits.js'

const tooLarge = (what: string, limit: number) =>
  new SvcError('too_large', `the ${what} is over the limit of ${limit} bytes`, `shorten it to at most ${limit} bytes`)

/** A file the user named (--brief, --file, --verdict-file), read with a bound: a regular file over the limit is
 * refused from its size, and anything else (a device such as /dev/zero, a pipe) is read for at most limit + 1
 * bytes, so nothing that never ends is read for ever. */
export function readBounded(cwd: string, path: string, what: string, limit = MAX_TEXT): string {
  const full = resolve(cwd, path)
  const cannot = (why: string) => new SvcError('usage', `cannot read the ${what} ${full}: ${why}`)
  let fd: number
  try {
    fd = openSync(full, 'r')
  } catch (e) {
    throw cannot((e as NodeJS.ErrnoException).code ?? (e as Error).message)
  }
  try {
    const st = fstatSync(fd)
    if (st.isDirectory()) throw cannot('it is a directory')
    if (st.isFile() && st.size > limit) throw tooLarge(`${what} ${full} (${st.size} bytes)`, limit)
    const buf = Buffer.alloc(limit + 1)
    let n = 0
    while (n < buf.length) {
      let r: number
      try {
        r = readSync(fd, buf, n, buf.length - n, null)
      } catch (e) {
        throw cannot((e as NodeJS.ErrnoException).code ?? (e as Error).message)
      }
      if (r === 0) break
      n += r
    }
    if (n > limit) throw tooLarge(`${what} ${full}`, limit)
    return buf.subarray(0, n).toString('utf8')
  } finally {
    closeSync(fd)
  }
}

/** Standard input, read with the same bound: reading stops once it is over the limit. */
export async function readStdinBounded(chunks: AsyncIterable<Buffer>, limit = MAX_TEXT): Promise<string> {
  const parts: Buffer[] = []
  let size = 0
  for await (const c of chunks) {
    size += c.length
    if (size > limit) throw tooLarge('standard input', limit)
    parts.push(c)
  }
  return Buffer.concat(parts).toString('utf8')
}
