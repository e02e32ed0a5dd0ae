/** Random changes for the reap suites: a seeded generator and file contents of every kind git tells apart. */

/** mulberry32: small, seeded, good enough to pick changes. */
export function prng(seed: number) {
  let a = seed >>> 0
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const int = (n: number) => Math.floor(next() * n)
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)]
  return { next, int, pick }
}
export type Rng = ReturnType<typeof prng>

/** Random file content: empty, binary with NUL bytes, bytes that are not UTF-8, CRLF lines, no final newline,
 * non-ASCII text, plain lines. */
export function content(rng: Rng): Buffer {
  switch (rng.int(7)) {
    case 0:
      return Buffer.alloc(0)
    case 1: // binary, with NUL bytes
      return Buffer.from(Array.from({ length: 1 + rng.int(300) }, () => (rng.next() < 0.2 ? 0 : rng.int(256))))
    case 2: // bytes that are not UTF-8 and no NUL: git calls this text
      return Buffer.from(Array.from({ length: 1 + rng.int(40) }, () => 1 + rng.int(255)))
    case 3:
      return Buffer.from(`crlf ${rng.int(1000)}\r\nline\r\n`)
    case 4:
      return Buffer.from(`no eol ${rng.int(1000)}`)
    case 5:
      return Buffer.from(`ünïcødé ✓ ${rng.int(1000)}\n`.repeat(1 + rng.int(5)))
    default:
      return Buffer.from(
        Array.from({ length: 1 + rng.int(30) }, (_, i) => `line ${i} ${rng.int(100)}`).join('\n') + '\n',
      )
  }
}
