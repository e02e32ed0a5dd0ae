import { test } from 'uvu'
import * as assert from 'uvu/assert'
import type { KernelPort } from '../../kernel/port/port.js'
import { newRoot, walkPart } from './crash-kit.js'
import { recordFigure } from './figures.js'

// The scripted sequence's worker: an issue, a worker run on it, its report (told to its starter, posted to its issue)
// and its reap, each attempt after the first on an issue and a worker of its own.

test('the kernel killed at every store write step of a worker run, reported, posted and reaped: after each restart the store holds every acknowledged write and the report is posted once', async () => {
  const { kills, acknowledged } = await walkPart('crash-worker', async (w) => {
    const root = await newRoot(w.port)
    w.acks.push({ kind: 'conv', id: root })
    const issue = (port: KernelPort) => port.issueNew({ project: 'sample', title: 'crash' })
    let ref = (await w.everyPoint('issue', issue)).ref
    const run = async (port: KernelPort) => {
      const r = await port.workerRun({
        conversation: root,
        issue: ref,
        prompt: 'x',
        harness: 'none',
        post: true,
        noWait: true,
      })
      w.acks.push({ kind: 'worker', id: r.worker.id, issue: ref })
      return { id: r.worker.id, name: r.worker.name }
    }
    const workerReport = async (port: KernelPort, wk: { id: string; name: string }) => {
      const r = await port.workerReport({
        conversation: wk.id,
        body: 'BLOCKED report of the worker',
        status: 'blocked',
      })
      w.acks.push({ kind: 'report', id: wk.id, name: wk.name, seq: r.report.seq, issue: ref })
    }
    const newIssue = async () => void (ref = (await issue(w.port)).ref)
    let worker = await w.everyPoint('worker-run', run, newIssue)
    const newWorker = async () => {
      await newIssue()
      worker = await run(w.port)
    }
    await w.everyPoint('worker-report', (port) => workerReport(port, worker), newWorker)
    await w.everyPoint(
      'worker-reap',
      async (port) => {
        await port.workerReap({ worker: worker.id })
        w.acks.push({ kind: 'reap', id: worker.id })
      },
      async () => {
        await newWorker()
        await workerReport(w.port, worker)
      },
    )
  })
  assert.ok(kills >= 15, `a worker's run, report and reap have many write steps (${kills})`)
  recordFigure(
    'kernel killed at each store write step of a worker run on an issue, reported (posted to its issue) and reaped',
    `${kills} kill points, ${acknowledged} acknowledged writes checked after restart, 0 lost, the report posted ` +
      `exactly once after every kill`,
  )
})

test.run()
