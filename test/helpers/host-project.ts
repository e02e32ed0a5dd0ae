import { execFileSync } from 'node:child_process'
import { chmodSync, cpSync, mkdtempSync } from 'node:fs'
import { join } from 'node:path'
import { writeProjectsYaml } from '../../cli/demo/sample-project.js'
import type { TestHome } from './home.js'
import type { Setup } from './project.js'
import type { SshHosts } from './ssh-hosts.js'

/** The sample project made ready for lanes on the rig's hosts: its origin copied where every host's user reaches it
 * (the test home is private to root), each host's git identity, builders run with the shell harness on the first
 * host, and every host added to svc. Returns the directory that holds the origin, for the test to remove. */
export async function projectOnHosts(rig: SshHosts, h: TestHome, s: Setup, names: string[]): Promise<string> {
  const shared = mkdtempSync('/srv/svc-test-origin-')
  chmodSync(shared, 0o755)
  const origin = join(shared, 'sample-origin.git')
  cpSync(s.project.origin, origin, { recursive: true })
  execFileSync('chmod', ['-R', 'a+rwX', origin])
  execFileSync('git', ['-C', s.project.checkout, 'remote', 'set-url', 'origin', origin])
  for (const name of names)
    rig.as(
      name,
      `git config --global user.name ${name} && git config --global user.email ${name}@example.com && git config ` +
        `--global safe.directory '*'`,
    )
  writeProjectsYaml(h.service, s.project, {
    gauntlet: { host: names[0], roles: { builder: { model: 'm', harness: 'shell' } } },
  })
  for (const name of names) {
    const add = await h.svc(['host', 'add', name, '--ssh', rig.host(name).ssh, '--identity', rig.host(name).identity])
    if (add.code !== 0) throw new Error(`svc host add ${name}: ${add.stderr}`)
  }
  return shared
}
