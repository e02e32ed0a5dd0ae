import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { rmSync } from 'node:fs'
import { closeDeckWorld, deckLink, openDeckWorld, shot, WAIT, type DeckWorld } from '../helpers/deck-browser.js'
import { projectOnHosts } from '../helpers/host-project.js'
import { SshHosts } from '../helpers/ssh-hosts.js'

/** A lane on another host on the Command Deck (issue 27), on a real host (Debian's sshd in a network namespace): its
 * row shows the git facts read there (branch at its head, ahead, dirty) as a lane here shows its own, and while its
 * host does not answer its run counts it as host-lost, apart from the lanes at work, until the host is back. */

type World = DeckWorld & { rig: SshHosts; shared: string }
const hosts = suite<World>('deck hosts')

hosts.before(async (w) => {
  w.rig = await SshHosts.make(['a'])
  // A host silent for 1.5 s is lost; the link tries again within 0.1-0.4 s.
  await openDeckWorld(w, 'browser-hosts', {
    SERVICE_TEST_BUILD: '1',
    SERVICE_TEST_HOST_LOST_MS: '1500',
    SERVICE_TEST_HOST_RECONNECT_MS: '100',
    SERVICE_TEST_HOST_RECONNECT_MAX_MS: '400',
  })
  w.shared = await projectOnHosts(w.rig, w.h, w.s, ['a'])
})
hosts.after(async (w) => {
  w.rig?.freeze('a', false)
  await closeDeckWorld(w)
  await w.rig?.cleanup()
  if (w.shared) rmSync(w.shared, { recursive: true, force: true })
})

const count = (w: World, k: string) => w.page.locator(`[data-run="r1"] [data-count="${k}"]`)

hosts(
  'a lane on a host: its git facts on its row; counted host-lost while its host is frozen, then at work',
  async (w) => {
    // One commit pushed, one not, and a file not added: ahead 1 and dirty, then at work until stopped.
    const brief = [
      'echo one > one.txt && git add one.txt && git commit -qm one && git push -q -u origin HEAD 2>/dev/null',
      'echo two > two.txt && git add two.txt && git commit -qm two',
      'echo x > x.txt',
      'while true; do sleep 0.1; done',
    ].join('\n')
    const start = await w.h.svc(
      ['lane', 'start', '--run', 'r1', '--key', 'k', '--role', 'builder', '--prompt', brief],
      {
        env: w.s.env,
      },
    )
    assert.is(start.code, 0, start.stderr)
    const id = /: conv (\d+) /.exec(start.stdout)![1]
    await w.page.goto(await deckLink(w))
    const row = w.page.locator(`li[data-id="${id}"] > .row`)
    const git = row.locator('[data-git]')
    await git.filter({ hasText: 'ahead 1 dirty yes' }).waitFor(WAIT)
    const head = w.rig.as('a', `git -C ${w.rig.host('a').home}/svc-lanes/sample/r1-k rev-parse HEAD`).trim()
    assert.is((await git.textContent())!.trim(), `r1/k@${head.slice(0, 7)} ahead 1 dirty yes`)
    await count(w, 'working').filter({ hasText: '1 working' }).waitFor(WAIT)
    assert.is((await count(w, 'host-lost').textContent())!.trim(), '0 host-lost')

    w.rig.freeze('a', true)
    await count(w, 'host-lost').filter({ hasText: '1 host-lost' }).waitFor(WAIT)
    assert.is((await count(w, 'working').textContent())!.trim(), '0 working')
    assert.is(await count(w, 'host-lost').getAttribute('class'), 'count count-host-lost')
    assert.is(await row.locator('[data-activity]').getAttribute('data-activity'), 'host-lost')
    // What was last read there stays shown, as of then.
    assert.is((await git.textContent())!.trim(), `r1/k@${head.slice(0, 7)} ahead 1 dirty yes`)
    await shot(w, 'deck-host-lost.png')

    w.rig.freeze('a', false)
    await count(w, 'working').filter({ hasText: '1 working' }).waitFor(WAIT)
    assert.is((await count(w, 'host-lost').textContent())!.trim(), '0 host-lost')
  },
)

hosts.run()
