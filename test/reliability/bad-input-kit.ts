import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { findVerb } from '../../cli/parse.js'
import { TestHome, alive, until } from '../helpers/home.js'
import { setupProject, type Setup } from '../helpers/project.js'
import { recordFigure } from './figures.js'
import { snapshot } from './snapshot.js'

/** What the bad-input suites share: a home with a sample project, a live builder lane r1/b and an open issue
 * local:1, whose files are snapshot once settled; every case must be refused on one line (or a 4xx with one
 * message) and leave them as they were, with the kernel up. */

export const BAD_KEYS = [
  'UP',
  'a b',
  '.x',
  '_x',
  'a/b',
  '../x',
  'x'.repeat(41),
  'a\nb',
  'ü',
  'a;b',
  '$(id)',
  'a\tb',
  ' a',
  'a*',
  'a"b',
]
export const BAD_RUNS = [...BAD_KEYS, 'a.b', 'a_b', 'x'.repeat(33)]
export const BAD_REFS = [
  'conv-../x',
  '../x',
  '/etc/passwd',
  'conv-',
  'CONV-A',
  'a b',
  'x'.repeat(201),
  'conv-a/b',
  '..',
  'a\nb',
  'conv-.hidden',
  '%2e%2e',
]

export interface BadInput {
  h: TestHome
  s: Setup
  /** The live builder lane r1/b. */
  lane: string
  cli: (args: string[], env?: Record<string, string | undefined>) => Promise<string>
  http: (method: string, path: string, body?: string, headers?: Record<string, string>) => Promise<void>
  unchanged: () => void
}

/** A refusal's kind: its line with what names the case (an argument, a quoted value, a path, a number) left out. */
const shape = (line: string, args: string[]) =>
  line
    .replace(/'[^']*'/g, "'*'")
    .replace(/\S*[\d/]\S*/g, '*')
    .split(' ')
    .map((w) => (args.includes(w.replace(/[:,;]$/, '')) ? '*' : w))
    .join(' ')

/** Registers the suite's hooks; the returned object is filled in by the time its tests run. `figure` names the
 * count of cases in the reliability table. */
export function badInputSuite(label: string, figure: string): BadInput {
  let kernelPid: number
  let before: string
  let cases = 0
  // The first case of each verb, and the first of each refusal family, also runs as a process of its own, which must
  // answer the same.
  const verbs = new Set<string>()
  const families = new Set<string>()
  let processes = 0
  const k = {} as BadInput
  const roots = () => [k.h.service, k.s.lanesRoot]
  test.before(async () => {
    const h = (k.h = new TestHome(label))
    const s = (k.s = await setupProject(h))
    // Lane r1/b stays live for the whole suite through its harness: a lane that is only starting counts as live for
    // 3 minutes, which the suite outlasts on a loaded machine (and then a second start of r1/b is no longer refused).
    const out = await h.ok(
      [
        'lane',
        'start',
        '--run',
        'r1',
        '--key',
        'b',
        '--role',
        'builder',
        '--harness',
        'shell',
        '--prompt',
        'exec sleep 3600',
        '--no-wait',
      ],
      { env: s.env },
    )
    const lane = (k.lane = /conv (\d+)/.exec(out)![1])
    // Read through the port: a CLI process per poll would cost a Node start each.
    const port = await h.port()
    await until(async () => (await port.convShow({ conv: lane })).activity === 'working', 'lane r1/b working')
    // An open issue for the worker verbs to be refused on (before the snapshot: the suite changes nothing after it).
    await h.ok(['issue', 'new', '--project', s.project.key, '--title', 'bad input'])
    kernelPid = h.kernelFile()!.pid
    // Once its runner has written what it writes at the harness's start, nothing changes until the suite ends.
    let last = ''
    before = (await until(
      () => {
        const now = snapshot(roots(), s.project.checkout)
        const same = now === last
        last = now
        return same ? now : undefined
      },
      'the files of lane r1/b settled (two reads 200 ms apart the same)',
      15_000,
      200,
    ))!
  })
  test.after(async () => {
    recordFigure(figure, `${cases} cases (${processes} of the CLI's also run as a process of their own)`)
    await k.h.stop()
  })
  k.cli = async (args, env = k.s.env) => {
    const r = await k.h.svc(args, { env, here: true })
    const what = JSON.stringify(args)
    const verb = findVerb(args) ?? args[0]
    const family = shape(r.stderr.split('\n')[0], args)
    if (!verbs.has(verb) || !families.has(family)) {
      verbs.add(verb)
      families.add(family)
      processes++
      assert.equal(await k.h.svc(args, { env }), r, `${what}: a process of its own answers the same`)
    }
    assert.is(r.code, 1, `${what} exits 1: ${r.stderr}`)
    assert.is(r.stdout, '', `${what} prints nothing on stdout`)
    const lines = r.stderr.trimEnd().split('\n')
    assert.ok(
      lines[0].startsWith('svc: ') && lines[0].length > 8,
      `${what}: one clear line, got ${JSON.stringify(r.stderr)}`,
    )
    assert.ok(
      lines.length === 1 || (lines.length === 2 && lines[1].startsWith('hint: ')),
      `${what}: one line (and a hint), got ${JSON.stringify(r.stderr)}`,
    )
    cases++
    return r.stderr
  }
  k.http = async (method, path, body, headers = {}) => {
    const kf = k.h.kernelFile()!
    const res = await fetch(`http://127.0.0.1:${kf.port}${path}`, {
      method,
      headers: { authorization: `Bearer ${kf.token}`, 'content-type': 'application/json', ...headers },
      body,
    })
    const what = `${method} ${path} ${body?.slice(0, 60) ?? ''}`
    assert.ok(res.status >= 400 && res.status < 500, `${what}: a 4xx, got ${res.status}`)
    const json = (await res.json()) as { error?: { code?: string; message?: string } }
    assert.type(json.error?.code, 'string', what)
    assert.ok(
      json.error?.message && !json.error.message.includes('\n'),
      `${what}: one clear message, got ${JSON.stringify(json)}`,
    )
    cases++
  }
  k.unchanged = () => {
    assert.is(snapshot(roots(), k.s.project.checkout), before, 'the store and the file system are unchanged')
    assert.ok(alive(kernelPid) && k.h.kernelFile()!.pid === kernelPid, 'the kernel stays up')
  }
  return k
}
