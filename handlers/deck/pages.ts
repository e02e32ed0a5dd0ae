import { Hono } from 'hono'
import { costText, laneCells, LIST_COLUMNS, listCells } from '../../kernel/domain/list-columns.js'
import { printable } from '../../kernel/domain/printable.js'
import type { HandlerEnv } from '../env.js'
import { CLIENT } from './client.js'
import { STYLE } from './style.js'

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!)

const shell = (title: string, data: Record<string, string>, body: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)}</title><style>${STYLE}</style></head>
<body ${Object.entries(data).map(([k, v]) => `data-${k}="${esc(v)}"`).join(' ')}>
<header><h1>${esc(title)}</h1><nav><a href="/">Command Deck</a><a href="/agents">Agents</a></nav><span id="status" class="muted"></span></header>
<main>${body}</main>
<script type="module" src="/deck/client.js"></script>
</body></html>`

const treePage = (title: string) =>
  shell(
    title,
    { page: 'deck' },
    `<div class="filters"><label>Run <select id="run"><option value="">all</option></select></label>
<label>Parent <input id="parent" size="8" placeholder="conv id"></label></div>
<div id="costs" class="costs"></div>
<ul id="tree" class="tree"></ul>`,
  )

/** The list's cell rules and the sanitizer of shown text, as a module the deck's browser code imports: the very
 * functions the CLI runs. */
const LIST_COLUMNS_JS = [`export const LIST_COLUMNS = ${JSON.stringify(LIST_COLUMNS)}`, ...[laneCells, listCells, costText, printable].map((f) => `export ${f}`)].join('\n')

/** The Command Deck and the Agents page (the same tree of conversations), and a conversation's page. */
export const deckPages = new Hono<HandlerEnv>()
  .get('/', (c) => c.html(treePage('Command Deck')))
  .get('/agents', (c) => c.html(treePage('Agents')))
  .get('/conv/:ref', (c) =>
    c.html(
      shell('Conversation', { page: 'conv', ref: c.req.param('ref') }, `<h2 id="title"></h2><div id="facts"></div>
<div id="needs" class="panel needs" hidden><strong>Needs you:</strong> <span id="needs-what"></span>
<input id="answer-message" placeholder="message (optional)"> <button id="allow">Allow</button> <button id="deny">Deny</button></div>
<pre id="transcript" class="transcript"></pre>
<form id="composer" class="composer"><textarea id="message" placeholder="Message to this conversation"></textarea><button type="submit">Send</button></form>
<div id="reap" class="panel" hidden><label><input type="checkbox" id="park"> park uncommitted work</label>
<label><input type="checkbox" id="keep"> keep listed</label> <button id="reap-go">Reap</button></div>`),
    ),
  )
  .get('/deck/client.js', (c) => c.body(CLIENT, 200, { 'content-type': 'text/javascript; charset=utf-8' }))
  .get('/deck/list-columns.js', (c) => c.body(LIST_COLUMNS_JS, 200, { 'content-type': 'text/javascript; charset=utf-8' }))
