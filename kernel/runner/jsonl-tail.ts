import { closeSync, existsSync, openSync, readSync, statSync } from 'node:fs'

/** Read the records appended to a kernel-written JSONL file since the last read, each once, in order. A line counts
 * only once it is complete (ends with a newline); a line that is not JSON is reported, not fatal. */
export function jsonlTail(
  path: string,
  onRecord: (record: unknown) => void,
  onBad: (line: string) => void = () => {},
): () => void {
  let offset = 0
  return () => {
    if (!existsSync(path)) return
    const size = statSync(path).size
    if (size <= offset) return
    const buf = Buffer.alloc(size - offset)
    const fd = openSync(path, 'r')
    try {
      readSync(fd, buf, 0, buf.length, offset)
    } finally {
      closeSync(fd)
    }
    const complete = buf.lastIndexOf(10) + 1
    offset += complete
    for (const line of buf.subarray(0, complete).toString('utf8').split('\n')) {
      if (!line) continue
      let record: unknown
      try {
        record = JSON.parse(line)
      } catch {
        onBad(line)
        continue
      }
      onRecord(record)
    }
  }
}
