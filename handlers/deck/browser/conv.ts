import { clockTime, costText } from '../../../kernel/domain/format.js'
import type { ConvDetail, ReportView } from '../../../kernel/port/port.js'
import { api, ApiError } from './api.js'
import { askPanel } from './ask.js'
import { fill, h, must, type Child } from './dom.js'
import { live, say } from './live.js'
import { markdown } from './md.js'
import { activityChip, cellsOf, gitCell, reportCell, verdictBadge } from './rows.js'
import { transcript } from './transcript.js'
import { diffPanel, kbOf, patchView } from './diff.js'
import { actions } from './conv-actions.js'
import { isLive } from '../../../kernel/domain/activity.js'

function facts(d: ConvDetail, now: number): Child[] {
  const { conv: c, lane } = d
  return [
    activityChip(lane ?? c, now),
    h('span', { class: 'muted' }, [c.harness, c.model, c.cost ? costText(c.cost) : ''].filter(Boolean).join(' ')),
    lane
      ? [
          h('span', { class: 'chip' }, `${lane.run}/${lane.key} ${lane.role} i${lane.iteration}`),
          lane.for ? h('span', { class: 'muted' }, `for ${cellsOf(lane).FOR}`) : null,
          reportCell(lane),
          gitCell(lane),
          verdictBadge(lane, lane.role === 'builder'),
        ]
      : null,
  ]
}

function report(r: ReportView, stale: boolean) {
  return h(
    'article',
    { class: `report-card status-${r.status}`, 'data-report-seq': r.seq },
    h(
      'header',
      {},
      h('span', { class: `chip report-${r.status}`, 'data-status': r.status }, r.status),
      h('span', { class: 'muted' }, `report ${r.seq} at ${clockTime(r.at)}`),
      r.branch || r.head
        ? h('span', { class: 'muted' }, `${r.branch ?? '(detached)'}@${(r.head ?? '-').slice(0, 7)}`)
        : null,
    ),
    r.verdict
      ? h(
          'div',
          { class: 'verdict' },
          h(
            'span',
            { class: `badge verdict-${r.verdict}${stale ? ' stale' : ''}`, 'data-verdict': r.verdict },
            `${r.verdict} ${r.defects ?? 0}`,
          ),
          stale
            ? h('span', { class: 'stale-mark', 'data-stale': '' }, 'stale: the builder moved past the judged commit')
            : null,
          r.judged ? h('span', { class: 'muted' }, `judged ${r.judged.slice(0, 7)}`) : null,
          r.verdictFile ? h('span', { class: 'muted', 'data-verdict-file': '' }, r.verdictFile) : null,
          r.defectList
            ? h(
                'ol',
                { class: 'defects' },
                r.defectList.map((d) => h('li', { 'data-defect': '' }, d)),
              )
            : null,
          r.defectProblem ? h('p', { class: 'error' }, r.defectProblem) : null,
        )
      : null,
    h('div', { class: 'report-body', 'data-report-body': '' }, markdown(r.body)),
  )
}

/** Sections redrawn only when what they show changes: an open fold or a typed answer survives a redraw. */
const shown = new Map<string, string>()
function section(sel: string, value: unknown, draw: () => Child) {
  const sig = JSON.stringify(value)
  if (shown.get(sel) === sig) return
  shown.set(sel, sig)
  fill(must(sel), draw())
}

