import type { ConversationRecord } from '../domain/conversation.js'
import { needsYouAsk } from '../domain/needs-you-ask.js'
import { parkedRef } from '../domain/reap.js'
import { tellRefusal } from '../domain/tell-refusal.js'
import { verdictDefects } from '../domain/verdict-defects.js'
import { convFiles } from '../io/home.js'
import { projectEntry } from '../domain/configuration.js'
import type { ConvDetail, ConvDiff, LaneView, PortInput, ReportView } from '../port/port.js'
import type { KernelContext } from './context.js'
import { baseOf } from './project.js'

/** A file of the conversation's directory, or undefined when it is not there. */
const readIf = (ctx: KernelContext, path: string) => ctx.io.files.readText(path).catch(() => undefined)

/** What a conversation's page shows: who it is, what it was asked, what it reported (a verdict with the defects
 * its file lists), what it parked, the chain it belongs to, and whether the composer can reach it. */
export async function convDetail(
  ctx: KernelContext,
  input: PortInput<'convDetail'>,
  lane: (rec: ConversationRecord) => Promise<{ view: LaneView; chain: string } | undefined>,
): Promise<ConvDetail> {
  const rec = ctx.resolve(input.conv)
  const conv = ctx.view(rec)
  const files = convFiles(ctx.home, rec.name)
  const [l, contract, brief, reports, names] = await Promise.all([
    lane(rec),
    readIf(ctx, files.contract),
    readIf(ctx, files.brief),
    ctx.store.reports(rec.name),
    ctx.io.files.entries(files.dir).then(
      (es) => es.map((e) => e.name),
      () => [],
    ),
  ])
  const shown: ReportView[] = await Promise.all(
    reports.map(async (r) => {
      const text = r.verdictFile ? await readIf(ctx, r.verdictFile) : undefined
      if (text === undefined) return r
      const d = verdictDefects(text)
      return { ...r, defectList: d.defects, ...(d.problem ? { defectProblem: d.problem } : {}) }
    }),
  )
  const composer = tellRefusal({ ...rec, activity: conv.activity }, reports)
  return {
    conv,
    ...(l ? { lane: l.view, chain: l.chain } : {}),
    ...(contract !== undefined ? { contract } : {}),
    ...(brief !== undefined ? { brief } : {}),
    reports: shown,
    parked: names
      .filter((n) => /^parked-.+\.patch$/.test(n))
      .sort()
      .map((n) => ({ patch: `${files.dir}/${n}`, ref: parkedRef(rec.name, n) })),
    ...(rec.lane ? { worktree: { cwd: rec.cwd, exists: ctx.io.files.exists(rec.cwd) } } : {}),
    composer: composer.ok ? { enabled: true } : { enabled: false, reason: composer.message },
    ...(conv.activity === 'needs-you' ? { ask: needsYouAsk(conv.pending, conv.reason) } : {}),
  }
}

/** A builder's change against its base (the project's default branch on origin): from its worktree while it
 * exists (uncommitted tracked changes included), else from its branch in the repository. */
export async function convDiff(ctx: KernelContext, input: PortInput<'convDiff'>, maxBytes: number): Promise<ConvDiff> {
  const rec = ctx.resolve(input.conv)
  const l = rec.lane
  if (!l || !l.repo) return { unavailable: `conv ${rec.id} (${rec.name}) has no git worktree` }
  const project = rec.project ? projectEntry(await ctx.config.projects(), rec.project) : undefined
  const base = await baseOf(ctx, project, l.repo)
  if (ctx.io.files.exists(rec.cwd) && (await ctx.io.git.isWorkTree(rec.cwd)))
    return ctx.io.git.diffAgainst(rec.cwd, base, maxBytes)
  if (l.branch) return ctx.io.git.diffAgainst(l.repo, base, maxBytes, l.branch)
  return { unavailable: `the worktree ${rec.cwd} is gone and the lane had no branch` }
}
