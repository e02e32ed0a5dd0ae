import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { scratchDir } from '../helpers/home.js'
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, realpathSync, rmSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'
import {
  groupAlive,
  isAlive,
  processStartTime,
  processesInside,
  procStat,
  signalGroup,
  signalProcess,
  startedWithin,
} from '../../kernel/io/procs.js'

const BASE = scratchDir('io-procs')
mkdirSync(BASE, { recursive: true, mode: 0o700 })
const ROOT = realpathSync(BASE)

/** Every child this suite started, so each can be ended by its own pid (or group) at the end. */
const children: { child: ChildProcess; group: boolean }[] = []

function start(cmd: string, args: string[], opts: { cwd?: string; detached?: boolean } = {}): ChildProcess {
  const child = spawn(cmd, args, { cwd: opts.cwd, detached: opts.detached ?? false, stdio: 'ignore' })
  children.push({ child, group: !!opts.detached })
  return child
}
const exited = (c: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (c.exitCode !== null || c.signalCode !== null) return resolve()
    c.once('exit', () => resolve())
  })
const spawned = (c: ChildProcess) =>
  new Promise<void>((resolve, reject) => {
    c.once('spawn', () => resolve())
    c.once('error', reject)
  })
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
/** Pids whose parent is `pid`, with their state letter (from /proc/<pid>/stat). */
function childrenOf(pid: number): { pid: number; state: string }[] {
  const out: { pid: number; state: string }[] = []
  for (const p of readdirSync('/proc')) {
    if (!/^\d+$/.test(p)) continue
    const st = procStat(p)
    if (st?.ppid === pid) out.push({ pid: Number(p), state: st.state })
  }
  return out
}
async function until(fn: () => boolean | Promise<boolean>, what: string, limitMs = 3000) {
  const deadline = Date.now() + limitMs
  while (Date.now() < deadline) {
    if (await fn()) return
    await sleep(10)
  }
  assert.unreachable(`timed out waiting for ${what}`)
}

test.after(async () => {
  for (const { child, group } of children) {
    if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) continue
    try {
      process.kill(group ? -child.pid : child.pid, 'SIGKILL')
    } catch {}
    await exited(child)
  }
  rmSync(BASE, { recursive: true, force: true })
})

test('processStartTime of this process is defined and stable', () => {
  const a = processStartTime(process.pid)
  assert.type(a, 'string')
  assert.ok(a!.length > 0)
  assert.is(processStartTime(process.pid), a)
  assert.is(processStartTime(process.pid), a)
})

test('processStartTime refuses impossible pids', () => {
  assert.is(processStartTime(0), undefined)
  assert.is(processStartTime(-1), undefined)
  assert.is(processStartTime(1.5), undefined)
  assert.is(processStartTime(Number.NaN), undefined)
})

test('isAlive: true for a live child, false with a wrong start time, false after it exits', async () => {
  const child = start('sleep', ['30'])
  await spawned(child)
  const pid = child.pid!
  const startTime = processStartTime(pid)
  assert.type(startTime, 'string')
  assert.ok(isAlive(pid, startTime))
  assert.not.ok(isAlive(pid, startTime + '0'), 'a wrong start time (pid reused) is not alive')
  assert.not.ok(isAlive(pid, '1'))
  assert.not.ok(isAlive(undefined, startTime))
  assert.not.ok(isAlive(pid, undefined))
  assert.ok(signalProcess(pid, 'SIGTERM'))
  await exited(child)
  assert.not.ok(isAlive(pid, startTime))
  assert.is(processStartTime(pid), undefined)
  assert.not.ok(signalProcess(pid, 'SIGTERM'), 'no such process any more')
})

test('processStartTime of a zombie is undefined (it has exited)', async () => {
  // `sleep 0` exits at once; its parent becomes `sleep 30` by exec and never reaps it
  const parent = start('sh', ['-c', 'sleep 0 & exec sleep 30'])
  await spawned(parent)
  let zombie: number | undefined
  await until(() => {
    zombie = childrenOf(parent.pid!).find((k) => k.state === 'Z')?.pid
    return zombie !== undefined
  }, 'a zombie child')
  assert.is(processStartTime(zombie!), undefined)
  assert.type(processStartTime(parent.pid!), 'string', 'its live parent still has a start time')
  process.kill(parent.pid!, 'SIGKILL')
  await exited(parent)
})