/** A conversation's page: what happened here, and what a person can do about it. */
export function convPage(ref: string) {
  const composer = must<HTMLFormElement>('#composer')
  const message = must<HTMLTextAreaElement>('#message')
  let current: ConvDetail | undefined
  const draw = async () => {
    let d: ConvDetail
    try {
      d = await api.detail(ref)
    } catch (e) {
      // No such conversation (or no valid reference): nothing here takes a message or an action.
      if (e instanceof ApiError && e.status >= 400 && e.status < 500 && e.status !== 401) unknown(e.message)
      throw e
    }
    const { conv: c, lane } = d
    const now = Date.now()
    document.title = `#${c.id} ${c.name}`
    fill(must('#title'), `#${c.id} ${c.name}${c.title ? ` · ${c.title}` : ''}`)
    fill(must('#facts'), facts(d, now))
    must('#needs').hidden = !d.ask
    section('#needs-body', d.ask ?? null, () => (d.ask ? askPanel(c, d.ask, (msg) => say(msg), true) : null))
    section('#chain', d.chain ?? null, () =>
      d.chain ? [h('span', { class: 'muted' }, 'chain '), h('span', { 'data-chain': '' }, d.chain)] : null,
    )
    section('#worktree', [d.worktree, lane?.git, lane?.branch], () =>
      d.worktree
        ? [
            h('span', { class: 'muted' }, 'worktree '),
            h('code', {}, d.worktree.cwd),
            d.worktree.exists ? null : h('span', { class: 'chip' }, 'removed'),
            lane?.git
              ? h(
                  'span',
                  { class: 'muted' },
                  ` upstream ${lane.git.upstream ?? '-'}, ahead ${lane.git.ahead ?? '-'}, behind ` +
                    `${lane.git.behind ?? '-'}, ${lane.git.dirty ? 'dirty' : 'clean'}`,
                )
              : null,
          ]
        : null,
    )
    section('#reports', [d.reports, lane?.verdict?.stale], () =>
      d.reports.length
        ? d.reports
            .slice()
            .reverse()
            .map((r) => report(r, Boolean(r.verdict && lane?.verdict?.stale)))
        : h('p', { class: 'muted empty' }, 'no report yet'),
    )
    section('#parked', d.parked, () =>
      d.parked.length
        ? [
            h('h3', {}, 'Parked patches'),
            h(
              'ul',
              {},
              d.parked.map((p) => {
                const shown = h('div', { class: 'parked-view' })
                const name = p.patch.split('/').at(-1)!
                const view = async () => {
                  try {
                    const got = await api.parked(ref, name)
                    fill(
                      shown,
                      patchView(got.text, { 'data-parked-patch': name }),
                      got.truncated
                        ? h('p', { class: 'more' }, `showing the first ${kbOf(got.text.length)} of ${kbOf(got.bytes)}`)
                        : null,
                    )
                  } catch (e) {
                    say((e as Error).message)
                  }
                }
                return h(
                  'li',
                  { 'data-parked': '' },
                  h('code', {}, p.patch),
                  ' ',
                  h('span', { class: 'muted' }, p.ref),
                  ' ',
                  h('button', { type: 'button', 'data-view-parked': name, onclick: () => void view() }, 'view'),
                  shown,
                )
              }),
            ),
          ]
        : null,
    )
    section('#contract', [d.contract, d.brief], () => [
      d.brief !== undefined ? h('details', { class: 'fold' }, h('summary', {}, 'Brief'), markdown(d.brief)) : null,
      d.contract !== undefined
        ? h('details', { class: 'fold' }, h('summary', {}, 'Contract'), h('pre', { class: 'contract' }, d.contract))
        : null,
    ])
    must('#diff-panel').hidden = !lane || lane.role === 'play'
    message.disabled = !d.composer.enabled
    composer.querySelector('button')!.disabled = !d.composer.enabled
    fill(must('#composer-reason'), d.composer.reason ?? '')
    current = d
    const running = isLive(c.activity)
    must('#stop').hidden = !running
    must('#reap').hidden = !lane || lane.archived
    must('#archive').hidden = running || c.archived
    must('#respawn').hidden =
      !lane || running || lane.archived || lane.report?.status === 'done' || d.brief === undefined
    await transcript(ref)
    document.body.dataset.drawn = String(Date.now())
  }
  const unknown = (why: string) => {
    message.disabled = true
    composer.querySelector('button')!.disabled = true
    fill(must('#composer-reason'), `nothing to send to: ${why}`)
    fill(must('#title'), why)
    for (const sel of ['#stop', '#reap', '#archive', '#respawn', '#diff-panel']) must(sel).hidden = true
    document.body.dataset.unknown = 'yes'
  }
  // Until the page knows the conversation, its composer sends nothing.
  message.disabled = true
  composer.querySelector('button')!.disabled = true
  live(draw)
  diffPanel(ref)
  composer.addEventListener('submit', async (e) => {
    e.preventDefault()
    try {
      await api.tell(ref, message.value)
      message.value = ''
      say('sent')
    } catch (err) {
      say((err as Error).message)
    }
  })
  actions(ref, () => current)
}
