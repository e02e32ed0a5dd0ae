/** What reading kernel.json gave the kernel that should hold it: the token it names, or the read's error code
 * (ENOENT: the file is gone; anything else, such as EMFILE, says nothing about who holds the manifest). */
export type ManifestRead = { token: string } | { error: string }

export type SelfCheck =
  { verdict: 'keep' } | { verdict: 'keep-but-log'; why: string } | { verdict: 'stop'; why: string }

/** Whether a kernel keeps running after reading its manifest: it stops only when the file is gone or names
 * another kernel; a read that failed for another reason (or text that is not a manifest) is logged and waited
 * out, because stopping on it would let a flood of connections that exhausts the file limit end the kernel. */
export function checkManifest(read: ManifestRead, ownToken: string, path: string): SelfCheck {
  if ('token' in read)
    return read.token === ownToken ? { verdict: 'keep' } : { verdict: 'stop', why: `${path} names another kernel` }
  if (read.error === 'ENOENT') return { verdict: 'stop', why: `${path} is gone` }
  return {
    verdict: 'keep-but-log',
    why: `cannot read ${path} (${read.error}); the kernel keeps running and checks again`,
  }
}
