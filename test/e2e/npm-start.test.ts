import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { spawn } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { ROOT, TestHome } from '../helpers/home.js'

// `npm start` (dist/cli/start.js): with no project configured it makes the sample project and runs the whole
// demonstration, a gauntlet and a worker, through svc's commands (the lanes run the real `svc`); SERVICE_START_EXIT=1
// makes it exit when done.

let h: TestHome

test.before.each(() => {
  h = new TestHome('npm-start')
})

test.after.each(async () => {
  await h.stop()
})

function start(env: NodeJS.ProcessEnv): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(ROOT, 'dist', 'cli', 'start.js')], {
      env,
      cwd: h.home,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => (stdout += d))
    child.stderr.on('data', (d) => (stderr += d))
    const timer = setTimeout(() => child.kill('SIGKILL'), 240_000)
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve({ code: code ?? -1, stdout, stderr })
    })
  })
}

test('npm start: the sample project, the demonstration gauntlet and worker, then exit 0; the configuration as it was', async () => {
  const r = await start(h.env({ SERVICE_START_EXIT: '1', SERVICE_DEMO_PACE: '0.01' }))
  assert.is(r.code, 0, r.stderr)
  const lines = r.stdout.trimEnd().split('\n')
  assert.match(lines[0], /^kernel pid \d+ on 127\.0\.0\.1:\d+ \(home .+\)$/)
  assert.match(lines[1], /^Command Deck: http:\/\/127\.0\.0\.1:\d+\//)
  assert.is(lines[2], `no project configured: creating a sample project in ${join(h.service, 'sample')}`)
  assert.match(
    lines.at(-1)!,
    /^demonstration over: run demo-[a-z0-9]+, \d+ reports waited on by cursor; a worker on local:1 reported done$/,
  )
  assert.ok(
    lines.some((l) => /^report from demo-[a-z0-9]+\/all verifier i1: /.test(l)),
    'the gauntlet reached its verifier',
  )
  // The pace reaches the lanes through their briefs (a lane's environment is the service's, not its starter's).
  const run = /run (demo-[a-z0-9]+)/.exec(lines.at(-1)!)![1]
  const brief = readFileSync(join(h.service, 'agents', `conv-${run}-parser-builder-i1`, 'lane-brief.md'), 'utf8')
  assert.match(brief, '\nsleep 0.02\n', 'SERVICE_DEMO_PACE scales the pauses of the lanes')
  assert.ok(existsSync(join(h.service, 'sample', 'sample', '.git')), 'the sample checkout stays')
  assert.not.ok(existsSync(join(h.service, 'projects.yaml')), 'no projects.yaml before, none after')
})

test.run()
