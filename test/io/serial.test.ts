import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { KeyedQueue, Limiter } from '../../kernel/queue/serial.js'
import { rejection } from '../helpers/home.js'

// The kernel's two concurrency tools: one call at a time per key, and at most N calls at once.

const tick = () => new Promise((r) => setTimeout(r, 1))

/** A call that records when it ran, held until released. */
function gate(log: string[], name: string) {
  let release!: () => void
  const held = new Promise<void>((r) => (release = r))
  return { release, fn: async () => (log.push(`+${name}`), await held, log.push(`-${name}`), name) }
}

test('Limiter(2): a third call waits until one of two running ends; order of arrival kept; results and errors pass through', async () => {
  const lim = new Limiter(2)
  const log: string[] = []
  const [a, b, c, d] = ['a', 'b', 'c', 'd'].map((n) => gate(log, n))
  const pa = lim.run(a.fn)
  const pb = lim.run(b.fn)
  const pc = lim.run(c.fn)
  const pd = lim.run(d.fn)
  await tick()
  assert.equal(log, ['+a', '+b'], 'two run, two wait')
  b.release()
  await tick()
  assert.equal(log, ['+a', '+b', '-b', '+c'], 'the first waiting call takes the freed place')
  a.release()
  c.release()
  d.release()
  assert.equal(await Promise.all([pa, pb, pc, pd]), ['a', 'b', 'c', 'd'])
  // A failing call frees its place too.
  assert.is((await rejection(lim.run(async () => Promise.reject(new Error('no'))))).message, 'no')
  const running: number[] = []
  let now = 0
  await Promise.all(Array.from({ length: 10 }, () => lim.run(async () => (running.push(++now), await tick(), now--))))
  assert.is(Math.max(...running), 2, 'never more than two at once')
  assert.is(now, 0)
})

test('KeyedQueue: calls of one key run one after another even when one fails; other keys do not wait', async () => {
  const q = new KeyedQueue()
  const log: string[] = []
  const a1 = gate(log, 'a1')
  const p1 = q.run('a', a1.fn)
  const p2 = q.run('a', async () => {
    log.push('a2')
    throw new Error('a2 failed')
  })
  const p3 = q.run('a', async () => (log.push('a3'), 'a3'))
  const pb = q.run('b', async () => (log.push('b1'), 'b1'))
  await tick()
  assert.equal(log, ['+a1', 'b1'], 'a2 waits for a1; b1 does not')
  a1.release()
  assert.is(await p1, 'a1')
  assert.is((await rejection(p2)).message, 'a2 failed')
  assert.is(await p3, 'a3')
  assert.is(await pb, 'b1')
  assert.equal(log, ['+a1', 'b1', '-a1', 'a2', 'a3'])
})

test.run()
