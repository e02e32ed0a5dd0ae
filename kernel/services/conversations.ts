import { inIdOrder } from '../domain/newest.js'
import {
  convNameFits,
  mayArchive,
  markReasonFits,
  shellHasScript,
  workingDirFits,
  workingDirGiven,
  type ConversationRecord,
  type DirFound,
} from '../domain/conversation.js'
import { SvcError } from '../domain/errors.js'
import { projectListed } from '../domain/projects.js'
import { tellHasText, tellRefusal } from '../domain/tell-refusal.js'
import type { Harness } from '../domain/keys.js'
import type { LaunchSpec, MarkState } from '../domain/runner-state.js'
import { convFiles } from '../io/home.js'
import { projectEntry } from '../domain/configuration.js'
import { isAbsolute, resolve as resolvePath } from '../io/paths.js'
import type { ConvView, PortInput, PortOutputs } from '../port/port.js'
import type { KernelContext } from './context.js'
import { harnessPermissions } from './harness-permissions.js'
import { harnessEnv } from './launch-env.js'
import { newConversationKey } from './conversation-key.js'
import { decided } from './decided.js'

interface NewConversation {
  name?: string
  fallbackName: (id: string, attempt: number) => string
  parent?: string
  successor?: 'handoff' | 'fork'
  lane?: ConversationRecord['lane']
  worker?: ConversationRecord['worker']
  project?: string
  harness: Harness
  model?: string
  effort?: ConversationRecord['effort']
  title?: string
  cwd: string
  firstMessage?: string
  /** Written once into the conversation directory before the record (a lane's brief). */
  files?: Record<string, string>
  /** Of those, the brief a lane or worker is given: the script the shell harness runs (default lane-brief.md). */
  briefFile?: string
  play?: boolean
  resume?: string
}

/** Create a conversation: reserve id and name, write its files, the record (the acknowledged write), then start
 * its runner. Shared by `conv new`, successors and lane starts. */
export async function createConversation(ctx: KernelContext, n: NewConversation): Promise<ConversationRecord> {
  decided(shellHasScript(n.harness, n.firstMessage))
  const { id, name } = await ctx.store.reserve(n.name, n.fallbackName)
  const files = convFiles(ctx.home, name)
  // Every conversation a process drives gets a key, but a play lane, which gets no service context at all.
  const key = n.harness === 'none' || n.play ? undefined : newConversationKey(ctx.io.ids)
  try {
    return await writeConversation(ctx, n, id, name, files, key)
  } catch (e) {
    // Nothing half-written: before the record exists, the reserved directory holds only this call's files.
    if (!ctx.store.get(id)) {
      await ctx.io.files.removeTree(files.dir, { force: true })
      ctx.store.release(name)
    }
    throw e
  }
}

