import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { HostLink } from '../../kernel/services/host-link.js'
import type { LinkState } from '../../kernel/domain/host-stream.js'
import { until } from '../helpers/home.js'

/** The link's liveness as the kernel reads it (issue 27), with ssh and the clock given by the test: a host silent for
 * the lost limit is host-lost, with evidence (when it was last heard, and ssh's words once the link is down); each
 * change of state is told once; and an answering host is up again, its evidence gone. Real hosts: e2e/hosts-faults. */

const T0 = 1_700_000_000_000

function rig() {
  let now = T0
  const states: LinkState[] = []
  const streams: { onLine: (l: string) => void; onClose: (why: string) => void; sent: string[] }[] = []
  const link = new HostLink(
    'a',
    { ssh: 'u@198.18.0.2' },
    { knownHosts: '/nonexistent/known_hosts', controlDir: '/nonexistent/control' },
    {
      runSsh: async () => ({ code: 0, stdout: 'have\nnode=v20.0.0\n', stderr: '' }),
      openLineStream: (_args, onLine, onClose) => {
        const s = { onLine, onClose, sent: [] as string[] }
        streams.push(s)
        return { send: (l) => s.sent.push(l), close: () => {} }
      },
      runnerFile: () => ({ text: '', hash: 'h' }),
      readHeld: () => 0,
      writeHeld: async () => {},
      now: () => now,
      log: () => {},
      reconnectMs: { firstMs: 10, maxMs: 10 },
      lostAfterMs: 200,
      onState: (s) => states.push(s),
    },
    async () => {},
  )
  const hello = () =>
    streams.at(-1)!.onLine(JSON.stringify({ t: 'hello', version: '1', runner: 'h', pid: 7, last: 0, acked: 0 }))
  return { link, states, streams, hello, advance: (ms: number) => (now += ms), now: () => now }
}

/** A link whose host has answered once (up), closed after `body` whatever it does. */
async function upLink(body: (r: ReturnType<typeof rig>) => Promise<void>) {
  const r = rig()
  r.link.start()
  try {
    await until(() => r.streams.length === 1, 'the stream opened')
    r.hello()
    await body(r)
  } finally {
    r.link.close()
  }
}

test('a silent host is host-lost with its evidence, then up again once it answers; each change told once', () =>
  upLink(async (r) => {
    assert.equal(r.states, ['up'])
    assert.is(r.link.lostEvidence(), undefined)

    // Nothing heard for 31 s while connected (a frozen host, a cut link): lost, no reason known yet.
    r.advance(31_000)
    await until(() => r.states.length === 2, 'the loss told')
    assert.equal(r.states, ['up', 'host-lost'])
    assert.equal(r.link.lostEvidence(), { source: 'host a', at: T0, detail: 'no answer for 31 s' })

    // ssh gives up: its words join the evidence; still lost (not told again) while it tries again.
    r.streams[0].onClose('ssh exited 255: Timeout, server not responding')
    assert.equal(r.link.lostEvidence(), {
      source: 'host a',
      at: T0,
      detail: 'no answer for 31 s; ssh exited 255: Timeout, server not responding',
    })
    await until(() => r.streams.length === 2, 'a new stream after the reconnect delay')
    assert.equal(r.states, ['up', 'host-lost'])

    // It answers: up at once, the evidence gone.
    r.hello()
    assert.equal(r.states, ['up', 'host-lost', 'up'])
    assert.is(r.link.lostEvidence(), undefined)
    assert.is(r.link.state, 'up')
  }))

test('a beat heard before the limit keeps the host up: no loss is told', () =>
  upLink(async (r) => {
    for (let i = 0; i < 5; i++) {
      r.advance(150)
      r.streams[0].onLine(JSON.stringify({ t: 'beat', last: 0 }))
      assert.is(r.link.state, 'up')
      assert.is(r.link.lostEvidence(), undefined)
    }
    // The barrier: silence past the limit is told as the first change, so no loss was told while the beats came.
    r.advance(250)
    await until(() => r.states.length === 2, 'the loss told')
    assert.equal(r.states, ['up', 'host-lost'])
  }))

test.run()
