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

const Filters = (p: { search?: boolean }) => (
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
    {p.search ? (
      <input
        id="search"
        type="search"
        placeholder="search: id, name, run/key, model, activity (/)"
        aria-label="search"
      />
    ) : null}
    <span id="notify-slot"></span>
    <span id="costs" class="costs muted"></span>
  </div>
)

const DeckPage = () => (
  <Layout title="Command Deck" page="deck">
    <Filters />
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
    <Filters search />
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
            Stop
          </button>
          <span id="reap" hidden>
            <label>
              <input type="checkbox" id="park" /> park uncommitted work
            </label>{' '}
            <label>
              <input type="checkbox" id="keep" /> keep listed
            </label>{' '}
            <button id="reap-go" type="button">
              Reap
            </button>
          </span>
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
