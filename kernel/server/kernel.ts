import type { KernelPort, PortInput } from '../port/port.js'
import type { KernelContext } from '../services/context.js'
import * as conv from '../services/conversations.js'
import { awaitStart } from '../services/await-start.js'
import { laneStart } from '../services/lane-start.js'
import { laneReport } from '../services/lane-report.js'
import { laneWait } from '../services/lane-wait.js'
import { laneList, laneShow, laneViews, laneViewsWithChains } from '../services/lane-list.js'
import { convDetail, convDiff } from '../services/conv-detail.js'
import { deckClientText } from '../io/deck-client.js'
import { laneReap } from '../services/lane-reap.js'
import { GitFactsCache } from '../services/git-facts.js'
import { ChangeLog } from '../services/change-log.js'
import { ViewCache } from '../services/view-cache.js'
import type { DeckTree, LaneView } from '../port/port.js'

/** A lane list or the deck's tree is recomputed at the latest after this long, or at once after any change. */
const LIST_MAX_AGE_MS = 500
/** The patch bytes a diff answers unless asked for more: enough for a review, small enough to draw at once. */
const DIFF_PAGE_BYTES = 200_000
import { deckTree } from '../services/deck.js'
import { DeckAccess } from '../services/deck-access.js'
import { deckSessionsFile } from '../io/deck-sessions-file.js'
import { convAnswer } from '../services/conv-answer.js'
import { doctor } from '../services/doctor.js'
import { issueClose, issueList, issueNew, issueShow } from '../services/issues.js'
import { workerRun } from '../services/worker-run.js'
import { workerReport } from '../services/worker-report.js'
import { workerGet, workerList, workerReap, workerStop, workerWait } from '../services/worker-views.js'
import { readTranscriptPage } from '../io/transcript-page.js'
import { convFiles, homePaths } from '../io/home.js'
import { readHead } from '../io/file-head.js'
import { SvcError } from '../domain/errors.js'
import { hostAdd, hostList, hostRemove, hostShow } from '../services/hosts.js'

