import { execFileSync, spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { alive, pidsOfUser, SVC_MAIN } from './home.js'

/** A user of this machine that is not root, made for one suite, so that its kernel runs as people run it: its home
 * under /home (outside /tmp), removed with the user when the suite's process ends. */
export interface OtherUser {
  name: string
  uid: number
  gid: number
  home: string
}

const PREFIX = 'svcu'

const tryRun = (cmd: string, args: string[]) => spawnSync(cmd, args, { stdio: 'ignore' })

/** The user and every process it still has, whatever is left of them. */
function removeUser(name: string, uid: number): void {
  for (let i = 0; i < 20; i++) {
    const left = pidsOfUser(uid)
    if (!left.length) break
    for (const pid of left)
      try {
        process.kill(pid, 'SIGKILL')
      } catch {}
    execFileSync('sleep', ['0.05'])
  }
  tryRun('userdel', ['-r', '-f', name])
}

/** Users left by a suite whose process is gone: the name holds the creator's pid (base 36). */
function sweepLeftovers(): void {
  for (const line of readFileSync('/etc/passwd', 'utf8').split('\n')) {
    const m = new RegExp(`^(${PREFIX}([0-9a-z]+)):[^:]*:(\\d+):`).exec(line)
    if (m && !alive(parseInt(m[2], 36))) removeUser(m[1], Number(m[3]))
  }
}

/** A new user that is not root, or why none can be made here (not root, not Linux, the build not readable by a user
 * that is not its owner). */
export function makeOtherUser(): OtherUser | { problem: string } {
  if (process.platform !== 'linux') return { problem: 'not Linux' }
  if (process.getuid?.() !== 0) return { problem: 'only root can make a user for the suite' }
  sweepLeftovers()
  const name = `${PREFIX}${process.pid.toString(36)}`
  const home = `/home/${name}`
  // '*': no password; the suite reaches the user through its own processes only.
  const made = spawnSync(
    'useradd',
    ['--create-home', '--home-dir', home, '--shell', '/bin/bash', '--password', '*', name],
    {
      encoding: 'utf8',
    },
  )
  if (made.status !== 0) return { problem: `useradd: ${(made.stderr || made.error?.message || '').trim()}` }
  const id = (flag: string) => Number(execFileSync('id', [flag, name], { encoding: 'utf8' }).trim())
  const user = { name, uid: id('-u'), gid: id('-g'), home }
  process.once('exit', () => removeUser(user.name, user.uid))
  const readable = spawnSync(process.execPath, [SVC_MAIN, '--version'], { uid: user.uid, gid: user.gid })
  if (readable.status !== 0) {
    removeUser(user.name, user.uid)
    return { problem: `${SVC_MAIN} cannot be run by a user that is not root (${readable.stderr?.toString().trim()})` }
  }
  return user
}