async function writeConversation(
  ctx: KernelContext,
  n: NewConversation,
  id: string,
  name: string,
  files: ReturnType<typeof convFiles>,
  key: { key: string; hash: string } | undefined,
): Promise<ConversationRecord> {
  for (const [file, content] of Object.entries(n.files ?? {}))
    await ctx.io.writes.createFileOnce(`${files.dir}/${file}`, content)
  let script: string | undefined
  // A lane or a worker is given a contract, and runs its brief on the shell harness.
  const directed = Boolean(n.lane || n.worker)
  if (n.harness === 'shell') {
    script = directed ? (n.briefFile ? `${files.dir}/${n.briefFile}` : files.brief) : `${files.dir}/prompt.sh`
    if (!directed) await ctx.io.writes.createFileOnce(script, n.firstMessage ?? '')
  }
  if (n.firstMessage && directed) await ctx.io.writes.createFileOnce(files.contract, n.firstMessage)
  const rec: ConversationRecord = {
    id,
    name,
    createdAt: ctx.io.clock.now(),
    ...(n.parent ? { parent: n.parent } : {}),
    ...(n.successor ? { successor: n.successor } : {}),
    ...(n.lane ? { lane: n.lane } : {}),
    ...(n.worker ? { worker: n.worker } : {}),
    ...(n.project ? { project: n.project } : {}),
    harness: n.harness,
    ...(n.model ? { model: n.model } : {}),
    ...(n.effort ? { effort: n.effort } : {}),
    ...(n.title ? { title: n.title } : {}),
    cwd: n.cwd,
    ...(key ? { keyHash: key.hash } : {}),
  }
  await ctx.store.create(rec)
  ctx.emit({ name, what: 'record' })
  const host = n.lane?.host
  if (host) {
    // On a host its runner runs the brief (a shell lane's script) in the worktree made there; `svc` in it files
    // the lane's report through that runner.
    const brief = n.files?.[n.briefFile ?? 'lane-brief.md'] ?? ''
    await ctx.hostLanes.start(rec, brief, { SERVICE_CONVERSATION: id, SERVICE_HOST: host })
  } else if (n.harness !== 'none') {
    const env = harnessEnv(ctx.io.files, {
      home: ctx.home,
      id,
      svcBinDir: ctx.svcBinDir,
      play: Boolean(n.play),
      extra: n.harness === 'shell' ? { SERVICE_CONTRACT: files.contract, SERVICE_INBOX: files.shellInbox } : undefined,
    })
    const spec: LaunchSpec = {
      id,
      name,
      harness: n.harness,
      cwd: n.cwd,
      model: n.model,
      effort: n.effort,
      ...env,
      firstMessage: n.firstMessage,
      script,
      session: ctx.io.ids.uuid(),
      resume: n.resume,
      play: Boolean(n.play),
      permissions: await harnessPermissions(ctx, { ...n, play: Boolean(n.play) }),
    }
    await ctx.runners.start(rec, spec, key?.key)
  }
  return rec
}

/** What is at a working directory's path, for workingDirFits. */
function dirFound(ctx: KernelContext, dir: string): DirFound {
  if (!isAbsolute(dir)) return 'relative'
  let st
  try {
    st = ctx.io.files.stat(dir)
  } catch {}
  return !st ? 'missing' : st.isDirectory ? 'directory' : 'other'
}

function checkDir(ctx: KernelContext, dir: string): string {
  decided(workingDirFits(dir, dirFound(ctx, dir)))
  return resolvePath(dir)
}

export async function convNew(ctx: KernelContext, input: PortInput<'convNew'>): Promise<ConvView> {
  decided(convNameFits(input.name))
  let cwd = input.cwd
  if (input.project) {
    const { entry } = decided(
      projectListed(input.project, projectEntry(await ctx.config.projects(), input.project), ctx.config.path),
    )
    cwd ??= entry.path
  }
  const { cwd: dir } = decided(workingDirGiven(cwd))
  const rec = await createConversation(ctx, {
    name: input.name,
    fallbackName: (id, attempt) => (attempt ? `c${id}-${attempt}` : `c${id}`),
    project: input.project,
    harness: input.harness ?? 'claude',
    model: input.model,
    effort: input.effort,
    title: input.title,
    cwd: checkDir(ctx, dir),
    firstMessage: input.prompt,
  })
  return ctx.view(rec)
}

export function convList(ctx: KernelContext, input: PortInput<'convList'>): ConvView[] {
  const now = ctx.io.clock.now()
  return ctx.store
    .all()
    .filter((r) => input.all || !r.archived)
    .sort(inIdOrder)
    .map((r) => ctx.view(r, now))
}

/** Stop a conversation through its runner; a conversation that no process drives is simply marked ended. */
export async function stopConversation(
  ctx: KernelContext,
  rec: ConversationRecord,
  limitMs = 10_000,
): Promise<ConvView> {
  const result = rec.lane?.host ? await ctx.hostLanes.stop(rec, limitMs) : await ctx.runners.stop(rec.name, limitMs)
  if (!result.stopped)
    throw new SvcError(
      'conflict',
      `conv ${rec.id} (${rec.name}) is still running after ${Math.round(limitMs / 1000)} s`,
    )
  ctx.facts.invalidate(rec.name)
  const s = ctx.facts.get(rec.name).state
  if (!s?.ended && !rec.ended)
    await ctx.store.update(rec.id, {
      ended: {
        at: ctx.io.clock.now(),
        source: 'stop',
        detail: result.killed ? 'process group killed' : 'no runner left',
      },
    })
  ctx.emit({ name: rec.name, what: 'state' })
  return ctx.view(ctx.store.get(rec.id)!)
}

