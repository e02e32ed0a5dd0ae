import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { ROOT, TestHome, git, until } from '../helpers/home.js'
import { buildAndReport, setupProject, type Setup } from '../helpers/project.js'
import { criticScript, gates, kernelApi, rawRequest, readEvents } from './api-kit.js'

/** SPEC.md 4.4 against a real kernel: the lanes API and what the deck needs, driven over HTTP the way a browser or a
 * script would, with real lanes (shell harness) doing real git work. */

let h: TestHome
let s: Setup
let api: ReturnType<typeof kernelApi>
let g: ReturnType<typeof gates>
test.before.each(async () => {
  h = new TestHome('api')
  s = await setupProject(h)
  api = kernelApi(h)
  g = gates(h)
})
test.after.each(async () => {
  await h.stop()
})

const err = (code: string, message: string, hint?: string) => ({ error: { code, message, ...(hint ? { hint } : {}) } })
const launch = (body: Record<string, unknown>) => api.post('/api/lanes', { run: 'r1', conversation: s.root, ...body })
const lane = async (name: string) => (await api.get(`/api/lanes/${name}`)).body
const activityOf = async (name: string) => (await lane(name)).activity as string
const untilActivity = (name: string, value: string) =>
  until(async () => (await activityOf(name)) === value, `${name} ${value}`, 20_000)
const ids = (lanes: { id: string }[]) => lanes.map((l) => l.id)

test('POST /api/lanes launches like svc lane start (201); GET /api/lanes/:name and the filtered list show it with its activity', async () => {
  const brief = `echo started\n${g.wait('1')}\n${buildAndReport('built b')}`
  const r = await launch({ key: 'b', role: 'builder', prompt: brief })
  assert.is(r.status, 201, JSON.stringify(r.body))
  const id = r.body.lane.id as string
  const dir = join(s.lanesRoot, 'r1-b')
  assert.is(r.body.line, `Lane r1/b builder i1: conv ${id} (r1-b-builder-i1) in ${dir}`)
  assert.is(r.body.lane.kind, 'lane')
  assert.is(readFileSync(join(h.service, 'agents', 'conv-r1-b-builder-i1', 'lane-brief.md'), 'utf8'), brief)

  const one = await api.get('/api/lanes/r1-b-builder-i1')
  assert.is(one.status, 200)
  const l = one.body
  assert.equal(
    [l.id, l.name, l.parent, l.run, l.key, l.role, l.iteration, l.cwd, l.harness, l.model, l.archived, l.branch],
    [id, 'r1-b-builder-i1', s.root, 'r1', 'b', 'builder', 1, dir, 'shell', 'model-builder', false, 'r1/b'],
  )
  assert.is(l.activity, 'working')
  assert.is(l.evidence.source, 'process start')
  assert.is(l.report, undefined)
  assert.equal([l.git.branch, l.git.head, l.git.dirty], ['r1/b', git(dir, 'rev-parse', 'HEAD'), false])
  for (const ref of [id, `conv-r1-b-builder-i1`]) assert.equal((await api.get(`/api/lanes/${ref}`)).body.id, id, ref)

  for (const [q, expected] of [
    ['', [id]],
    ['?run=r1', [id]],
    ['?run=r2', []],
    ['?key=b', [id]],
    ['?key=c', []],
    [`?parent=${s.root}`, [id]],
    [`?parent=conv-c${s.root}`, [id]],
    [`?parent=${id}`, []],
    [`?run=r1&key=b&parent=${s.root}`, [id]],
  ] as const) {
    const list = await api.get(`/api/lanes${q}`)
    assert.is(list.status, 200, q)
    assert.equal(ids(list.body), expected, q)
    for (const item of list.body)
      assert.ok(['working', 'idle', 'starting', 'needs-you', 'stopped', 'failed-to-start'].includes(item.activity))
  }

  g.open('1')
  await until(async () => (await lane(id)).report?.status === 'done', 'the done report')
  await untilActivity(id, 'stopped')
  // Git facts are cached while HEAD and the index stay the same, for up to 2 s: the upstream set by the push shows
  // then.
  const after = await until(async () => ((await lane(id)).git.ahead === 0 ? lane(id) : undefined), 'the upstream')
  assert.equal([after.report.seq, after.report.status], [1, 'done'])
  assert.equal(
    [after.git.head, after.git.upstream, after.git.ahead, after.git.dirty],
    [git(dir, 'rev-parse', 'HEAD'), 'origin/r1/b', 0, false],
  )
})

