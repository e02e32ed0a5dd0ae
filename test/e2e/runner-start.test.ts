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
const parent = (pid: number) => Number(/^PPid:\s*(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1])
/** The home's runner: the first process above a lane's supervisor that runs the runner's entry. */
function homeRunner(pid: number): number | undefined {
  for (let p = parent(pid), up = 0; p > 1 && up < 4; p = parent(p), up++)
    if (cmdline(p).some((a) => a.endsWith('runner-main.js'))) return p
  return undefined
}

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
  // The lane's runner in the kernel's records is its supervisor; the home's runner, which drives it, is above it.
  assert.ok(environ(runner).includes(`SERVICE_HOME=${h.service}`), 'the lane’s supervisor is this home’s')
  const home = homeRunner(runner)
  assert.ok(home, 'the home’s runner drives the lane’s supervisor')
  // The supervisor is no Node process: what it is given is the harness's environment, certificates included.
  assert.not.ok(
    environ(home!).some((v) => v.startsWith('NODE_EXTRA_CA_CERTS=')),
    'the runner reads no certificate at its start',
  )
  assert.equal(cmdline(home!).slice(1), [join(ROOT, 'dist', 'cli', 'runner-main.js'), 'serve'])
  await h.ok(['lane', 'stop', name])
})

test('a runner started other than as the kernel starts it says so on one line', () => {
  const r = spawnSync(process.execPath, [join(ROOT, 'dist', 'cli', 'runner-main.js')], {
    env: h.env(),
    encoding: 'utf8',
  })
  assert.is(r.stderr, 'svc: the runner is started by the kernel, as `serve`\n')
  assert.is(r.status, 1)
})

test.run()
