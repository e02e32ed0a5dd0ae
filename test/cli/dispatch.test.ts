import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { mkdirSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { dispatch } from '../../cli/dispatch.js'
import type { Io } from '../../cli/io.js'
import type { KernelPort } from '../../kernel/port/port.js'
import { scratchDir } from '../helpers/home.js'

const BASE = scratchDir('cli-dispatch')
test.after(() => rmSync(BASE, { recursive: true, force: true }))

/** An Io that keeps what is written, with SERVICE_HOME set to `home`. */
function memoryIo(home: string): Io & { outText: () => string; errText: () => string } {
  let out = ''
  let err = ''
  return {
    out: (t) => (out += t),
    err: (t) => (err += t),
    env: { SERVICE_HOME: home },
    cwd: home,
    isTTY: false,
    readStdin: async () => '',
    outText: () => out,
    errText: () => err,
  }
}

/** A port whose every method fails as an unexpected error would. */
const failingPort = (e: unknown) => new Proxy({} as KernelPort, { get: () => async () => Promise.reject(e) })

test('an unexpected error is one line naming where its details were kept, never a stack trace', async () => {
  const home = join(BASE, 'svc')
  mkdirSync(home, { recursive: true })
  const io = memoryIo(home)
  const boom = new TypeError("Cannot read properties of undefined (reading 'toFixed')")
  const code = await dispatch(['conv', 'list'], io, failingPort(boom))
  assert.is(code, 1)
  const log = join(home, 'cli.log')
  assert.is(
    io.errText(),
    `svc: internal error: Cannot read properties of undefined (reading 'toFixed') (details in ${log})\n`,
  )
  assert.is(io.outText(), '')
  assert.match(readFileSync(log, 'utf8'), boom.stack!, 'the stack is kept in the log')
})

test('a thrown value that is no Error, with no service home to log in, is still one line', async () => {
  const io = memoryIo(join(BASE, 'absent'))
  assert.is(await dispatch(['conv', 'list'], io, failingPort('a string\nwith a second line')), 1)
  assert.is(io.errText(), 'svc: internal error: a string\\nwith a second line\n')
})

test.run()