test('refusals over HTTP keep their status and message: 400 bad input, 401 no token, 403 not permitted, 404 unknown, 409 a live lane already there; nothing is left behind', async () => {
  const first = await launch({ key: 'b', role: 'builder', prompt: g.wait('1') })
  assert.is(first.status, 201)
  const id = first.body.lane.id
  const cases: [Record<string, unknown>, number, unknown][] = [
    [
      { key: 'b', role: 'builder', prompt: 'x' },
      409,
      err('conflict', `lane r1/b builder i1 is live (conv ${id}); pass --replace to stop it and launch anew`),
    ],
    [
      { key: 'c', role: 'builder', prompt: 'x', conversation: id },
      403,
      err('forbidden', 'refused: a builder lane cannot launch lanes'),
    ],
    [
      { for: 'b', role: 'critic', prompt: 'x' },
      409,
      err('conflict', 'builder b i1 has no done report; pass --at <sha>'),
    ],
    [{ for: 'zz', role: 'critic', prompt: 'x' }, 404, err('not_found', 'refused: no builder zz in run r1')],
    [
      { key: 'c', role: 'builder', prompt: 'x', conversation: '999' },
      404,
      err('not_found', 'no conversation 999', 'svc conv list shows the conversations'),
    ],
    [
      { key: 'c', role: 'boss', prompt: 'x' },
      400,
      err('usage', 'role: must be one of builder, critic, verifier, play, orchestrator'),
    ],
    [
      { key: 'c', role: 'builder', prompt: 'x', run: 'R1' },
      400,
      err('usage', "invalid run key 'R1': it must match ^[a-z0-9][a-z0-9-]{0,31}$"),
    ],
    [{ key: 'c', role: 'builder' }, 400, err('usage', 'give exactly one of --brief <file> or --prompt <text>')],
    [
      { key: 'c', role: 'builder', prompt: 'x', conversation: undefined },
      400,
      err('usage', 'conversation is required: the id of the launching conversation'),
    ],
    [{ key: 'c', role: 'builder', prompt: 'x', cwd: h.home }, 400, err('usage', 'unknown field cwd')],
  ]
  for (const [body, status, expected] of cases)
    assert.equal(await launch(body), { status, body: expected }, JSON.stringify(body))
  assert.equal(
    await api.call('/api/lanes', {
      body: { key: 'c', role: 'builder', prompt: 'x', run: 'r1', conversation: s.root },
      token: null,
    }),
    { status: 401, body: err('unauthorized', 'missing or wrong token') },
  )
  assert.equal(await api.call('/api/lanes', { token: 'f'.repeat(64) }), {
    status: 401,
    body: err('unauthorized', 'missing or wrong token'),
  })

  assert.equal(await api.get('/api/lanes/999'), {
    status: 404,
    body: err('not_found', 'no conversation 999', 'svc conv list shows the conversations'),
  })
  assert.equal(await api.get(`/api/lanes/${s.root}`), {
    status: 404,
    body: err('not_found', `conv ${s.root} (c${s.root}) is not a lane`),
  })
  assert.equal(await api.get('/api/lanes/Not%20A%20Name'), {
    status: 400,
    body: err('usage', "'Not A Name' is not a conversation id, name or conv-<name>"),
  })
  assert.equal(await api.get('/api/lanes?run=R1'), {
    status: 400,
    body: err('usage', "invalid run key 'R1': it must match ^[a-z0-9][a-z0-9-]{0,31}$"),
  })
  assert.equal(await api.get('/api/lanes?parent=999'), {
    status: 404,
    body: err('not_found', 'no conversation 999', 'svc conv list shows the conversations'),
  })

  // What the refusals left: the one lane, its one directory, and no other branch.
  assert.equal(ids((await api.get('/api/lanes')).body), [id])
  assert.equal(readdirSync(s.lanesRoot), ['r1-b'])
  assert.equal(
    git(s.project.checkout, 'branch', '--list', 'r1/*')
      .split('\n')
      .map((b) => b.replace(/^[*+ ]+/, '')),
    ['r1/b'],
  )
  g.open('1')
})

