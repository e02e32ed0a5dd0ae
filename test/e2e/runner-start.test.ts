import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { spawnSync } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { convFiles } from '../../kernel/io/home.js'
import { ROOT, TestHome, until, written } from '../helpers/home.js'
import { setupProject } from '../helpers/project.js'

/** How a lane's runner starts: from an entry of its own, without what only its harness needs. */

let h: TestHome
test.after(() => h?.stop())

const environ = (pid: number) => readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0')
const cmdline = (pid: number) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean)

test('a lane’s harness gets the kernel’s NODE_EXTRA_CA_CERTS, its runner starts without it and without the CLI', async () => {
  h = new TestHome('runner-start')
  // An empty file: Node finds no certificate in it and says nothing of it.
  const certs = join(h.home, 'extra-certs.pem')
  writeFileSync(certs, '')
  h.extraEnv = { NODE_EXTRA_CA_CERTS: certs }
  const s = await setupProject(h)
  const seen = join(h.home, 'harness-certs')
  const script = `echo "$NODE_EXTRA_CA_CERTS" > ${seen}.part && mv ${seen}.part ${seen}\nexec sleep 60`
  const line = await h.ok(['lane', 'start', '--run', 'r1', '--key', 'c', '--role', 'builder', '--prompt', script], {
    env: s.env,
  })
  const name = /conv \d+ \(([^)]+)\)/.exec(line)![1]
  await written(seen, 'the harness to write what it was given')
  assert.is(readFileSync(seen, 'utf8'), `${certs}\n`)
  const runner: number = await until(
    () => JSON.parse(readFileSync(convFiles(h.service, name).state, 'utf8')).runner?.pid,
    'the runner to publish its pid',
  )
  assert.ok(environ(runner).includes(`SERVICE_HOME=${h.service}`), 'the runner is this home’s')
  assert.not.ok(
    environ(runner).some((v) => v.startsWith('NODE_EXTRA_CA_CERTS=')),
    'the runner reads no certificate at its start',
  )
  assert.not.ok(cmdline(runner).includes(join(ROOT, 'dist', 'cli', 'main.js')), 'the runner loads none of the CLI')
  await h.ok(['lane', 'stop', name])
})

test('a runner started without its conversation’s name says so on one line', () => {
  const r = spawnSync(process.execPath, [join(ROOT, 'dist', 'cli', 'runner-main.js')], {
    env: h.env(),
    encoding: 'utf8',
  })
  assert.is(r.stderr, 'svc: a runner needs the name of its conversation\n')
  assert.is(r.status, 1)
})

test.run()
