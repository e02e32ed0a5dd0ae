import { HARNESSES, ROLES } from '../../../kernel/domain/keys.js'
import type { DeckTree } from '../../../kernel/port/port.js'
import { api } from './api.js'
import { fill, h, must } from './dom.js'
import { say } from './live.js'
import { refusalInPageWords } from './words.js'

/** Launched from the page: the same request `svc lane start` and `svc worker run` make, through the same kernel rules,
 * on behalf of the conversation chosen as launcher (what $SERVICE_CONVERSATION is to the CLI). Refusals are the
 * kernel's, in the page's words. */

const value = (sel: string) => must<HTMLInputElement>(sel).value.trim()
const opt = (sel: string) => value(sel) || undefined

/** Who may launch from here: the root conversations and the live orchestrator lanes, as the launch rules allow. */
function launchers(tree: DeckTree) {
  return Object.values(tree.conversations).filter(
    (c) =>
      !c.archived && (c.kind === 'root' || (tree.lanes[c.id]?.role === 'orchestrator' && c.activity !== 'stopped')),
  )
}

/** The launcher choices, kept as chosen across redraws. */
export function fillLaunchers(tree: DeckTree) {
  for (const sel of ['#start-as', '#worker-as']) {
    const select = document.querySelector<HTMLSelectElement>(sel)
    if (!select) continue
    const chosen = select.value
    const options = launchers(tree).map((c) => {
      const l = tree.lanes[c.id]
      return new Option(`#${c.id} ${c.title ?? c.name}${l ? ` (${l.run}/${l.key} orchestrator)` : ''}`, c.id)
    })
    if (JSON.stringify(options.map((o) => o.text)) === select.dataset.shown) continue
    select.dataset.shown = JSON.stringify(options.map((o) => o.text))
    fill(select, options.length ? options : new Option('no conversation can launch: run svc conv new', ''))
    if (options.some((o) => o.value === chosen)) select.value = chosen
  }
}

/** The answer line, with a link to the new conversation's page. */
const started = (line: string, id: string) =>
  fill(must('#start-result'), h('span', {}, line, ' '), h('a', { href: `/conv/${id}` }, 'open'))

async function run(what: () => Promise<void>) {
  try {
    await what()
  } catch (e) {
    const msg = refusalInPageWords((e as Error).message)
    fill(must('#start-result'), h('span', { class: 'error', 'data-refused': '' }, msg))
    say(msg)
  }
}

export function startForms() {
  const role = must<HTMLSelectElement>('#start-role')
  fill(
    role,
    ROLES.map((r) => new Option(r, r)),
  )
  for (const sel of ['#start-harness', '#worker-harness'])
    fill(must(sel), new Option('(the configured one)', ''), ...HARNESSES.map((x) => new Option(x, x)))
  const judge = () => (must('#start-for-field').hidden = !['critic', 'verifier'].includes(role.value))
  role.addEventListener('change', judge)
  judge()
  /** A form sends its request on submit, and shows the answer line or the refusal. */
  const onSubmit = (form: string, send: () => Promise<{ line: string; id: string }>) =>
    must(form).addEventListener('submit', (e) => {
      e.preventDefault()
      void run(async () => {
        const out = await send()
        started(out.line, out.id)
        say(out.line)
      })
    })
  const common = (form: string) => ({
    conversation: value(`#${form}-as`),
    harness: opt(`#${form}-harness`),
    replace: must<HTMLInputElement>(`#${form}-replace`).checked || undefined,
    noWait: true,
  })
  onSubmit('#start-form', async () => {
    const judged = ['critic', 'verifier'].includes(role.value) ? opt('#start-for') : undefined
    const out = await api.launch({
      ...common('start'),
      role: role.value,
      key: judged && role.value === 'critic' ? undefined : opt('#start-key'),
      for: judged,
      run: opt('#start-run'),
      model: opt('#start-model'),
      title: opt('#start-title'),
      prompt: opt('#start-brief'),
    })
    return { line: out.line, id: out.lane.id }
  })
  onSubmit('#worker-form', async () => {
    const out = await api.worker({ ...common('worker'), issue: value('#worker-issue'), prompt: opt('#worker-brief') })
    return { line: out.line, id: out.worker.id }
  })
}