test('reap over HTTP: a dirty lane is refused (409) and nothing archived; with park its work is parked, the lane archived and still listed with activity stopped; keep leaves it listed unarchived', async () => {
  const r = await launch({ key: 'd', role: 'builder', prompt: 'echo wip > wip.txt' })
  const id = r.body.lane.id
  const dir = join(s.lanesRoot, 'r1-d')
  await untilActivity(id, 'stopped')

  const refused = await api.post(`/api/lanes/${id}/reap`, {})
  assert.equal(refused, {
    status: 409,
    body: err(
      'conflict',
      `refused: ${dir} has uncommitted changes (1 path); commit them, or pass --park to save them to a patch`,
    ),
  })
  assert.ok(existsSync(join(dir, 'wip.txt')))
  assert.equal([(await lane(id)).archived, (await lane(id)).git.dirty], [false, true])

  const reaped = await api.post(`/api/lanes/r1-d-builder-i1/reap`, { park: true, keep: false })
  assert.is(reaped.status, 200, JSON.stringify(reaped.body))
  assert.equal(
    [reaped.body.removed, reaped.body.archived, reaped.body.parked.paths, reaped.body.warnings],
    [dir, true, 1, []],
  )
  assert.match(
    reaped.body.parked.patch,
    new RegExp(`^${join(h.service, 'agents', 'conv-r1-d-builder-i1')}/parked-.+\\.patch$`),
  )
  assert.match(readFileSync(reaped.body.parked.patch, 'utf8'), '+++ b/wip.txt')
  assert.not.ok(existsSync(dir))
  assert.equal([reaped.body.lane.archived, reaped.body.lane.activity], [true, 'stopped'])

  const listed = (await api.get('/api/lanes?run=r1')).body.find((l: { id: string }) => l.id === id)
  assert.equal([listed.archived, listed.activity, listed.git], [true, 'stopped', undefined])
  assert.match(await h.ok(['lane', 'list', '--run', 'r1']), /archived/)
  assert.equal(await api.post(`/api/lanes/${id}/reap`, { park: true }), {
    status: 409,
    body: err('conflict', `refused: conv ${id} (r1-d-builder-i1) is already reaped and archived`),
  })

  const play = await launch({ key: 'p', role: 'play', prompt: 'echo played > out.txt' })
  await untilActivity(play.body.lane.id, 'stopped')
  const kept = await api.post(`/api/lanes/${play.body.lane.id}/reap`, { keep: true })
  assert.equal(
    [kept.status, kept.body.archived, kept.body.removed, kept.body.lane.archived, kept.body.lane.activity],
    [200, false, join(s.lanesRoot, 'r1-p-play-i1'), false, 'stopped'],
  )
  assert.not.ok(existsSync(join(s.lanesRoot, 'r1-p-play-i1')))

  assert.equal(await api.post(`/api/lanes/${s.root}/reap`, {}), {
    status: 404,
    body: err('not_found', `conv ${s.root} (c${s.root}) is not a lane`),
  })
  assert.equal(await api.post('/api/lanes/999/reap', {}), {
    status: 404,
    body: err('not_found', 'no conversation 999', 'svc conv list shows the conversations'),
  })
  assert.equal(await api.post(`/api/lanes/${id}/reap`, { park: 1 }), {
    status: 400,
    body: err('usage', 'park: Invalid type: Expected boolean but received 1'),
  })
})

