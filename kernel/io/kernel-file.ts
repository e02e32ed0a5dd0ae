import { readFileSync, renameSync } from 'node:fs'
import { writeFileAtomicSync } from './atomic-file.js'
import type { ManifestRead } from '../domain/self-check.js'
import { processStartTime } from './procs.js'

/** kernel.json: the manifest of a running kernel, created exclusively (it is the lock), mode 0600. */
export interface KernelFile {
  pid: number
  start: string
  port: number
  token: string
  version: string
  startedAt: number
}

export function readKernelFile(path: string): KernelFile | undefined {
  try {
    const k = JSON.parse(readFileSync(path, 'utf8')) as KernelFile
    return typeof k.pid === 'number' && typeof k.port === 'number' && typeof k.token === 'string' ? k : undefined
  } catch {
    return undefined
  }
}

/** The token kernel.json names, or why it could not be read (the error's code; text that is no manifest). */
export function readManifestToken(path: string): ManifestRead {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (e) {
    return { error: (e as NodeJS.ErrnoException).code ?? 'unreadable' }
  }
  try {
    const token = (JSON.parse(text) as Partial<KernelFile>).token
    return typeof token === 'string' ? { token } : { error: 'not a manifest' }
  } catch {
    return { error: 'not a manifest' }
  }
}

/** Why a kernel.json cannot be used, or undefined when it names a live kernel of this version. */
export function staleReason(k: KernelFile | undefined, version: string): string | undefined {
  if (!k) return 'kernel.json is missing or unreadable'
  if (processStartTime(k.pid) !== k.start) return `kernel pid ${k.pid} is gone`
  if (k.version !== version) return `kernel pid ${k.pid} runs version ${k.version}, this is ${version}`
  return undefined
}

/** Move a stale manifest aside (atomic), keeping it for inspection. */
export function setAsideKernelFile(path: string, k: KernelFile | undefined): boolean {
  try {
    renameSync(path, `${path}.stale-${k?.pid ?? 'unknown'}`)
    return true
  } catch {
    return false
  }
}

/** The port the kernel of this home listened on last (kernel-port), or 0 (any) when none is recorded or the file
 * holds no port. */
export function readLastPort(path: string): number {
  try {
    const n = Number(readFileSync(path, 'utf8').trim())
    return Number.isInteger(n) && n >= 1024 && n <= 65535 ? n : 0
  } catch {
    return 0
  }
}

export const writeLastPort = (path: string, port: number) => writeFileAtomicSync(path, `${port}\n`)
