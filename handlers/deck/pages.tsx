import { Hono } from 'hono'
import type { Child } from 'hono/jsx'
import type { HandlerEnv } from '../env.js'
import { toErrorResponse } from '../errors.js'
import { raw } from 'hono/html'
import { STYLE } from './style.js'

/** The deck's pages, server-rendered with hono/jsx (every value escaped by construction). The pages are the frame;
 * the browser code (/deck/client.js, compiled from handlers/deck/browser/) fills it from the API and keeps it live. */

const Layout = (p: { title: string; page: string; dataRef?: string; children: Child }) => (
  <html lang="en">
    <head>
      <meta charset="utf-8" />
      <meta name="viewport" content="width=device-width, initial-scale=1" />
      <title>{p.title}</title>
      <style>{raw(STYLE)}</style>
    </head>
    <body data-page={p.page} data-ref={p.dataRef}>
      <header>
        <h1>{p.title}</h1>
        <nav>
          <a href="/" class={p.page === 'deck' ? 'here' : undefined}>
            Command Deck
          </a>
          <a href="/agents" class={p.page === 'agents' ? 'here' : undefined}>
            Agents
          </a>
        </nav>
        <span id="conn" class="conn" data-conn="connecting" title="connecting to the kernel">
          connecting
        </span>
        <span id="status" class="status" role="status" aria-live="polite"></span>
        <span class="keys muted" title="j/k move · Enter open · a answer · / search · c composer · u back">
          j k ↵ a / c u
        </span>
      </header>
      <main>
        <div id="conn-banner" class="conn-banner" role="alert" hidden></div>
        {p.children}
      </main>
      <script type="module" src="/deck/client.js"></script>
    </body>
  </html>
)

const Filters = (p: { hideFinished?: boolean }) => (
  <div class="filters">
    <label>
      Run{' '}
      <select id="run">
        <option value="">all</option>
      </select>
    </label>
    <label>
      Parent <input id="parent" size={8} placeholder="conv id" />
    </label>
    <input
      id="search"
      type="search"
      placeholder="search: id, name, title, run/key, model, activity (/)"
      aria-label="search"
    />
    {p.hideFinished ? (
      <label>
        <input type="checkbox" id="hide-finished" /> hide finished
      </label>
    ) : null}
    <span id="notify-slot"></span>
    <span id="costs" class="costs muted"></span>
  </div>
)

/** A labelled control of the start forms. */
const Field = (p: { name: string; id?: string; wide?: boolean; children: Child }) => (
  <label id={p.id} class={p.wide ? 'wide' : undefined}>
    {p.name} {p.children}
  </label>
)

/** What both start forms ask: who launches, the harness, the brief, and whether to replace a live one. */
const Launch = (p: { form: 'start' | 'worker'; brief: string; rows: number; children: Child }) => (
  <>
    <Field name="as">
      <select id={`${p.form}-as`} required></select>
    </Field>
    {p.children}
    <Field name="harness">
      <select id={`${p.form}-harness`}></select>
    </Field>
    <Field name="brief" wide>
      <textarea id={`${p.form}-brief`} rows={p.rows} placeholder={p.brief}></textarea>
    </Field>
    <label>
      <input type="checkbox" id={`${p.form}-replace`} /> replace the live one
    </label>
  </>
)

/** Start work from the page: a lane (svc lane start) or a worker on an issue (svc worker run). */
const StartPanel = () => (
  <details id="start" class="panel start">
    <summary>Start a lane or a worker</summary>
    <div class="start-forms">
      <form id="start-form" class="start-form" aria-label="start a lane">
        <h3>A lane</h3>
        <Launch form="start" brief="What the lane is to do" rows={3}>
          <Field name="role">
            <select id="start-role"></select>
          </Field>
          <Field name="key">
            <input id="start-key" size={12} placeholder="e.g. parser" />
          </Field>
          <Field name="judging builder" id="start-for-field">
            <input id="start-for" size={12} placeholder="builder key" />
          </Field>
          <Field name="run">
            <input id="start-run" size={10} placeholder="run key" />
          </Field>
          <Field name="model">
            <input id="start-model" size={14} placeholder="(the role's)" />
          </Field>
          <Field name="title">
            <input id="start-title" size={18} />
          </Field>
        </Launch>
        <button type="submit">Start lane</button>
      </form>
      <form id="worker-form" class="start-form" aria-label="run a worker on an issue">
        <h3>A worker on an issue</h3>
        <Launch form="worker" brief="(the issue's text)" rows={2}>
          <Field name="issue">
            <input id="worker-issue" size={16} required placeholder="local:3 or gh:owner/repo#3" />
          </Field>
        </Launch>
        <button type="submit">Run worker</button>
      </form>
    </div>
    <p id="start-result" class="start-result" role="status"></p>
  </details>
)

