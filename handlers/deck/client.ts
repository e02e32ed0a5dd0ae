/** The deck's browser code: draws the tree from /api/tree and redraws on each server-sent change. */
export const CLIENT = String.raw`
import { LIST_COLUMNS, costText, laneCells, printable } from '/deck/list-columns.js'
const $ = (s, el = document) => el.querySelector(s)
// Shown text is made printable first (no control or bidirectional character reaches the page), then HTML-escaped.
const esc = (s, keepLines = false) => printable(String(s ?? ''), keepLines).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c])
const ago = (t) => { const s = Math.max(0, Math.round((Date.now() - t) / 1000)); return s < 60 ? s + 's' : s < 3600 ? Math.floor(s / 60) + 'm' : Math.floor(s / 3600) + 'h' }
const money = (c) => c ? costText(c) : ''
/** A lane's cells by list column, made by the rules the CLI's list uses. */
const cellsOf = (lane) => { const v = laneCells(lane); return Object.fromEntries(LIST_COLUMNS.map((c, i) => [c, v[i]])) }
async function api(path, opts) {
  const res = await fetch(path, { credentials: 'same-origin', headers: { 'content-type': 'application/json' }, ...opts })
  const body = await res.json().catch(() => ({}))
  if (!res.ok) throw new Error(body.error ? body.error.message : 'HTTP ' + res.status)
  return body
}
function activityChip(view) {
  const e = view.evidence
  const label = view.archived ? 'archived' : view.activity + (view.reason ? ' (' + view.reason + ')' : '')
  const ev = e ? e.source + (e.detail ? ': ' + e.detail : '') + ', ' + ago(e.at) + ' ago' : ''
  return '<span class="chip activity-' + esc(view.archived ? 'archived' : view.activity) + '" data-activity="' + esc(view.activity) + '" title="' + esc(ev) + '">' + esc(label) + '</span> <span class="muted evidence">' + esc(ev) + '</span>'
}
function verdictBadge(lane, link) {
  const v = lane.verdict
  if (!v) return ''
  const text = esc(cellsOf(lane).VERDICT)
  const cls = 'badge verdict-' + esc(v.value) + (v.stale ? ' stale' : '')
  const title = v.stale ? 'stale: the branch moved past the judged commit' : 'judged ' + esc((v.judged || '').slice(0, 7))
  return link ? '<a class="' + cls + '" data-verdict-link="' + esc(v.by) + '" href="/conv/' + esc(v.by) + '" title="' + title + '">' + text + '</a>' : '<span class="' + cls + '" data-verdict="' + esc(v.value) + '" title="' + title + '">' + text + '</span>'
}
function gitCell(l) {
  const { 'BRANCH@SHA': at, AHEAD: ahead, DIRTY: dirty } = cellsOf(l)
  if (at === '-') return ''
  return '<span class="muted git" data-git="' + esc(at) + '">' + esc(at + (ahead !== '-' ? ' ahead ' + ahead : '') + (dirty !== '-' ? ' dirty ' + dirty : '')) + '</span>'
}
function row(tree, node) {
  const c = tree.conversations[node.id]
  const l = tree.lanes[node.id]
  const w = tree.workers && tree.workers[node.id]
  const parts = ['<span class="id">#' + esc(node.id) + '</span>', '<span class="name"><a href="/conv/' + esc(node.id) + '">' + esc(c.name) + '</a></span>']
  if (node.continues) parts.push('<span class="continues" data-continues="' + esc(node.continues) + '">continues ← #' + esc(node.continues) + '</span>')
  if (l) {
    parts.push('<span class="chip role" data-role="' + esc(l.role) + '">' + esc(l.role) + ' i' + l.iteration + '</span>')
    parts.push('<span class="muted">' + esc(l.run + '/' + l.key) + '</span>')
  } else if (w) {
    parts.push('<span class="chip role" data-role="worker">worker i' + w.iteration + '</span>')
    const issue = esc(w.issue)
    parts.push(w.url && /^https?:/.test(w.url) ? '<a class="issue" data-issue="' + issue + '" href="' + esc(w.url) + '">' + issue + '</a>' : '<span class="issue" data-issue="' + issue + '">' + issue + '</span>')
  } else parts.push('<span class="chip">' + esc(c.kind) + '</span>')
  parts.push(activityChip(l || c))
  if (w) parts.push('<span class="report" data-report="' + esc(w.report ? w.report.status : '') + '">' + esc(w.report ? 'report: ' + w.report.status : 'no report') + '</span>')
  if (l) {
    parts.push('<span class="report" data-report="' + esc(l.report ? l.report.status : '') + '">' + esc(l.report ? 'report: ' + l.report.status : 'no report') + '</span>')
    parts.push(gitCell(l))
    parts.push(verdictBadge(l, l.role === 'builder'))
  }
  if (c.model) parts.push('<span class="muted">' + esc(c.model) + '</span>')
  if (c.cost) parts.push('<span class="muted cost">' + money(c.cost) + '</span>')
  if (tree.costPerOrchestrator[node.id] !== undefined) parts.push('<span class="muted orch-cost" data-orch-cost="' + tree.costPerOrchestrator[node.id].toFixed(2) + '">orchestrator total $' + tree.costPerOrchestrator[node.id].toFixed(2) + '</span>')
  const kids = node.children.length ? '<ul>' + node.children.map((n) => row(tree, n)).join('') + '</ul>' : ''
  return '<li data-id="' + esc(node.id) + '" data-kind="' + esc(c.kind) + '"><div class="row">' + parts.join(' ') + '</div>' + kids + '</li>'
}
async function drawTree() {
  const params = new URLSearchParams(location.search)
  const q = new URLSearchParams()
  if (params.get('run')) q.set('run', params.get('run'))
  if (params.get('parent')) q.set('parent', params.get('parent'))
  const tree = await api('/api/tree' + (q.toString() ? '?' + q : ''))
  const runSel = $('#run')
  if (runSel && runSel.options.length <= 1) for (const r of tree.runs) runSel.add(new Option(r, r, false, r === params.get('run')))
  if ($('#parent') && document.activeElement !== $('#parent')) $('#parent').value = params.get('parent') || ''
  $('#costs').innerHTML = Object.entries(tree.costPerRun).map(([r, c]) => '<span data-run-cost="' + esc(r) + '">run ' + esc(r) + ': $' + c.toFixed(2) + '</span>').join(' · ')
  $('#tree').innerHTML = tree.roots.map((n) => row(tree, n)).join('') || '<li class="muted">no conversations</li>'
  document.body.dataset.drawn = String(Date.now())
}
/** What a needs-you conversation waits on: the tool and its input (a question's questions, a plan), or, when it
 * marked itself needs-you, that a message from the composer is the answer. */
function pendingText(c) {
  const p = c.pending
  if (!p) return 'it marked itself needs-you' + (c.reason ? ' (' + c.reason + ')' : '') + ': answer with a message below'
  const input = p.input || {}
  const detail = Array.isArray(input.questions) ? input.questions.map((q) => q.question).join(' / ') : input.plan || input.command || (Object.keys(input).length ? JSON.stringify(input) : '')
  return p.kind + (p.tool ? ' for ' + p.tool : '') + (detail ? ': ' + detail : '')
}
async function drawConv(ref) {
  const c = await api('/api/convs/' + encodeURIComponent(ref))
  const lane = c.lane ? await api('/api/lanes/' + encodeURIComponent(c.id)).catch(() => null) : null
  $('#title').textContent = '#' + c.id + ' ' + c.name
  $('#facts').innerHTML = activityChip(lane || c) + ' <span class="muted">' + esc(c.harness + ' ' + (c.model || '') + ' ' + money(c.cost)) + '</span>' +
    (lane ? ' <span class="chip">' + esc(lane.run + '/' + lane.key + ' ' + lane.role + ' i' + lane.iteration) + '</span>' +
      (lane.for ? ' <span class="muted">for ' + esc(cellsOf(lane).FOR) + '</span>' : '') +
      ' <span class="report" data-report="' + esc(lane.report ? lane.report.status : '') + '">' + esc(lane.report ? 'report: ' + lane.report.status : 'no report') + '</span> ' +
      gitCell(lane) + ' ' + verdictBadge(lane, lane.role === 'builder') : '')
  const needs = c.activity === 'needs-you'
  $('#needs').hidden = !needs
  $('#needs-what').textContent = needs ? pendingText(c) : ''
  for (const el of [$('#allow'), $('#deny'), $('#answer-message')]) el.hidden = !c.pending
  $('#reap').hidden = !lane || lane.archived
  await drawTranscript(ref)
  document.body.dataset.drawn = String(Date.now())
}
const entryHtml = (e) => '<div class="t-' + esc(e.kind) + '" data-kind="' + esc(e.kind) + '">' + esc(new Date(e.at).toISOString().slice(11, 19) + ' ' + e.kind + ' ' + e.text, true) + '</div>'
/** The transcript is fetched once from its last page, then only what follows the cursor the kernel last gave:
 * each change costs a page at most, however long the transcript. Draws run one after another. */
let transcriptCursor
let transcriptDrawn = Promise.resolve()
function drawTranscript(ref) {
  transcriptDrawn = transcriptDrawn.catch(() => {}).then(async () => {
    for (;;) {
      const t = await api('/api/convs/' + encodeURIComponent(ref) + '/transcript' + (transcriptCursor === undefined ? '' : '?cursor=' + transcriptCursor))
      if (t.entries.length) $('#transcript').insertAdjacentHTML('beforeend', t.entries.map(entryHtml).join(''))
      const moved = t.cursor !== transcriptCursor
      transcriptCursor = t.cursor
      if (!t.more || !moved) break
    }
  })
  return transcriptDrawn
}
function live(draw) {
  let timer
  const redraw = () => { clearTimeout(timer); timer = setTimeout(() => draw().catch((e) => ($('#status').textContent = e.message)), 100) }
  const es = new EventSource('/api/events')
  es.addEventListener('change', redraw)
  // A (re)connected stream may have missed changes: redraw on ready too.
  es.addEventListener('ready', () => { document.body.dataset.live = 'yes'; redraw() })
  es.addEventListener('error', () => { document.body.dataset.live = 'no' })
  redraw()
}
const page = document.body.dataset.page
if (page === 'deck') {
  live(drawTree)
  $('#run').addEventListener('change', (e) => { const p = new URLSearchParams(location.search); e.target.value ? p.set('run', e.target.value) : p.delete('run'); location.search = p })
  $('#parent').addEventListener('change', (e) => { const p = new URLSearchParams(location.search); e.target.value ? p.set('parent', e.target.value) : p.delete('parent'); location.search = p })
}
if (page === 'conv') {
  const ref = document.body.dataset.ref
  live(() => drawConv(ref))
  $('#composer').addEventListener('submit', async (e) => {
    e.preventDefault()
    const text = $('#message').value
    try { await api('/api/convs/' + encodeURIComponent(ref) + '/tell', { method: 'POST', body: JSON.stringify({ text }) }); $('#message').value = ''; $('#status').textContent = 'sent' }
    catch (err) { $('#status').textContent = err.message }
  })
  for (const d of ['allow', 'deny']) $('#' + d).addEventListener('click', async () => {
    try { await api('/api/convs/' + encodeURIComponent(ref) + '/answer', { method: 'POST', body: JSON.stringify({ decision: d, message: $('#answer-message').value || undefined }) }); $('#status').textContent = 'answered ' + d }
    catch (err) { $('#status').textContent = err.message }
  })
  $('#reap-go').addEventListener('click', async () => {
    try {
      const r = await api('/api/lanes/' + encodeURIComponent(ref) + '/reap', { method: 'POST', body: JSON.stringify({ park: $('#park').checked, keep: $('#keep').checked }) })
      $('#status').textContent = 'reaped' + (r.parked ? '; parked to ' + r.parked.patch : '') + (r.archiveError ? '; ' + r.archiveError : '') + (r.warnings.length ? '; ' + r.warnings.join('; ') : '')
    } catch (err) { $('#status').textContent = err.message }
  })
}
`
