import { open, type FileHandle } from 'node:fs/promises'
import { checkShape } from '../domain/shape.js'
import {
  TRANSCRIPT_PAGE_BYTES,
  TranscriptEntrySchema,
  type TranscriptEntry,
  type TranscriptPage,
} from '../domain/transcript.js'

const NL = 10

/** The entries of whole lines in `chunk`; a line that is not an entry (cut, garbled) is left out. */
function entriesOf(chunk: Buffer): TranscriptEntry[] {
  const out: TranscriptEntry[] = []
  for (const line of chunk.toString('utf8').split('\n')) {
    if (!line) continue
    let json: unknown
    try {
      json = JSON.parse(line)
    } catch {
      continue
    }
    const c = checkShape(TranscriptEntrySchema, json)
    if (c.ok) out.push(c.value)
  }
  return out
}

/** Up to `length` bytes of an open file from `from`. */
export async function readAt(fh: FileHandle, from: number, length: number): Promise<Buffer> {
  const buf = Buffer.alloc(length)
  let n = 0
  while (n < length) {
    const { bytesRead } = await fh.read(buf, n, length - n, from + n)
    if (bytesRead === 0) break
    n += bytesRead
  }
  return buf.subarray(0, n)
}

/** One page of a JSONL transcript, read from the file without loading it whole. Without a cursor: the last page
 * (the whole lines in its last `pageBytes`). With one: the whole lines from there, at most `pageBytes`. A line still
 * being written is left for a later page; a line longer than a page is skipped. */
export async function readTranscriptPage(
  path: string,
  cursor?: number,
  pageBytes = TRANSCRIPT_PAGE_BYTES,
): Promise<TranscriptPage> {
  let fh: FileHandle
  try {
    fh = await open(path, 'r')
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { entries: [], cursor: cursor ?? 0, more: false }
    throw e
  }
  try {
    const size = (await fh.stat()).size
    if (cursor === undefined) {
      // One byte before the page too: it tells whether the page begins at a line's start.
      const from = Math.max(0, size - pageBytes - 1)
      const chunk = await readAt(fh, from, size - from)
      const begin = from === 0 ? 0 : chunk.indexOf(NL) + 1
      const end = chunk.lastIndexOf(NL) + 1
      // No line ends in the page: one line longer than a page is skipped (or, from the start, still being written).
      if (end === 0) return { entries: [], cursor: from === 0 ? 0 : size, more: false }
      return { entries: entriesOf(chunk.subarray(begin, end)), cursor: from + end, more: false }
    }
    const from = Math.min(cursor, size)
    const chunk = await readAt(fh, from, Math.min(pageBytes, size - from))
    const full = chunk.length === pageBytes
    const end = chunk.lastIndexOf(NL) + 1
    if (end === 0) return { entries: [], cursor: full ? from + chunk.length : from, more: full }
    return { entries: entriesOf(chunk.subarray(0, end)), cursor: from + end, more: full }
  } finally {
    await fh.close()
  }
}