const DeckPage = () => (
  <Layout title="Command Deck" page="deck">
    <Filters hideFinished />
    <StartPanel />
    <section class="panel inbox" aria-labelledby="inbox-title">
      <h2 id="inbox-title">
        Needs you{' '}
        <span id="inbox-count" class="count-badge">
          0
        </span>
      </h2>
      <div id="inbox"></div>
    </section>
    <div id="runs" class="runs"></div>
  </Layout>
)

const AgentsPage = () => (
  <Layout title="Agents" page="agents">
    <Filters />
    <ul id="tree" class="tree"></ul>
  </Layout>
)

const ConvPage = (p: { ref: string }) => (
  <Layout title="Conversation" page="conv" dataRef={p.ref}>
    <h2 id="title"></h2>
    <div id="facts" class="facts"></div>
    <div id="needs" class="panel needs" hidden>
      <strong>Needs you</strong>
      <div id="needs-body"></div>
    </div>
    <div class="grid">
      <div class="col">
        <div id="chain" class="chain-line"></div>
        <div id="worktree" class="worktree"></div>
        <h3>Reports</h3>
        <div id="reports"></div>
        <div id="parked"></div>
        <div id="diff-panel" class="panel" hidden>
          <h3>
            Change against its base{' '}
            <button id="diff-load" type="button">
              Load the change
            </button>
          </h3>
          <div id="diff"></div>
        </div>
        <div id="contract"></div>
      </div>
      <div class="col">
        <h3>Transcript</h3>
        <pre id="transcript" class="transcript"></pre>
        <form id="composer" class="composer">
          <textarea id="message" placeholder="Message to this conversation (c)"></textarea>
          <button type="submit">Send</button>
        </form>
        <p id="composer-reason" class="muted"></p>
        <div class="panel actions">
          <button id="stop" type="button" hidden>
            Stop…
          </button>
          <button
            id="respawn"
            type="button"
            hidden
            title="a new conversation in the same directory, with the same brief"
          >
            Respawn in its directory
          </button>
          <button id="archive" type="button" hidden>
            Archive
          </button>
          <span id="reap" class="reap" hidden>
            <label>
              <input type="checkbox" id="park" /> park uncommitted work
            </label>{' '}
            <label>
              <input type="checkbox" id="keep" /> keep listed
            </label>{' '}
            <button id="reap-go" type="button" class="danger">
              Reap…
            </button>
          </span>
        </div>
        <div id="confirm" class="panel confirm" role="alertdialog" aria-labelledby="confirm-what" hidden>
          <p id="confirm-what"></p>
          <button id="confirm-cancel" type="button">
            Cancel
          </button>{' '}
          <button id="confirm-go" type="button" class="danger"></button>
        </div>
      </div>
    </div>
  </Layout>
)

/** What a browser without a (live) deck session sees instead of the deck: why, and what to run. */
const SessionPage = (p: { message: string }) => (
  <html lang="en">
    <head>
      <meta charset="utf-8" />
      <title>Command Deck: no session</title>
      <style>{raw(STYLE)}</style>
    </head>
    <body data-page="session">
      <header>
        <h1>Command Deck</h1>
      </header>
      <main>
        <section class="panel session" data-session-lost="">
          <h2>This browser has no deck session</h2>
          <p data-reason="">{p.message}</p>
          <p>
            Run <code>svc deck</code> in a terminal and open the link it prints (it starts the kernel when none is
            running). A link works once, for two minutes.
          </p>
        </section>
      </main>
    </body>
  </html>
)

/** The page a browser sees on a deck page without a session, or with a spent link, as an HTML response. */
export const sessionPage = (message: string) => '<!doctype html>' + String(<SessionPage message={message} />)

/** The Command Deck, the Agents page, a conversation's page, and the browser code they load. */
export const deckPages = new Hono<HandlerEnv>()
  .get('/', (c) => c.html(<DeckPage />))
  .get('/agents', (c) => c.html(<AgentsPage />))
  .get('/conv/:ref', (c) => c.html(<ConvPage ref={c.req.param('ref')} />))
  .get('/deck/client.js', async (c) => {
    try {
      const { js } = await c.env.port.deckClient({})
      return c.body(js, 200, { 'content-type': 'text/javascript; charset=utf-8' })
    } catch (e) {
      const { body, status } = toErrorResponse(e)
      return c.json(body, status)
    }
  })
