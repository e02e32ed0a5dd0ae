import { readFileSync } from 'node:fs'

/** Fault injection for the crash-safety suite: with SERVICE_FAULT_KILL_AT=<n> (honoured only when
 * SERVICE_TEST_BUILD=1), the process kills itself with SIGKILL at the n-th fault point (each store write step, and
 * the steps of a launch); with SERVICE_FAULT_KILL_AT=<name>, at the first fault point of that name. With
 * SERVICE_FAULT_ARM=<file>, a test arms the kill while the process runs: when the file holds `<tag> <n>`, the
 * process kills itself at the n-th fault point it passes since it first read that tag (no file: no kill); with
 * `<tag> <n> <name>,…`, points of those names are passed over and not counted. */
const testBuild = process.env.SERVICE_TEST_BUILD === '1'
const at = testBuild ? (process.env.SERVICE_FAULT_KILL_AT ?? '') : ''
const killAt = /^\d+$/.test(at) ? Number(at) : 0
const killAtName = /^[a-z-]+$/.test(at) ? at : undefined
const armFile = testBuild ? process.env.SERVICE_FAULT_ARM : undefined
let steps = 0
let armed = { tag: '', steps: 0 }

export function faultPoint(step: string): void {
  if (armFile) armedPoint(armFile, step)
  if (!killAt && !killAtName) return
  steps += 1
  if (steps === killAt || step === killAtName) process.kill(process.pid, 'SIGKILL')
}

function armedPoint(file: string, step: string): void {
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch {
    return
  }
  const [tag, n, passedOver = ''] = text.trim().split(' ')
  if (tag !== armed.tag) armed = { tag, steps: 0 }
  if (passedOver.split(',').includes(step)) return
  armed.steps += 1
  if (armed.steps === Number(n)) process.kill(process.pid, 'SIGKILL')
}

/** A named fault (SERVICE_FAULT_<NAME>=1, test builds only): the caller fails as if the operation had failed. */
export function faultFlag(name: string): boolean {
  return testBuild && process.env[`SERVICE_FAULT_${name}`] === '1'
}
