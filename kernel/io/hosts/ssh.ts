import { mkdirSync, readFileSync } from 'node:fs'
import { createHash } from 'node:crypto'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { ProbeAnswer } from '../../domain/hosts.js'
import { writeFileAtomic } from '../atomic-file.js'
import { runCaptured } from '../run-captured.js'

const KEEP = 64 * 1024

/** Run the system ssh with these arguments (options, `--`, address, then the remote command); its outcome, never a
 * throw. Killed past `timeoutMs`. */
export async function runSsh(args: string[], opts: { timeoutMs: number; input?: string }): Promise<ProbeAnswer> {
  const r = await runCaptured('ssh', args, { env: { ...process.env, LC_ALL: 'C' }, keep: KEEP, ...opts })
  if (r.spawnError) return { code: 255, stdout: '', stderr: `cannot run ssh: ${r.spawnError.message}` }
  return { code: r.code, stdout: r.stdout, stderr: r.stderr, ...(r.timedOut ? { timedOut: true } : {}) }
}

/** The directory of this service home's connection masters: short (a socket path has about 100 bytes), private,
 * one per home. */
export function controlDir(home: string): string {
  const dir = join(
    tmpdir(),
    `svc-ssh-${process.getuid?.() ?? 0}-${createHash('sha256').update(home).digest('hex').slice(0, 10)}`,
  )
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  return dir
}

/** The service's known hosts: the lines of other hosts, without those recorded under `alias`. The file is made
 * when missing, so that ssh can record a first key in it. */
export async function forgetHostKey(knownHosts: string, alias: string): Promise<void> {
  let text = ''
  try {
    text = readFileSync(knownHosts, 'utf8')
  } catch {}
  const kept = text.split('\n').filter((l) => l && !l.split(' ')[0].split(',').includes(alias))
  await writeFileAtomic(knownHosts, kept.map((l) => l + '\n').join(''))
}

/** Record a host key given by the person (`type base64`) under `alias`, replacing any line of that alias. */
export async function recordHostKey(knownHosts: string, alias: string, key: string): Promise<void> {
  await forgetHostKey(knownHosts, alias)
  let text = ''
  try {
    text = readFileSync(knownHosts, 'utf8')
  } catch {}
  await writeFileAtomic(knownHosts, `${text}${alias} ${key}\n`)
}

/** The key recorded for `alias`, if any (`type base64`). */
export function recordedHostKey(knownHosts: string, alias: string): string | undefined {
  try {
    const line = readFileSync(knownHosts, 'utf8')
      .split('\n')
      .find((l) => l.split(' ')[0].split(',').includes(alias))
    return line?.split(' ').slice(1, 3).join(' ')
  } catch {
    return undefined
  }
}

/** A host key's fingerprint as ssh prints it: `SHA256:` and the unpadded base64 of the key blob's digest. */
export const keyFingerprint = (key: string) =>
  'SHA256:' +
  createHash('sha256')
    .update(Buffer.from(key.split(' ')[1] ?? '', 'base64'))
    .digest('base64')
    .replace(/=+$/, '')