test('the tree, one conversation, its transcript and tell over HTTP: lanes under their launcher, a critic under its builder, a successor beside the lanes it continues', async () => {
  writeFileSync(join(h.home, 'builder.md'), `echo building\n${buildAndReport('built b')}`)
  const orch = await launch({
    key: 'o',
    role: 'orchestrator',
    prompt:
      `svc lane start --key b --role builder --brief ${h.home}/builder.md\nsvc handoff --harness none > ` +
      `${h.home}/succ\n${g.wait('o')}`,
  })
  assert.is(orch.status, 201, JSON.stringify(orch.body))
  const o = orch.body.lane.id as string
  const succ = (await until(
    () => existsSync(join(h.home, 'succ')) && readFileSync(join(h.home, 'succ'), 'utf8').trim(),
    'the successor',
  )) as string
  const b = (await until(
    async () => (await api.get('/api/lanes?key=b')).body[0]?.report && (await api.get('/api/lanes?key=b')).body[0].id,
    'the builder report',
  )) as string
  const critic = await launch({
    for: 'b',
    role: 'critic',
    prompt:
      `${criticScript('NOT_YET', ['no test for empty input', 'parse splits on commas only'], 'two defects')}` +
      `${g.wait('c')}`,
  })
  assert.is(critic.status, 201, JSON.stringify(critic.body))
  const c = critic.body.lane.id as string
  await until(async () => (await lane(c)).report?.status === 'done', 'the verdict')

  const tree = await api.get('/api/tree')
  assert.is(tree.status, 200)
  const node = (id: string, ...children: unknown[]) => ({ id, children })
  assert.equal(tree.body.roots, [node(s.root, node(o, node(b, node(c)), { id: succ, continues: o, children: [] }))])
  assert.equal(tree.body.lanes[b].verdict.value, 'NOT_YET')
  assert.equal([tree.body.lanes[b].verdict.defects, tree.body.lanes[b].verdict.by], [2, c])
  assert.equal(
    [tree.body.lanes[c].verdict.value, tree.body.lanes[c].for],
    ['NOT_YET', { id: b, key: 'b', iteration: 1, sha: tree.body.lanes[b].git.head }],
  )
  assert.equal(tree.body.conversations[succ].kind, 'successor')
  assert.equal(tree.body.runs, ['r1'])
  assert.equal(tree.body.costPerRun, { r1: 0 })
  assert.equal(tree.body.costPerOrchestrator, { [o]: 0 })
  assert.equal(
    (await api.get('/api/tree?run=r1')).body.roots,
    tree.body.roots,
    'the successor of the run orchestrator stays in the run',
  )
  assert.equal((await api.get('/api/tree?run=r2')).body.roots, [])
  assert.equal((await api.get(`/api/tree?parent=${o}`)).body.roots, [
    node(o, node(b, node(c)), { id: succ, continues: o, children: [] }),
  ])
  assert.equal(await api.get('/api/tree?parent=999'), {
    status: 404,
    body: err('not_found', 'no conversation 999', 'svc conv list shows the conversations'),
  })

  const conv = await api.get(`/api/convs/${succ}`)
  assert.equal([conv.status, conv.body.kind, conv.body.parent, conv.body.successor], [200, 'successor', o, 'handoff'])
  // The builder's runner writes the end of its harness to the transcript once its script has exited after the report:
  // the transcript is read whole once the builder has ended, so that a read from its cursor can find nothing new.
  await untilActivity(b, 'stopped')
  const t = await api.get(`/api/convs/r1-b-builder-i1/transcript`)
  assert.is(t.status, 200)
  assert.ok(
    t.body.entries.some((e: { kind: string; text: string }) => e.kind === 'stdout' && e.text === 'building'),
    JSON.stringify(t.body.entries),
  )
  assert.equal(await api.get(`/api/convs/r1-b-builder-i1/transcript?cursor=${t.body.cursor}`), {
    status: 200,
    body: { entries: [], cursor: t.body.cursor, more: false },
  })
  assert.equal((await api.get('/api/convs/r1-b-builder-i1/transcript?cursor=0')).body.entries, t.body.entries)

  const judged = `conv ${c} (r1-b-critic-i1) is a critic that has filed its done report; it takes no further messages`
  assert.equal(await api.post(`/api/convs/${c}/tell`, { text: 'look again' }), {
    status: 409,
    body: err('conflict', judged, 'pass --force to send it anyway'),
  })
  const forced = await api.post(`/api/convs/${c}/tell`, { text: 'look again', force: true })
  assert.equal([forced.status, forced.body.delivered], [200, true])
  await until(
    async () =>
      (await api.get(`/api/convs/${c}/transcript`)).body.entries.some(
        (e: { kind: string; text: string }) => e.kind === 'user' && e.text === 'look again',
      ),
    'the told message in the transcript',
  )
  assert.equal(await api.post(`/api/convs/${b}/tell`, { text: 'more' }), {
    status: 409,
    body: err('conflict', `conv ${b} (r1-b-builder-i1) is stopped; the message would not reach it`),
  })
  assert.equal(await api.post('/api/convs/999/tell', { text: 'x' }), {
    status: 404,
    body: err('not_found', 'no conversation 999', 'svc conv list shows the conversations'),
  })
  g.open('c')
  g.open('o')
})