test('processesInside finds a child whose cwd is inside the directory, and not outside it', async () => {
  const dir = join(ROOT, 'lane')
  const sub = join(dir, 'src', 'deep')
  const sibling = join(ROOT, 'lane-other') // shares the string prefix "lane"
  const outside = join(ROOT, 'elsewhere')
  for (const d of [sub, sibling, outside]) mkdirSync(d, { recursive: true })
  const inTop = start('sleep', ['30'], { cwd: dir })
  const inSub = start('sleep', ['31'], { cwd: sub })
  const inSibling = start('sleep', ['32'], { cwd: sibling })
  const inOutside = start('sleep', ['33'], { cwd: outside })
  await Promise.all([inTop, inSub, inSibling, inOutside].map(spawned))

  const found = await processesInside(dir)
  const pids = found.map((p) => p.pid)
  assert.ok(pids.includes(inTop.pid!), 'cwd equal to the directory')
  assert.ok(pids.includes(inSub.pid!), 'cwd below the directory')
  assert.not.ok(pids.includes(inSibling.pid!), 'a sibling whose name extends the directory name is outside')
  assert.not.ok(pids.includes(inOutside.pid!), 'a different directory is outside')
  assert.not.ok(pids.includes(process.pid), 'this process runs elsewhere')
  const top = found.find((p) => p.pid === inTop.pid)!
  assert.is(top.cwd, dir)
  assert.is(top.command, 'sleep 30')
  const deep = found.find((p) => p.pid === inSub.pid)!
  assert.is(deep.cwd, sub)
  assert.is(deep.command, 'sleep 31')

  // a subdirectory finds only what is in it
  const onlySub = (await processesInside(join(dir, 'src'))).map((p) => p.pid)
  assert.ok(onlySub.includes(inSub.pid!))
  assert.not.ok(onlySub.includes(inTop.pid!))

  for (const c of [inTop, inSub, inSibling, inOutside]) c.kill('SIGKILL')
  await Promise.all([inTop, inSub, inSibling, inOutside].map(exited))
  assert.equal(
    (await processesInside(dir)).filter((p) => p.pid === inTop.pid || p.pid === inSub.pid),
    [],
  )
})

test('processesInside: a process whose cwd is elsewhere but which holds a file inside open is found, with that file', async () => {
  const dir = join(ROOT, 'lane-fd')
  const outside = join(ROOT, 'fd-elsewhere')
  for (const d of [join(dir, 'sub'), outside]) mkdirSync(d, { recursive: true })
  const log = join(dir, 'sub', 'log.txt')
  const gone = join(dir, 'gone.txt')
  // fd 3 holds the log, fd 4 a file deleted since: only the first is a file the reap could cut off.
  const holder = start('sh', ['-c', 'exec 3>>"$1" 4>"$2"; rm "$2"; exec sleep 30', 'sh', log, gone], { cwd: outside })
  await spawned(holder)
  // Until the shell has exec'd sleep, its command line is still the shell's.
  await until(
    async () =>
      !existsSync(gone) && (await processesInside(dir)).some((p) => p.pid === holder.pid && p.command === 'sleep 30'),
    'the holder found',
  )
  const found = (await processesInside(dir)).find((p) => p.pid === holder.pid)!
  assert.equal(
    { cwd: found.cwd, cwdInside: found.cwdInside, files: found.files, command: found.command },
    { cwd: outside, cwdInside: false, files: [log], command: 'sleep 30' },
  )
  const inCwd = (await processesInside(outside)).find((p) => p.pid === holder.pid)!
  assert.equal([inCwd.cwdInside, inCwd.files], [true, []], 'its working directory, where it holds nothing open')
  assert.not.ok(
    (await processesInside(join(ROOT, 'lane'))).some((p) => p.pid === holder.pid),
    'a directory sharing the prefix holds none of its files',
  )
  holder.kill('SIGKILL')
  await exited(holder)
  assert.not.ok((await processesInside(dir)).some((p) => p.pid === holder.pid))
})

test('processesInside: a trailing slash names the same directory', async () => {
  const dir = join(ROOT, 'slash')
  const sibling = join(ROOT, 'slash2')
  mkdirSync(join(dir, 'sub'), { recursive: true })
  mkdirSync(sibling, { recursive: true })
  const inTop = start('sleep', ['30'], { cwd: dir })
  const inSub = start('sleep', ['30'], { cwd: join(dir, 'sub') })
  const inSibling = start('sleep', ['30'], { cwd: sibling })
  await Promise.all([inTop, inSub, inSibling].map(spawned))
  try {
    const pids = (await processesInside(dir + '/')).map((p) => p.pid)
    assert.ok(pids.includes(inSub.pid!), 'below the directory')
    assert.not.ok(pids.includes(inSibling.pid!), 'sibling')
    assert.ok(pids.includes(inTop.pid!), 'a process whose cwd is the directory itself must be found with "dir/" too')
  } finally {
    for (const c of [inTop, inSub, inSibling]) c.kill('SIGKILL')
    await Promise.all([inTop, inSub, inSibling].map(exited))
  }
})