export async function convArchive(ctx: KernelContext, rec: ConversationRecord): Promise<ConvView> {
  if (rec.archived) return ctx.view(rec)
  decided(mayArchive(rec, ctx.view(rec).activity))
  await ctx.store.update(rec.id, { archived: { at: ctx.io.clock.now() } })
  ctx.emit({ name: rec.name, what: 'record' })
  return ctx.view(ctx.store.get(rec.id)!)
}

export async function convMark(ctx: KernelContext, input: PortInput<'convMark'>): Promise<ConvView> {
  const rec = await ctx.caller(input.conversation, 'svc conv mark')
  await ctx.checkActingAs(rec, input.conversationKey, 'svc conv mark')
  decided(markReasonFits(input.phase, input.reason))
  const mark: MarkState = {
    value: input.phase,
    ...(input.reason ? { reason: input.reason } : {}),
    source: 'self-mark',
    at: ctx.io.clock.now(),
  }
  await ctx.io.writes.writeFileAtomic(convFiles(ctx.home, rec.name).mark, JSON.stringify(mark) + '\n')
  ctx.facts.invalidate(rec.name)
  ctx.emit({ name: rec.name, what: 'state' })
  return ctx.view(rec)
}

/** `svc tell` as a caller asked it: who tells is the conversation named, else the one whose process tree calls (a
 * lane with $SERVICE_CONVERSATION unset is not the person); only the person and the target's launcher chain may
 * tell it. */
export async function tellAsked(ctx: KernelContext, input: PortInput<'tell'>): Promise<PortOutputs['tell']> {
  const from = await ctx.actingAs(input.conversation, input.conversationKey, 'svc tell')
  await ctx.checkCommand(ctx.resolve(input.conv), 'svc tell')
  return tell(ctx, { conv: input.conv, text: input.text, force: input.force, conversation: from?.id })
}

/** A message into a conversation's inbox, from `conversation` (none: the person, or the kernel itself). */
export async function tell(ctx: KernelContext, input: PortInput<'tell'>): Promise<PortOutputs['tell']> {
  const rec = ctx.resolve(input.conv)
  decided(tellHasText(input.text))
  const v = ctx.view(rec)
  decided(tellRefusal({ ...rec, activity: v.activity }, await ctx.store.reports(rec.name), input.force))
  if (rec.lane?.host) await ctx.hostLanes.tell(rec, input.text)
  await ctx.io.writes.appendLine(
    convFiles(ctx.home, rec.name).inbox,
    JSON.stringify({ at: ctx.io.clock.now(), from: input.conversation ?? null, text: input.text }),
  )
  return { delivered: true, conv: v }
}

export async function successor(ctx: KernelContext, input: PortInput<'successor'>): Promise<ConvView> {
  const source = await ctx.caller(input.conversation, `svc ${input.kind}`)
  await ctx.checkActingAs(source, input.conversationKey, `svc ${input.kind}`)
  const harness = input.harness ?? source.harness
  const sourceSession = ctx.facts.get(source.name).state?.session
  const rec = await createConversation(ctx, {
    fallbackName: (id, attempt) => (attempt ? `c${id}-${attempt}` : `c${id}`),
    parent: source.id,
    successor: input.kind,
    project: source.project,
    harness,
    model: input.model ?? source.model,
    effort: source.effort,
    cwd: source.cwd,
    firstMessage: input.prompt,
    resume: input.kind === 'fork' && harness === source.harness ? sourceSession : undefined,
  })
  return ctx.view(rec)
}
