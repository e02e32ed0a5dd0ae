import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { appendFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { HostEvent } from '../../kernel/domain/host-stream.js'
import { runnerPaths, runnerRunning } from '../../kernel/runner/host/files.js'
import { processStartTime } from '../../kernel/io/procs.js'
import { spawn, type ChildProcess } from 'node:child_process'
import { openJournal } from '../../kernel/runner/host/journal.js'
import { readReportFile } from '../../kernel/runner/host/report-file.js'
import { scratchDir } from '../helpers/home.js'

// The host runner's journal and report files, on real files: what is on disk before an event leaves, what a
// restarted runner sends again, what a report file may say, and which process its pid file names.

const BASE = scratchDir('io-host-journal')
let n = 0
const runnerDir = () => {
  const d = join(BASE, `r${++n}`)
  mkdirSync(d, { recursive: true })
  return runnerPaths(d)
}
const onDisk = (file: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as HostEvent)
const until = async (what: string, ok: () => boolean) => {
  for (let i = 0; i < 1000 && !ok(); i++) await new Promise((r) => setTimeout(r, 10))
  assert.ok(ok(), what)
}

const started: ChildProcess[] = []
/** A process that runs until the suite ends, started with these arguments in `cwd`; resolves once it runs. */
const running = (args: string[], cwd = BASE) =>
  new Promise<number>((resolve, reject) => {
    const c = spawn(process.execPath, ['-e', 'setInterval(() => {}, 60_000)', ...args], { cwd, stdio: 'ignore' })
    started.push(c)
    c.once('spawn', () => resolve(c.pid!))
    c.once('error', reject)
  })

test.after(() => {
  for (const c of started) c.kill('SIGKILL')
  rmSync(BASE, { recursive: true, force: true })
})

test('the runner a pid file names: its start time kept beside it, or else a command naming this directory', async () => {
  const p = runnerDir()
  const other = runnerDir()
  assert.is(runnerRunning(p), undefined, 'no pid file')
  const stranger = await running(['sleep'])
  const daemon = await running(['daemon', p.dir])
  const otherDaemon = await running(['daemon', other.dir])
  // Named by a relative path, read from the directory it was started in.
  const relative = await running(['daemon', p.dir.slice(BASE.length + 1)])
  const named = (pid: number, start?: string) => {
    writeFileSync(p.pid, `${pid}\n`)
    if (start === undefined) rmSync(p.pidStart, { force: true })
    else writeFileSync(p.pidStart, `${start}\n`)
    return runnerRunning(p)
  }
  // A runner of an earlier build kept no start time.
  assert.is(named(stranger), undefined, "a process that took a dead runner's pid is not a runner")
  assert.is(named(otherDaemon), undefined, 'the runner of another directory is not this one')
  assert.is(named(daemon), daemon)
  assert.is(named(relative), relative)
  assert.is(named(daemon, ''), daemon, 'an empty start time is none')
  // With its start time, that decides: whatever the command, a process started at another time is not it.
  assert.is(named(stranger, processStartTime(stranger)), stranger)
  // Clock ticks since boot: the two above may share one; none of this suite's was started in the first.
  assert.is(named(daemon, '1'), undefined)
  assert.is(named(999_999_999), undefined, 'a pid no process has')
})

test('events of one turn are numbered, on disk before any is sent, and what made each is let go before it is sent', async () => {
  const p = runnerDir()
  const seen: string[] = []
  // Each send notes how many events the journal file held by then.
  const j = openJournal(p, (e) => seen.push(`send ${e.seq} (${onDisk(p.journal).length} on disk)`))
  j.emit('a', { kind: 'started', pid: 10 }, () => seen.push('done 1'))
  j.emit('a', { kind: 'exited', code: 0, seen: 'waited' }, () => seen.push('done 2'))
  assert.equal(seen, [], 'nothing leaves in the turn that made it')
  await until('both sent', () => seen.length === 4)
  assert.equal(seen, ['done 1', 'send 1 (2 on disk)', 'done 2', 'send 2 (2 on disk)'])
  assert.equal(
    onDisk(p.journal).map((e) => [e.seq, e.lane, e.kind]),
    [
      [1, 'a', 'started'],
      [2, 'a', 'exited'],
    ],
  )
  assert.is(j.last(), 2)
})

test('a runner started again sends what the kernel did not acknowledge, skips a line cut by a crash, and numbers on', async () => {
  const p = runnerDir()
  const first = openJournal(p, () => {})
  for (const pid of [1, 2, 3]) first.emit('a', { kind: 'started', pid })
  await until('written', () => existsSync(p.journal) && onDisk(p.journal).length === 3)
  first.ack(1)
  await until('ack kept', () => existsSync(p.acked))
  appendFileSync(p.journal, '{"seq":4,"at":1,"la') // the runner died mid-write

  const again = openJournal(p, () => {})
  assert.is(again.acked(), 1)
  assert.is(again.unacknowledged(), 2)
  assert.equal(
    again.after(1).map((e) => e.seq),
    [2, 3],
  )
  assert.equal(
    again.after(2).map((e) => e.seq),
    [3],
  )
  assert.is(again.last(), 3, 'the cut line was never sent, so its number is given again')
})

test('once the kernel holds every event the journal starts again empty; an old ack changes nothing', async () => {
  const p = runnerDir()
  const j = openJournal(p, () => {})
  j.emit('a', { kind: 'started', pid: 1 })
  j.emit('a', { kind: 'started', pid: 2 })
  await until('written', () => existsSync(p.journal) && onDisk(p.journal).length === 2)
  j.ack(2)
  j.ack(1)
  assert.is(j.acked(), 2)
  await until('journal emptied', () => readFileSync(p.journal, 'utf8') === '')
  assert.is(readFileSync(p.acked, 'utf8'), '2')
  assert.equal(j.after(0), [])
  j.emit('a', { kind: 'started', pid: 3 })
  await until('next written', () => onDisk(p.journal).length === 1)
  assert.is(onDisk(p.journal)[0].seq, 3)
})

test('a report file: its status line, the facts after a tab, its body; a status it may not have is refused', () => {
  const dir = join(BASE, 'reports')
  mkdirSync(dir, { recursive: true })
  const file = (name: string, text: string) => {
    writeFileSync(join(dir, name), text)
    return join(dir, name)
  }
  assert.equal(readReportFile(file('1', 'done\nall good\nsecond line'), 'r1'), {
    kind: 'report',
    id: 'r1',
    status: 'done',
    body: 'all good\nsecond line',
  })
  assert.equal(readReportFile(file('2', 'blocked'), 'r2'), { kind: 'report', id: 'r2', status: 'blocked', body: '' })
  assert.equal(readReportFile(file('3', 'failed\t{"verdict":"IMPRESSED","defects":0}\nno'), 'r3'), {
    kind: 'report',
    id: 'r3',
    status: 'failed',
    body: 'no',
    facts: { verdict: 'IMPRESSED', defects: 0 },
  })
  assert.throws(() => readReportFile(file('4', 'finished\nbody'), 'r4'), /status finished/)
  assert.throws(() => readReportFile(join(dir, 'missing'), 'r5'), /ENOENT/)
})

test.run()
