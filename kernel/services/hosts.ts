import { SvcError } from '../domain/errors.js'
import {
  CONNECT_TIMEOUT_S,
  DEFAULT_REMOTE_LANES_ROOT,
  givenUpLine,
  hostFound,
  hostKeyAlias,
  hostRemovable,
  planHostAdd,
  probeScript,
  readProbe,
  sshOptions,
  type HostEntry,
  type HostRemoved,
  type HostView,
  type Hosts,
  type SshPlaces,
} from '../domain/hosts.js'
import { homePaths } from '../io/home.js'
import { KeyedQueue } from '../queue/serial.js'
import type { KernelContext } from './context.js'
import { decided } from './decided.js'

/** Changes of hosts.yaml, one at a time. */
const writes = new KeyedQueue()

/** The service's own ssh files for this home. */
export const places = (ctx: Pick<KernelContext, 'home' | 'io'>): SshPlaces => ({
  knownHosts: homePaths(ctx.home).knownHosts,
  controlDir: ctx.io.hosts.controlDir(ctx.home),
})

const hostsFile = (ctx: KernelContext) => ctx.io.hosts.file(homePaths(ctx.home).hosts)

export const readHosts = (ctx: KernelContext): Promise<Hosts> => hostsFile(ctx).read()

function view(ctx: KernelContext, name: string, entry: HostEntry): HostView {
  const key = ctx.io.hosts.recordedHostKey(homePaths(ctx.home).knownHosts, hostKeyAlias(name))
  return {
    name,
    ssh: entry.ssh,
    lanesRoot: entry.lanes_root ?? DEFAULT_REMOTE_LANES_ROOT,
    ...(entry.identity ? { identity: entry.identity } : {}),
    ...(key ? { hostKey: ctx.io.hosts.keyFingerprint(key) } : {}),
  }
}

/** Run `script` on the host through its master connection (made on first use); `learn` records a first host key. */
export async function onHost(
  ctx: KernelContext,
  name: string,
  entry: HostEntry,
  script: string,
  opts: { learn?: boolean; timeoutMs?: number; input?: string } = {},
) {
  const timeoutMs = opts.timeoutMs ?? ctx.io.timing('HOST_PROBE_MS', CONNECT_TIMEOUT_S * 1000 + 10_000)
  return ctx.io.hosts.runSsh([...sshOptions(name, entry, places(ctx), opts), script], {
    timeoutMs,
    input: opts.input,
  })
}

/** Ask the host what it is: its facts, or the one line saying why it did not answer. */
async function probe(ctx: KernelContext, name: string, entry: HostEntry, learn = false): Promise<HostView> {
  const answer = await onHost(ctx, name, entry, probeScript(ctx.io.hosts.hostRunnerFile().hash), { learn })
  const read = readProbe(name, entry, homePaths(ctx.home).knownHosts, answer)
  const base = view(ctx, name, entry)
  if (read.ok) return { ...base, facts: read.facts }
  return { ...base, problem: { message: read.message, ...(read.hint ? { hint: read.hint } : {}) } }
}

const problemError = (p: NonNullable<HostView['problem']>) => new SvcError('unavailable', p.message, p.hint)

/** `svc host add`: checked, then reached once (its key recorded, or checked against the one given), and only then
 * written to hosts.yaml: a host that cannot be reached is not added. */
export function hostAdd(
  ctx: KernelContext,
  input: { name: string; ssh: string; lanesRoot?: string; identity?: string; hostKey?: string },
): Promise<HostView> {
  return writes.run('hosts', async () => {
    const hosts = await readHosts(ctx)
    const { entry } = decided(planHostAdd(hosts, input))
    const known = homePaths(ctx.home).knownHosts
    const alias = hostKeyAlias(input.name)
    if (input.hostKey) await ctx.io.hosts.recordHostKey(known, alias, input.hostKey.trim())
    else await ctx.io.hosts.forgetHostKey(known, alias)
    const seen = await probe(ctx, input.name, entry, !input.hostKey)
    if (seen.problem) {
      await ctx.io.hosts.forgetHostKey(known, alias)
      throw problemError(seen.problem)
    }
    await hostsFile(ctx).write({ ...hosts, [input.name]: entry })
    ctx.log('info', `host ${input.name} added: ${entry.ssh} (key ${seen.hostKey ?? 'unknown'})`)
    return seen
  })
}

export async function hostList(ctx: KernelContext): Promise<HostView[]> {
  const hosts = await readHosts(ctx)
  return Object.entries(hosts).map(([name, entry]) => view(ctx, name, entry))
}

/** `svc host show`: the entry, and what the host answers now. */
export async function hostShow(ctx: KernelContext, name: string): Promise<HostView> {
  const { entry } = decided(hostFound(await readHosts(ctx), name))
  return probe(ctx, name, entry)
}

/** Every host probed at once (svc doctor), each with its answer or its problem. */
export async function probeHosts(ctx: KernelContext): Promise<HostView[]> {
  const hosts = await readHosts(ctx)
  return Promise.all(Object.entries(hosts).map(([name, entry]) => probe(ctx, name, entry)))
}

/** `svc host remove`: refused while a lane's worktree is there (hostRemovable), unless `forgetLanes` gives those
 * worktrees up (a host gone for good); then its master connection closed, its key forgotten, its entry gone. */
export function hostRemove(
  ctx: KernelContext,
  name: string,
  opts: { forgetLanes?: boolean } = {},
): Promise<HostRemoved> {
  return writes.run('hosts', async () => {
    const hosts = await readHosts(ctx)
    const { entry } = decided(hostFound(hosts, name))
    if (!opts.forgetLanes) decided(hostRemovable(name, ctx.hostLanes.placedOn(name)))
    const gone = view(ctx, name, entry)
    ctx.hostLanes.forget(name)
    // Given up before the entry goes: a kernel ended between the two leaves a host that removes at once next time.
    const gaveUp = opts.forgetLanes ? await ctx.hostLanes.giveUp(name) : []
    if (gaveUp.length) ctx.log('warn', givenUpLine(name, gaveUp))
    await closeMaster(ctx, name, entry)
    const rest = { ...hosts }
    delete rest[name]
    await hostsFile(ctx).write(rest)
    await ctx.io.hosts.forgetHostKey(homePaths(ctx.home).knownHosts, hostKeyAlias(name))
    ctx.log('info', `host ${name} removed`)
    return { ...gone, ...(gaveUp.length ? { gaveUp } : {}) }
  })
}

/** End the master connection of a host, if one runs. */
export async function closeMaster(ctx: KernelContext, name: string, entry: HostEntry): Promise<void> {
  await ctx.io.hosts.runSsh(['-O', 'exit', ...sshOptions(name, entry, places(ctx))], { timeoutMs: 5_000 })
}

/** The kernel stopping: every host's master connection with it. */
export async function closeMasters(ctx: KernelContext): Promise<void> {
  let hosts: Hosts
  try {
    hosts = await readHosts(ctx)
  } catch {
    return
  }
  await Promise.all(Object.entries(hosts).map(([name, entry]) => closeMaster(ctx, name, entry)))
}