test('needs-you answered over HTTP: a permission, a question (which needs its answer), a plan; a self-marked needs-you has nothing to answer', async () => {
  const BIN = join(ROOT, 'fixtures', 'bin')
  await h.ok(['kernel', 'stop'])
  h.extraEnv = { PATH: `${BIN}:${process.env.PATH}`, FAKE_NODE: process.execPath }
  const id = (
    await h.ok([
      'conv',
      'new',
      '--harness',
      'claude',
      '--model',
      'claude-test-1',
      '--cwd',
      h.home,
      '--prompt',
      'scenario:asks set up storage',
    ])
  ).trim()
  api = kernelApi(h)
  const untilPending = (kind: string) =>
    until(
      async () =>
        (await api.get(`/api/convs/${id}`)).body.pending?.kind === kind
          ? (await api.get(`/api/convs/${id}`)).body
          : undefined,
      `needs-you (${kind})`,
    )

  const perm = await untilPending('permission')
  assert.equal([perm.activity, perm.reason, perm.pending.tool], ['needs-you', 'permission', 'Bash'])
  assert.equal(await api.post(`/api/convs/${id}/answer`, { decision: 'maybe' }), {
    status: 400,
    body: err('usage', 'decision: must be allow or deny'),
  })
  const a1 = await api.post(`/api/convs/${id}/answer`, { decision: 'allow' })
  assert.equal(
    [a1.status, a1.body.answered],
    [200, { id: '1f6c0e9a-perm', kind: 'permission', tool: 'Bash', decision: 'allow' }],
  )

  const q = await untilPending('question')
  assert.is(q.pending.input.questions[0].question, 'Which database should the new service use?')
  assert.equal(await api.post(`/api/convs/c${id}/answer`, { decision: 'allow' }), {
    status: 400,
    body: err('usage', `conv ${id} (c${id}) asks a question: answer it with allow --message <answer>`),
  })
  assert.equal(
    (await api.post(`/api/convs/c${id}/answer`, { decision: 'allow', message: 'Postgres' })).body.answered.kind,
    'question',
  )

  await untilPending('plan')
  assert.equal(
    (await api.post(`/api/convs/${id}/answer`, { decision: 'deny', message: 'smaller steps' })).body.answered,
    { id: '3b8e20c1-plan', kind: 'plan', tool: 'ExitPlanMode', decision: 'deny' },
  )
  await until(async () => (await api.get(`/api/convs/${id}`)).body.activity === 'idle', 'idle')
  assert.equal(await api.post(`/api/convs/${id}/answer`, { decision: 'allow' }), {
    status: 409,
    body: err('conflict', `conv ${id} (c${id}) is idle; it waits on no answer`),
  })
  const said = (await api.get(`/api/convs/${id}/transcript`)).body.entries
    .filter((e: { kind: string }) => e.kind === 'user')
    .map((e: { text: string }) => e.text)
  assert.equal(said.slice(-3), [
    'allow (permission: Bash)',
    'allow (question: AskUserQuestion): Postgres',
    'deny (plan: ExitPlanMode): smaller steps',
  ])

  const marked = await launch({
    key: 'm',
    role: 'builder',
    prompt: `svc conv mark needs-you --reason question\n${g.wait('m')}`,
  })
  const m = marked.body.lane.id
  await untilActivity(m, 'needs-you')
  assert.equal(await api.post(`/api/convs/${m}/answer`, { decision: 'allow' }), {
    status: 409,
    body: err(
      'conflict',
      `conv ${m} (r1-m-builder-i1) marked itself needs-you; it waits on no request the service can answer`,
      `svc tell ${m} "<text>"`,
    ),
  })
  g.open('m')
})

