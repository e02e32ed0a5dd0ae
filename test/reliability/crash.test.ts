import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { cpSync, existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { ensureKernel, httpTransport } from '../../cli/connect.js'
import { processIo } from '../../cli/io.js'
import { createSampleProject, writeProjectsYaml } from '../../fixtures/sample-project.js'
import { remotePort } from '../../kernel/port-client.js'
import type { KernelPort } from '../../kernel/port.js'
import { TestHome, alive, until } from '../helpers/home.js'
import { recordFigure } from './figures.js'

/** What a client was told succeeded: each must be found after any crash. */
type Ack = { kind: 'conv' | 'lane'; id: string } | { kind: 'report'; id: string; name: string; seq: number } | { kind: 'reap'; id: string }

const roles = Object.fromEntries(['builder', 'play'].map((r) => [r, { model: 'm', harness: 'none' as const }]))

async function connect(h: TestHome, env: Record<string, string> = {}): Promise<{ port: KernelPort; pid: number }> {
  const k = (await ensureKernel({ ...processIo(), env: h.env(env) }))!
  return { port: remotePort(httpTransport(k)), pid: k.pid }
}

/** The scripted sequence: launches, reports and reaps. Stops at the first failure (the kernel died). */
async function sequence(port: KernelPort, acks: Ack[]): Promise<void> {
  const root = await port.convNew({ harness: 'none', project: 'sample' })
  acks.push({ kind: 'conv', id: root.id })
  const lanes: { id: string; name: string }[] = []
  for (const [key, role] of [['p1', 'play'], ['b1', 'builder'], ['p2', 'play']] as const) {
    const r = await port.laneStart({ conversation: root.id, run: 'crash', key, role, prompt: 'x', noWait: true })
    acks.push({ kind: 'lane', id: r.lane.id })
    lanes.push({ id: r.lane.id, name: r.lane.name })
  }
  for (const l of lanes) {
    const r = await port.laneReport({ conversation: l.id, body: `BLOCKED report of ${l.name}`, status: 'blocked' })
    acks.push({ kind: 'report', id: l.id, name: l.name, seq: r.report.seq })
  }
  for (const l of lanes) {
    await port.laneReap({ lane: l.id })
    acks.push({ kind: 'reap', id: l.id })
  }
}

async function verify(port: KernelPort, acks: Ack[]) {
  for (const a of acks) {
    const v = await port.convShow({ conv: a.id })
    assert.is(v.id, a.id, `acknowledged ${a.kind} ${a.id} is there`)
    if (a.kind === 'lane') assert.ok(v.lane, `lane facts of ${a.id}`)
    if (a.kind === 'report') {
      const w = await port.laneWait({ lane: a.id, after: String(a.seq - 1), timeoutMs: 0 })
      assert.is(w.kind, 'report', `acknowledged report ${a.seq} of ${a.name}`)
      if (w.kind === 'report') assert.is(w.report.seq, a.seq)
    }
    if (a.kind === 'reap') assert.ok(v.archived, `acknowledged reap of ${a.id} left it archived`)
  }
}

test('the kernel killed at every store write step of a scripted sequence: after each restart the store parses and holds every acknowledged write', async () => {
  const template = new TestHome('crash-template')
  template.extraEnv = {}
  const project = createSampleProject(join(template.home, 'src'))
  writeFileSync(join(template.home, '.gitconfig'), '[user]\n\tname = T\n\temail = t@example.com\n')
  let killedAt = 0
  let acknowledged = 0
  try {
    for (let n = 1; n < 200; n++) {
      const h = new TestHome('crash')
      try {
        cpSync(template.home, h.home, { recursive: true })
        writeProjectsYaml(h.service, { ...project, checkout: project.checkout.replace(template.home, h.home) }, { gauntlet: { roles } })
        const first = await connect(h, { SERVICE_TEST_BUILD: '1', SERVICE_FAULT_KILL_AT: String(n) })
        const acks: Ack[] = []
        let died = false
        try {
          await sequence(first.port, acks)
        } catch {
          died = true
        }
        if (!died) {
          // n is past the last write step: the whole sequence ran; check it once and stop.
          await verify(first.port, acks)
          break
        }
        await until(() => !alive(first.pid), 'the killed kernel gone')
        killedAt++
        acknowledged += acks.length
        assert.ok(existsSync(join(h.service, 'kernel.json')), 'a killed kernel leaves its manifest behind (stale)')
        const again = await connect(h)
        assert.ok(again.pid !== first.pid)
        await verify(again.port, acks)
        assert.not.match(readFileSync(join(h.service, 'kernel.log'), 'utf8'), 'fatal:')
      } finally {
        await h.stop()
      }
    }
  } finally {
    await template.stop()
  }
  assert.ok(killedAt >= 30, `the sequence has many write steps (${killedAt})`)
  recordFigure('kernel killed at each store write step of a scripted sequence (launches, reports, reaps)', `${killedAt} kill points, ${acknowledged} acknowledged writes checked after restart, 0 lost`)
})

test.run()
