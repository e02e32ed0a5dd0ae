import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { spawn, type ChildProcess } from 'node:child_process'
import { createServer, type Server, type Socket } from 'node:net'
import { callerLineage, newestFirst, peers, type ConnectionEnds } from '../../kernel/io/peer.js'
import { procStat } from '../../kernel/io/procs.js'

// The kernel knows who calls from the process holding the other end of a request's connection, read from /proc
// through the thread pool: the caller and its ancestors, or null once no process holds that end any more.

let server: Server
const arrived: Socket[] = []
let waiting: ((s: Socket) => void) | undefined
const children: ChildProcess[] = []

test.before(async () => {
  server = createServer((s) => {
    arrived.push(s)
    waiting?.(s)
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
})
test.after(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL')
  for (const s of arrived) s.destroy()
  await new Promise((r) => server.close(r))
})

const port = () => (server.address() as { port: number }).port
const nextConnection = () => new Promise<Socket>((r) => (waiting = r))
const endsOf = (s: Socket): ConnectionEnds => ({
  remotePort: s.remotePort!,
  localPort: s.localPort!,
  remoteAddress: s.remoteAddress,
  localAddress: s.localAddress,
})
/** A shell whose node child connects to the server, says `hi`, then holds the connection until its stdin ends
 * (`close`: it closes its end at once and exits). */
function caller(close = false): ChildProcess {
  const js =
    `const s=require('net').connect(${port()},'127.0.0.1',()=>{s.write('hi');` +
    (close ? `s.end();s.destroy()` : `process.stdin.on('data',()=>{}).on('end',()=>s.destroy())`) +
    `})`
  const c = spawn('sh', ['-c', `node -e "${js}"; exit 0`], { stdio: ['pipe', 'ignore', 'ignore'] })
  children.push(c)
  return c
}
const exited = (c: ChildProcess) =>
  new Promise<void>((r) => (c.exitCode !== null || c.signalCode !== null ? r() : c.once('exit', () => r())))

test('the caller is the process holding the far end, then its ancestors up to this one', async () => {
  const conn = nextConnection()
  const sh = caller()
  const s = await conn
  const lineage = await callerLineage(endsOf(s))
  assert.ok(lineage && lineage.length >= 3, `a lineage of node, sh and this process: ${JSON.stringify(lineage)}`)
  const [node, shell, me] = lineage!
  assert.is(procStat(node.pid)?.ppid, sh.pid, "the caller is the shell's node child")
  assert.is(shell.pid, sh.pid)
  assert.is(me.pid, process.pid)
  for (const p of lineage!.slice(0, 3)) {
    const st = procStat(p.pid)!
    assert.equal({ start: p.start, pgid: p.pgid, sid: p.sid }, { start: st.start, pgid: st.pgid, sid: st.sid })
  }
  sh.stdin!.end()
  await exited(sh)
})

test('a caller that closed its end before the kernel looked is null: who sent it cannot be known', async () => {
  const conn = nextConnection()
  const sh = caller(true)
  const s = await conn
  await exited(sh)
  assert.is(await callerLineage(endsOf(s)), null)
})

test('the look leaves the thread free while /proc is read', async () => {
  const conn = nextConnection()
  const sh = caller()
  const s = await conn
  let turned = false
  setImmediate(() => (turned = true))
  const lineage = await callerLineage(endsOf(s))
  assert.ok(turned, 'the event loop turned before the look ended')
  assert.is(lineage?.[1].pid, sh.pid)
  sh.stdin!.end()
  await exited(sh)
})

test('requests on one connection share one look; outside a request there is no caller', async () => {
  const conn = nextConnection()
  const sh = caller()
  const s = await conn
  const [a, b] = peers.within(
    s,
    () => endsOf(s),
    () => [peers.lineage(), peers.lineage()],
  )
  assert.is(a, b, 'one look for both')
  assert.is((await a)?.[1].pid, sh.pid)
  // Once known, the connection's caller stays known, even after it has gone.
  sh.stdin!.end()
  await exited(sh)
  assert.is(
    (
      await peers.within(
        s,
        () => endsOf(s),
        () => peers.lineage(),
      )
    )?.[1].pid,
    sh.pid,
  )
  assert.equal(await peers.lineage(), [])
})

test('processes are looked at newest first, past the point where pids start again from the lowest', () => {
  // The last pid given was 7: 7 and 5 came just before it, 32000 and 31000 before the pids started again, 100 first.
  assert.equal(newestFirst([5, 32000, 100, 7, 31000], 7, 32768), [7, 5, 32000, 31000, 100])
  assert.equal(newestFirst([5, 300, 100, 7], 300, 32768), [300, 100, 7, 5])
  // Where the last pid cannot be read: the highest first.
  assert.equal(newestFirst([5, 32000, 100, 7], Infinity, 0), [32000, 100, 7, 5])
})

test.run()