test('GET /api/events: a change event reaches the stream when a lane reports, without asking again', async () => {
  const events = await fetch(`${api.base}/api/events`, { headers: { authorization: `Bearer ${api.token}` } })
  assert.is(events.status, 200)
  assert.is(events.headers.get('content-type'), 'text/event-stream')
  const r = await launch({ key: 'b', role: 'builder', prompt: `${g.wait('1')}\n${buildAndReport('built b')}` })
  assert.is(r.status, 201)
  setTimeout(() => g.open('1'), 200)
  const { found, seen } = await readEvents(events, (e) =>
    e.event === 'change' &&
    JSON.parse(e.data).some((c: { name: string; what: string }) => c.name === 'r1-b-builder-i1' && c.what === 'report')
      ? e
      : undefined,
  )
  assert.ok(found, JSON.stringify(seen))
  assert.is(seen[0].event, 'ready')
  assert.ok(Number(found!.id) > JSON.parse(seen[0].data).last, 'ids grow')
})

test('the door of the real kernel: a foreign Host or Origin is 403, and svc deck gives a one-time link that sets the HttpOnly SameSite=Strict deck session cookie', async () => {
  const hostile = await rawRequest(api.port, {
    path: '/api/lanes',
    headers: { host: 'attacker.example:80', authorization: `Bearer ${api.token}` },
  })
  assert.equal(
    [hostile.status, JSON.parse(hostile.text)],
    [403, err('forbidden', 'host attacker.example is not the loopback')],
  )
  const loopback = await rawRequest(api.port, {
    path: '/api/lanes',
    headers: { host: `localhost:${api.port}`, authorization: `Bearer ${api.token}` },
  })
  assert.is(loopback.status, 200)
  const body = JSON.stringify({ key: 'b', role: 'builder', prompt: 'true', run: 'r1', conversation: s.root })
  const csrf = await rawRequest(api.port, {
    method: 'POST',
    path: '/api/lanes',
    body,
    headers: {
      host: `127.0.0.1:${api.port}`,
      origin: 'http://attacker.example',
      authorization: `Bearer ${api.token}`,
      'content-type': 'application/json',
    },
  })
  assert.equal(
    [csrf.status, JSON.parse(csrf.text)],
    [403, err('forbidden', 'requests from origin http://attacker.example are refused')],
  )
  assert.equal((await api.get('/api/lanes')).body, [], 'the refused launch launched nothing')

  const url = JSON.parse(await h.ok(['deck', '--json', '--no-open'])).url as string
  assert.match(url, new RegExp(`^http://127\\.0\\.0\\.1:${api.port}/deck/login\\?code=[A-Za-z0-9_-]{20,}$`))
  assert.not.match(url, api.token)
  const login = await fetch(url, { redirect: 'manual' })
  assert.is(login.status, 303)
  assert.is(login.headers.get('location'), '/')
  const cookie = login.headers.get('set-cookie')!
  assert.match(
    cookie,
    new RegExp(`^svc_deck_${api.port}=[A-Za-z0-9_-]{43}; Max-Age=43200; Path=/; HttpOnly; SameSite=Strict$`),
  )
  const deck = await fetch(`${api.base}/`, { headers: { cookie: cookie.split(';')[0] } })
  assert.is(deck.status, 200)
  assert.match(await deck.text(), '<title>Command Deck</title>')
  const again = await fetch(url, { redirect: 'manual' })
  assert.equal([again.status, again.headers.get('set-cookie')], [401, null], 'a used link is refused and sets nothing')
  const page = await again.text()
  assert.match(page, '<title>Command Deck: no session</title>', 'a browser gets a page, not a raw error body')
  assert.match(page, 'this deck link was used already or has expired; run svc deck for a new one')
  assert.is((await fetch(`${api.base}/`)).status, 401, 'without the cookie the deck is closed')
})

test.run()