test('processesInside: the directory named through a symlink finds the same processes', async () => {
  const real = join(ROOT, 'real-lane')
  const link = join(ROOT, 'link-lane')
  mkdirSync(real, { recursive: true })
  symlinkSync(real, link)
  const child = start('sleep', ['30'], { cwd: real })
  await spawned(child)
  try {
    assert.ok(
      (await processesInside(real)).some((p) => p.pid === child.pid),
      'by its real path',
    )
    assert.ok(
      (await processesInside(link)).some((p) => p.pid === child.pid),
      'by a path through a symlink',
    )
  } finally {
    child.kill('SIGKILL')
    await exited(child)
  }
})

test('startedWithin: what a process runs in its own group (a grandchild included) is its own; a detached group is not', async () => {
  const dir = join(ROOT, 'lane-own')
  mkdirSync(dir, { recursive: true })
  const own = start('sh', ['-c', 'sleep 34 & wait'], { cwd: dir })
  const detached = start('sh', ['-c', 'sleep 35 & wait'], { cwd: dir, detached: true })
  await Promise.all([own, detached].map(spawned))
  const sleeps = async () => (await processesInside(dir)).filter((p) => /^sleep 3[45]$/.test(p.command))
  await until(async () => (await sleeps()).length === 2, 'both grandchildren')
  const found = await sleeps()
  const by = (command: string) => found.find((p) => p.command === command)!
  assert.ok(startedWithin(by('sleep 34'), process.pid), 'a grandchild in our group')
  assert.not.ok(startedWithin(by('sleep 35'), process.pid), 'a grandchild in a group of its own')
  assert.not.ok(startedWithin(by('sleep 34'), detached.pid!), 'not a descendant of the other')
  const ownShell = (await processesInside(dir)).find((p) => p.pid === own.pid)!
  assert.ok(startedWithin(ownShell, process.pid), 'a child in our group')
  assert.not.ok(startedWithin({ ...ownShell, pgid: ownShell.pgid! + 1 }, process.pid), 'read in another group')
  process.kill(by('sleep 34').pid, 'SIGKILL')
  own.kill('SIGKILL')
  process.kill(-detached.pid!, 'SIGKILL')
  await Promise.all([own, detached].map(exited))
})

test('startedWithin: a process of our group read before its parent ended is ours once both have ended', async () => {
  const dir = join(ROOT, 'lane-ended')
  mkdirSync(dir, { recursive: true })
  const parent = start('sh', ['-c', 'sleep 36 & wait'], { cwd: dir })
  await spawned(parent)
  await until(async () => (await processesInside(dir)).some((p) => p.command === 'sleep 36'), 'the grandchild')
  const read = (await processesInside(dir)).find((p) => p.command === 'sleep 36')!
  process.kill(read.pid, 'SIGKILL')
  await exited(parent)
  // Both are gone: the chain breaks at the parent and the process read earlier holds nothing now.
  assert.ok(startedWithin(read, process.pid), 'an ended grandchild of our group')
  const stranger = start('sh', ['-c', 'sleep 37 & wait'], { cwd: dir, detached: true })
  await spawned(stranger)
  await until(async () => (await processesInside(dir)).some((p) => p.command === 'sleep 37'), 'the detached grandchild')
  const alive = (await processesInside(dir)).find((p) => p.command === 'sleep 37')!
  // Read as if it were of our group, under a parent that has ended: it is alive, so it is not ours.
  assert.not.ok(startedWithin({ ...alive, pgid: procStat(process.pid)!.pgid, ppid: parent.pid! }, process.pid))
  process.kill(-stranger.pid!, 'SIGKILL')
  await exited(stranger)
})

test('processesInside of an empty directory finds nothing', async () => {
  const empty = join(ROOT, 'empty')
  mkdirSync(empty, { recursive: true })
  assert.equal(await processesInside(empty), [])
})

test('signalGroup / groupAlive on a detached child group', async () => {
  // a group leader with a background member
  const leader = start('sh', ['-c', 'sleep 30 & sleep 30; wait'], { detached: true })
  await spawned(leader)
  const pgid = leader.pid!
  await until(() => childrenOf(pgid).filter((k) => k.state !== 'Z').length >= 2, 'both members of the group')
  assert.ok(groupAlive(pgid))
  assert.ok(signalGroup(pgid, 'SIGTERM'))
  await exited(leader)
  await until(() => !groupAlive(pgid), 'the whole group to exit')
  assert.not.ok(groupAlive(pgid))
})

test('signalGroup of a group that does not exist is false; groupAlive of it is false', async () => {
  const gone = start('true', [])
  await exited(gone)
  const pid = gone.pid!
  assert.not.ok(groupAlive(pid))
  assert.not.ok(signalGroup(pid, 'SIGTERM'))
})

test('groupAlive is false for a group whose leader was not detached (it shares ours)', async () => {
  const child = start('sleep', ['30'])
  await spawned(child)
  assert.not.ok(groupAlive(child.pid!), 'the child is in our process group, not one of its own')
  child.kill('SIGKILL')
  await exited(child)
})

test.run()
