import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { readFileSync, existsSync, readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { TestHome, alive, until } from '../helpers/home.js'

// The tests share one home and kernel (each makes conversations of its own), unless they kill, stop or arm the
// kernel or start it with an environment of their own: those call alone() first. svc calls are the person's and run
// the CLI's dispatch in this process (what the conversations run stays a real svc).
let shared: TestHome | undefined
let own: TestHome | undefined
let h: TestHome
test.before.each(() => {
  h = shared ??= new TestHome('conv')
  h.inProcess = true
})
test.after.each(async () => {
  await own?.stop()
  own = undefined
})
test.after(async () => {
  await shared?.stop()
})
/** A home and kernel of the test's own. */
function alone() {
  h = own = new TestHome('conv')
  h.inProcess = true
}

/** `svc conv show <id> --json` as the kernel answers it over its port: the polls below would cost a CLI process each
 * (the CLI's own output is checked once, on a settled conversation). */
const show = async (id: string): Promise<any> => (await h.port()).convShow({ conv: id })
const activity = async (id: string) => (await show(id)).activity as string

test('conv new prints only the id; a shell conversation works, marks itself, and ends stopped', async () => {
  const out = await h.ok([
    'conv',
    'new',
    '--harness',
    'shell',
    '--cwd',
    h.home,
    '--prompt',
    'svc conv mark idle; while [ ! -e go ]; do sleep 0.05; done; svc conv mark needs-you --reason question; while [ ' +
      '! -e go2 ]; do sleep 0.05; done',
  ])
  assert.match(out, /^\d+\n$/)
  const id = out.trim()
  const v = await until(async () => {
    const s = await show(id)
    return s.activity === 'idle' && s
  }, 'idle after the mark')
  assert.is(v.evidence.source, 'self-mark')
  assert.is(v.kind, 'root')
  assert.is(v.harness, 'shell')
  writeFileSync(join(h.home, 'go'), '')
  const needs = await until(async () => {
    const s = await show(id)
    return s.activity === 'needs-you' && s
  }, 'needs-you')
  assert.is(needs.reason, 'question')
  writeFileSync(join(h.home, 'go2'), '')
  const ended = await until(async () => {
    const s = await show(id)
    return s.activity === 'stopped' && s
  }, 'stopped')
  assert.is(ended.evidence.source, 'process exit')
  assert.is(ended.evidence.detail, 'exit code 0')
  assert.equal(JSON.parse(await h.ok(['conv', 'show', id, '--json'])), ended, 'the CLI prints what the kernel answers')
})

test('a shell conversation is working from its start, with the evidence', async () => {
  const id = (await h.ok(['conv', 'new', '--harness', 'shell', '--cwd', h.home, '--prompt', 'sleep 30'])).trim()
  const v = await until(async () => {
    const s = await show(id)
    return s.activity === 'working' && s
  }, 'working')
  assert.is(v.evidence.source, 'process start')
  const state = JSON.parse(readFileSync(join(h.service, 'agents', `conv-c${id}`, 'state.json'), 'utf8'))
  assert.ok(alive(state.harness.pid))
  assert.is(await h.ok(['conv', 'stop', id]), `conv ${id} (c${id}) stopped\n`)
  assert.not.ok(alive(state.harness.pid), 'the harness is gone')
  assert.not.ok(alive(state.runner.pid), 'the runner is gone')
  assert.is(await activity(id), 'stopped')
})

test('a spawn error gives failed-to-start with the error text', async () => {
  alone()
  const id = (
    await h.ok(['conv', 'new', '--harness', 'claude', '--cwd', h.home, '--prompt', 'hi'], {
      env: { PATH: '/usr/bin:/bin' },
    })
  ).trim()
  // The kernel was started with this PATH, so its runners find no claude.
  const v = await until(async () => {
    const s = await show(id)
    return s.activity === 'failed-to-start' && s
  }, 'failed-to-start')
  assert.match(v.evidence.detail, 'claude: command not found')
  assert.is(v.evidence.source, 'spawn')
})

test('tell reaches the shell inbox; a stopped conversation refuses messages', async () => {
  const id = (
    await h.ok([
      'conv',
      'new',
      '--harness',
      'shell',
      '--cwd',
      h.home,
      '--prompt',
      'while ! grep -q ping "$SERVICE_INBOX" 2>/dev/null; do sleep 0.05; done; echo "inbox: $(cat $SERVICE_INBOX)"',
    ])
  ).trim()
  assert.is(await h.ok(['tell', `conv-c${id}`, 'ping one']), `sent to conv ${id} (c${id})\n`)
  await until(async () => (await activity(id)) === 'stopped', 'script ended after the message')
  const transcript = await h.ok(['conv', 'transcript', id])
  assert.match(transcript, 'inbox: ping one')
  assert.match(transcript, /user\s+ping one/)
  const r = await h.svc(['tell', id, 'too late'])
  assert.is(r.code, 1)
  assert.is(r.stderr, `svc: conv ${id} (c${id}) is stopped; the message would not reach it\n`)
})

test('handoff and fork create successors linked to their source; the effective chain is kept', async () => {
  const root = (await h.ok(['conv', 'new', '--harness', 'none', '--cwd', h.home, '--name', 'boss'])).trim()
  const succ = (await h.ok(['handoff', '--harness', 'none'], { env: { SERVICE_CONVERSATION: root } })).trim()
  const fork = (await h.ok(['fork', '--harness', 'none'], { env: { SERVICE_CONVERSATION: succ } })).trim()
  const s = await show(succ)
  assert.is(s.parent, root)
  assert.is(s.kind, 'successor')
  assert.is(s.successor, 'handoff')
  const f = await show(fork)
  assert.is(f.parent, succ)
  assert.is(f.successor, 'fork')
  const r = await h.svc(['handoff'], { env: { SERVICE_CONVERSATION: undefined } })
  assert.is(r.code, 1)
  assert.is(r.stderr, 'svc: SERVICE_CONVERSATION is not set: svc handoff must run inside a conversation\n')
})

test('conv list, archive (refused while live), and list --all', async () => {
  const a = (await h.ok(['conv', 'new', '--harness', 'shell', '--cwd', h.home, '--prompt', 'sleep 30'])).trim()
  const r = await h.svc(['conv', 'archive', a])
  assert.is(r.code, 1)
  assert.match(
    r.stderr,
    new RegExp(`^svc: conv ${a} \\(c${a}\\) is (starting|working); stop it first\\nhint: svc conv stop ${a}\\n$`),
  )
  await h.ok(['conv', 'stop', a])
  assert.is(await h.ok(['conv', 'archive', a]), `conv ${a} (c${a}) archived\n`)
  assert.not.match(await h.ok(['conv', 'list']), `c${a}`)
  const all = await h.ok(['conv', 'list', '--all'])
  assert.match(all, new RegExp(`${a}\\s+c${a}\\s+root\\s+-\\s+shell\\s+archived`))
  assert.is((await show(a)).activity, 'stopped')
})

test('bad references: unknown conversation, malformed id, escapes; one line, exit 1, nothing changed', async () => {
  await h.ok(['kernel', 'start'])
  const before = readdirSync(join(h.service, 'agents')).sort()
  const cases: [string[], string][] = [
    [['conv', 'show', '42'], 'svc: no conversation 42\nhint: svc conv list shows the conversations\n'],
    [['conv', 'show', 'conv-../x'], "svc: 'conv-../x' is not a conversation id, name or conv-<name>\n"],
    [['conv', 'show', 'Bad Name'], "svc: 'Bad Name' is not a conversation id, name or conv-<name>\n"],
    [['tell', 'nobody', 'hi'], 'svc: no conversation nobody\nhint: svc conv list shows the conversations\n'],
    [['conv', 'stop', '../etc'], "svc: '../etc' is not a conversation id, name or conv-<name>\n"],
    [['conv', 'new', '--harness', 'bash'], "svc: --harness must be one of claude, codex, shell, none, not 'bash'\n"],
    [
      ['conv', 'new', '--harness', 'none', '--name', 'UP'],
      "svc: invalid name 'UP': use lower-case letters, digits, '.', '_' or '-', starting with a letter or digit\n",
    ],
    [
      ['conv', 'new', '--harness', 'none', '--cwd', '/nonexistent/dir'],
      'svc: working directory /nonexistent/dir does not exist\n',
    ],
    [
      ['conv', 'new', '--harness', 'shell', '--cwd', '/'],
      'svc: the shell harness runs a script: give it --prompt (or a brief)\n',
    ],
    [['conv', 'mark', 'sleeping'], "svc: the state must be one of working, idle, needs-you, not 'sleeping'\n"],
    [['conv', 'mark', 'idle'], 'svc: SERVICE_CONVERSATION is not set: svc conv mark must run inside a conversation\n'],
  ]
  for (const [args, stderr] of cases) {
    const r = await h.svc(args, { env: { SERVICE_CONVERSATION: undefined } })
    assert.is(r.code, 1, args.join(' '))
    assert.is(r.stderr, stderr, args.join(' '))
    assert.is(r.stdout, '', args.join(' '))
  }
  assert.equal(readdirSync(join(h.service, 'agents')).sort(), before, 'no conversation directory left behind')
})

test('a kernel killed with SIGKILL and restarted finds its running conversations alive and right', async () => {
  alone()
  const id = (
    await h.ok([
      'conv',
      'new',
      '--harness',
      'shell',
      '--cwd',
      h.home,
      '--prompt',
      'svc conv mark idle; touch marked; sleep 30',
    ])
  ).trim()
  const done = (await h.ok(['conv', 'new', '--harness', 'shell', '--cwd', h.home, '--prompt', 'true'])).trim()
  // The mark reads idle once it is on disk, before its call has its answer: the kill waits for the call's end (a mark
  // cut off by the kill is the test above).
  await until(
    async () =>
      existsSync(join(h.home, 'marked')) && (await activity(id)) === 'idle' && (await activity(done)) === 'stopped',
    'idle and stopped',
  )
  const k = h.kernelFile()!
  process.kill(k.pid, 'SIGKILL')
  await until(() => !alive(k.pid), 'kernel dead')
  const v = await show(id)
  assert.ok(h.kernelFile()!.pid !== k.pid, 'a new kernel')
  // Should it ever read otherwise, the evidence and the new kernel's log say why.
  assert.is(
    v.activity,
    'idle',
    `${JSON.stringify(v.evidence)}\n` +
      `${readFileSync(join(h.service, 'kernel.log'), 'utf8').split('\n').slice(-15).join('\n')}`,
  )
  assert.is((await show(done)).activity, 'stopped')
  assert.match(readFileSync(join(h.service, 'kernel.log'), 'utf8'), `re-adopted runners of conv-c${id}`)
  assert.match(readFileSync(join(h.service, 'kernel.log'), 'utf8'), `replacing stale`)
})

test('a mark the kernel is killed under is sent again to the next kernel: the conversation goes on', async () => {
  alone()
  // The kernel kills itself where the test arms it (a test build); the conversation's own calls start the next one
  // unarmed.
  const arm = join(h.home, 'fault-arm')
  await h.ok(['kernel', 'start'], { env: { SERVICE_TEST_BUILD: '1', SERVICE_FAULT_ARM: arm } })
  const k = h.kernelFile()!
  const script =
    'unset SERVICE_FAULT_ARM; while [ ! -e go ]; do sleep 0.05; done; svc conv mark idle; touch marked; sleep 30'
  const id = (await h.ok(['conv', 'new', '--harness', 'shell', '--cwd', h.home, '--prompt', script])).trim()
  await until(async () => (await activity(id)) === 'working', 'working')
  const runner = JSON.parse(readFileSync(join(h.service, 'agents', `conv-c${id}`, 'state.json'), 'utf8')).runner
  // The mark's write passes four points (temp written, synced, renamed, directory synced): at the fourth the mark is
  // on disk, so a show already reads it, and the kernel dies before it answers the call.
  writeFileSync(arm, 'mark 4')
  writeFileSync(join(h.home, 'go'), '')
  await until(() => !alive(k.pid), 'the kernel killed under the mark')
  const marked = join(h.home, 'marked')
  // A mark that failed ends the script (bash -e): the conversation stops, and its transcript says why.
  await until(async () => existsSync(marked) || (await activity(id)) === 'stopped', 'the mark answered')
  // What the script printed reaches the transcript through its runner, a moment after the script goes on.
  let said: string[] = []
  await until(async () => {
    const { entries } = await (await h.port()).convTranscript({ conv: id })
    said = entries.map((e: { kind: string; text: string }) => `${e.kind} ${e.text}`)
    return said.length > 0
  }, 'the transcript')
  assert.ok(existsSync(marked), said.join('\n'))
  const v = await show(id)
  assert.ok(h.kernelFile()!.pid !== k.pid, 'a new kernel')
  assert.is(v.activity, 'idle')
  assert.is(v.evidence.source, 'self-mark')
  const state = JSON.parse(readFileSync(join(h.service, 'agents', `conv-c${id}`, 'state.json'), 'utf8'))
  assert.equal(state.runner, runner, 'the same runner drives it')
  assert.is(state.ended, undefined)
  assert.equal(said, [`stdout conv ${id} marked idle`], 'the mark printed what it did, and no error')
})

test('a runner killed without writing its end is marked ended by the reconcile, with the evidence', async () => {
  alone()
  const id = (await h.ok(['conv', 'new', '--harness', 'shell', '--cwd', h.home, '--prompt', 'sleep 30'])).trim()
  const stateFile = join(h.service, 'agents', `conv-c${id}`, 'state.json')
  const state = await until(
    () =>
      existsSync(stateFile) &&
      JSON.parse(readFileSync(stateFile, 'utf8')).harness &&
      JSON.parse(readFileSync(stateFile, 'utf8')),
    'state',
  )
  await h.ok(['kernel', 'stop'])
  process.kill(-state.runner.pid, 'SIGKILL')
  await until(() => !alive(state.runner.pid) && !alive(state.harness.pid), 'runner group dead')
  // The reconcile decides only on a conversation created more than its grace period ago (10 s in use; a test build
  // takes it from the environment the kernel starts with). Within the grace, the conversation is left as it is.
  const graced = (ms: number) => ({ env: { SERVICE_TEST_BUILD: '1', SERVICE_TEST_RECONCILE_GRACE_MS: String(ms) } })
  const within = JSON.parse(await h.ok(['conv', 'show', id, '--json'], graced(60_000)))
  assert.is.not(within.activity, 'stopped', 'within the grace the reconcile leaves it')
  await h.ok(['kernel', 'stop'])
  const v = JSON.parse(await h.ok(['conv', 'show', id, '--json'], graced(0)))
  assert.is(v.activity, 'stopped')
  assert.is(v.evidence.source, 'reconcile')
  assert.match(v.evidence.detail, `runner pid ${state.runner.pid} is gone and wrote no end`)
})

test('a long transcript is read a bounded page at a time: the last page first, then only what is new', async () => {
  const { appendFileSync } = await import('node:fs')
  const { rpc } = await import('../helpers/activity.js')
  const id = (await h.ok(['conv', 'new', '--harness', 'none', '--cwd', h.home])).trim()
  const file = join(h.service, 'agents', `conv-c${id}`, 'transcript.jsonl')
  const line = (n: number) =>
    JSON.stringify({ n, at: 1_700_000_000_000 + n, kind: 'stdout', text: `line ${n} ${'x'.repeat(80)}` }) + '\n'
  const total = 40_000
  writeFileSync(file, Array.from({ length: total }, (_, i) => line(i + 1)).join(''))
  const size = readFileSync(file).length
  assert.ok(size > 4 * 1024 * 1024)
  const last = await rpc(h, 'convTranscript', { conv: id })
  assert.ok(
    last.entries.length > 100 && last.entries.length < 3000,
    `the last page only, got ${last.entries.length} entries`,
  )
  assert.is(last.entries.at(-1).n, total)
  assert.is(last.entries[0].n, total - last.entries.length + 1, 'whole lines, none cut')
  assert.ok(JSON.stringify(last.entries).length <= 300 * 1024, 'a page is bounded')
  assert.equal([last.cursor, last.more], [size, false])
  assert.equal(
    await rpc(h, 'convTranscript', { conv: id, cursor: last.cursor }),
    { entries: [], cursor: size, more: false },
    'nothing new',
  )
  appendFileSync(file, line(total + 1) + line(total + 2) + line(total + 3).slice(0, 20))
  const next = await rpc(h, 'convTranscript', { conv: id, cursor: last.cursor })
  assert.equal(
    next.entries.map((e: { n: number }) => e.n),
    [total + 1, total + 2],
    'only what is new; the line being written waits',
  )
  const first = await rpc(h, 'convTranscript', { conv: id, cursor: 0 })
  assert.equal([first.entries[0].n, first.more], [1, true])
  const printed = await h.ok(['conv', 'transcript', id])
  assert.is(printed.split('\n').length - 1, total + 2, 'the CLI prints the whole transcript, page by page')
})

test.run()
