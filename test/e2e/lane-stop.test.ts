import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { readFileSync } from 'node:fs'
import { convFiles } from '../../kernel/io/home.js'
import { TestHome, until } from '../helpers/home.js'
import { rpc } from '../helpers/activity.js'
import { setupProject } from '../helpers/project.js'

/** What a stop answers: the lane's end as the runner that drove it tells it. */

let h: TestHome
test.after(() => h?.stop())

test('a stop answers with the runner’s account of the end, also when the runner hears of the harness’s end late', async () => {
  h = new TestHome('lane-stop')
  // The home's runner acts on a harness's end 400 ms late, as one busy with other lanes can: the stop's group is
  // gone before the runner has written how the lane ended.
  h.extraEnv = { SERVICE_TEST_BUILD: '1', SERVICE_TEST_EXIT_NOTICE_MS: '400' }
  const s = await setupProject(h)
  const line = await h.ok(
    ['lane', 'start', '--run', 'r1', '--key', 'k', '--role', 'play', '--prompt', 'exec sleep 60'],
    {
      env: s.env,
    },
  )
  const name = /conv \d+ \(([^)]+)\)/.exec(line)![1]
  const state = () => JSON.parse(readFileSync(convFiles(h.service, name).state, 'utf8'))
  await until(() => state().harness?.pid, 'the harness to run')
  const port = await h.port()
  await port.laneStop({ lane: name })
  const v = await rpc(h, 'convShow', { conv: name })
  assert.equal([v.activity, v.evidence.source], ['stopped', 'stop (SIGTERM)'])
  assert.is(state().ended?.source, 'stop (SIGTERM)', 'the runner wrote the end the stop answered with')
})

test.run()
