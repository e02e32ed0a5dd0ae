import { open } from 'node:fs/promises'
import { readAt } from './transcript-page.js'

/** The first `maxBytes` of a file as text (a multi-byte character cut at the end is dropped), and its whole size:
 * a large file is never read whole. Undefined when there is no such file. */
export async function readHead(path: string, maxBytes: number): Promise<{ text: string; bytes: number } | undefined> {
  let fh
  try {
    fh = await open(path, 'r')
  } catch {
    return undefined
  }
  try {
    const { size } = await fh.stat()
    const head = await readAt(fh, 0, Math.min(size, maxBytes))
    return { text: new TextDecoder('utf-8', { fatal: false }).decode(head).replace(/\uFFFD$/, ''), bytes: size }
  } finally {
    await fh.close()
  }
}