/** The kernel's own KernelPort: every verb, in process. */
export function kernelPort(
  ctx: KernelContext,
  opts: { startedAt: number; port: () => number; stop: () => void; gitFacts?: GitFactsCache },
): KernelPort {
  const gitFacts = opts.gitFacts ?? new GitFactsCache(ctx.io)
  const changeLog = new ChangeLog(ctx)
  const lists = new ViewCache<LaneView[]>(ctx, LIST_MAX_AGE_MS, gitFacts)
  const deck = new DeckAccess(
    ctx.io,
    undefined,
    deckSessionsFile(homePaths(ctx.home).deckSessions, (m) => ctx.log('warn', m)),
  )
  const trees = new ViewCache<DeckTree>(ctx, LIST_MAX_AGE_MS, gitFacts)
  return {
    async kernelStatus() {
      return {
        pid: process.pid,
        port: opts.port(),
        version: ctx.version,
        home: ctx.home,
        startedAt: opts.startedAt,
        conversations: ctx.store.size,
      }
    },
    async kernelStop() {
      await ctx.checkAdminister('svc kernel stop')
      setTimeout(opts.stop, 20)
      return { stopping: true }
    },
    convNew: (input) => conv.convNew(ctx, input),
    convList: async (input) => conv.convList(ctx, input),
    convShow: async (input) => ctx.view(ctx.resolve(input.conv)),
    convStop: async (input) => {
      const rec = ctx.resolve(input.conv)
      await ctx.checkCommand(rec, 'svc conv stop')
      return conv.stopConversation(ctx, rec)
    },
    convArchive: async (input) => {
      const rec = ctx.resolve(input.conv)
      await ctx.checkCommand(rec, 'svc conv archive')
      return conv.convArchive(ctx, rec)
    },
    convMark: (input) => conv.convMark(ctx, input),
    convTranscript: async (input: PortInput<'convTranscript'>) =>
      readTranscriptPage(convFiles(ctx.home, ctx.resolve(input.conv).name).transcript, input.cursor),
    tell: (input) => conv.tellAsked(ctx, input),
    convAnswer: (input) => convAnswer(ctx, input),
    doctor: () => doctor(ctx, { version: ctx.version, pid: process.pid, port: opts.port() }),
    successor: (input) => conv.successor(ctx, input),
    convAwaitStart: (input) => awaitStart(ctx, ctx.resolve(input.conv), input.timeoutMs),
    laneStart: (input) => laneStart(ctx, input),
    laneReport: (input) => laneReport(ctx, input),
    laneWait: (input) => laneWait(ctx, input),
    laneList: (input) => lists.get(JSON.stringify(input), (facts) => laneList(ctx, facts, input)),
    laneShow: (input) => laneShow(ctx, gitFacts, input),
    laneGet: async (input) => {
      const rec = ctx.resolveLane(input.lane)
      return (await laneViews(ctx, gitFacts, (r) => r.id === rec.id))[0]
    },
    laneStop: async (input) => {
      const rec = ctx.resolveLane(input.lane)
      await ctx.checkCommand(rec, 'svc lane stop')
      await conv.stopConversation(ctx, rec)
      return (await laneViews(ctx, gitFacts, (r) => r.id === rec.id))[0]
    },
    laneReap: (input) => laneReap(ctx, gitFacts, input),
    changes: (input) => changeLog.since(input.after, input.timeoutMs),
    deckTree: (input) => trees.get(JSON.stringify(input), (facts) => deckTree(ctx, facts, input)),
    convDetail: (input) =>
      convDetail(ctx, input, async (rec) => {
        if (!rec.lane) return undefined
        const read = await laneViewsWithChains(ctx, gitFacts, (r) => r.id === rec.id)
        return { view: read.views[0], chain: read.chains[rec.lane.run][rec.lane.key] }
      }),
    convDiff: (input) => convDiff(ctx, input, input.maxBytes ?? DIFF_PAGE_BYTES),
    convParked: async (input) => {
      const rec = ctx.resolve(input.conv)
      const most = input.maxBytes ?? DIFF_PAGE_BYTES
      const head = await readHead(`${convFiles(ctx.home, rec.name).dir}/${input.patch}`, most)
      if (!head) throw new SvcError('not_found', `conv ${rec.id} (${rec.name}) parked no ${input.patch}`)
      return { patch: input.patch, text: head.text, bytes: head.bytes, truncated: head.bytes > most }
    },
    deckClient: async () => ({ js: await deckClientText() }),
    deckCode: async () => deck.issue(),
    deckRedeem: async (input) => deck.redeem(input.code),
    deckSession: async (input) => deck.check(input.session),
    deckRevoke: async () => {
      // Logging the person out of the deck is the person's: a lane could otherwise lock them out at will.
      await ctx.checkAdminister('svc deck --revoke')
      return deck.revoke()
    },
    issueNew: (input) => issueNew(ctx, input),
    issueList: (input) => issueList(ctx, input),
    issueShow: (input) => issueShow(ctx, input),
    issueClose: (input) => issueClose(ctx, input),
    workerRun: (input) => workerRun(ctx, input),
    workerReport: (input) => workerReport(ctx, input),
    workerWait: (input) => workerWait(ctx, input),
    workerList: (input) => workerList(ctx, input),
    workerGet: (input) => workerGet(ctx, input.worker),
    workerStop: (input) => workerStop(ctx, input),
    workerReap: (input) => workerReap(ctx, gitFacts, input),
    hostAdd: async (input) => {
      await ctx.checkAdminister('svc host add')
      return hostAdd(ctx, input)
    },
    hostList: () => hostList(ctx),
    hostShow: (input) => hostShow(ctx, input.name),
    hostRemove: async (input) => {
      await ctx.checkAdminister('svc host remove')
      return hostRemove(ctx, input.name, { forgetLanes: input.forgetLanes })
    },
  }
}
