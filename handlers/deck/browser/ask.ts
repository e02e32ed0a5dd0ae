import { askText, type NeedsYouAsk } from '../../../kernel/domain/needs-you-ask.js'
import { api } from './api.js'
import { fill, h } from './dom.js'
import { refusalInPageWords } from './words.js'

/** How long an Allow of a permission waits, with Undo beside it, before it is sent: letting a tool run is the answer
 * that cannot be taken back. */
export const UNDO_MS = 3000

/** Who is being answered, as the words after an answer name it. */
export interface Asker {
  id: string
  name: string
}

/** What the ask is about, once: the detail below (the question, the plan, the tool and its input) is not repeated. */
const askHead = (a: NeedsYouAsk) =>
  a.kind === 'mark' ? askText(a) : `${a.kind}${a.kind === 'permission' || a.tool ? ` for ${a.tool}` : ''}`

/** What a needs-you conversation asks, with the answer controls right there: a question's options as buttons (the
 * chosen one is the answer's message), Allow and Deny with an optional message for a permission or a plan, and for a
 * self-marked wait a field whose text is sent to it as a message (on a conversation's page, its composer is that
 * field). An Allow of a permission is sent after UNDO_MS unless undone. `sending` hears that an answer is on its
 * way (the kernel may say the conversation waits no more before its reply comes back); `done` hears what was said,
 * naming for whom, or why it was refused. */
export function askPanel(
  who: Asker,
  ask: NeedsYouAsk,
  done: (msg: string, answered: boolean) => void,
  ids = false,
  sending: (msg: string) => void = () => {},
) {
  const id = (name: string) => (ids ? name : undefined)
  const whom = `#${who.id} ${who.name}`
  const message = h('input', {
    class: 'answer-message',
    id: id('answer-message'),
    placeholder: 'message (optional)',
    'aria-label': 'answer message',
  })
  const send = async (decision: 'allow' | 'deny', text?: string) => {
    sending(`answering ${decision} to ${whom} (${askText(ask)})`)
    try {
      await api.answer(who.id, decision, text || message.value || undefined)
      done(`answered ${decision} to ${whom} (${askText(ask)})`, true)
    } catch (e) {
      done(refusalInPageWords((e as Error).message), false)
    }
  }
  const controls = h('div', { class: 'answer' })
  const answerRow = () =>
    fill(
      controls,
      message,
      h('button', { class: 'allow', id: id('allow'), onclick: () => allow() }, 'Allow'),
      h('button', { class: 'deny', id: id('deny'), onclick: () => void send('deny') }, 'Deny'),
    )
  /** A permission's Allow waits with Undo in its place (Enter again on it undoes, never confirms). */
  const allow = () => {
    if (ask.kind !== 'permission') return void send('allow')
    const timer = setTimeout(() => void send('allow'), UNDO_MS)
    const undo = h(
      'button',
      {
        class: 'undo',
        'data-undo': '',
        onclick: () => {
          clearTimeout(timer)
          answerRow()
          done(`not sent: the allow to ${whom} was undone`, false)
        },
      },
      'Undo',
    )
    fill(
      controls,
      h(
        'span',
        { class: 'pending-answer', 'data-pending': 'allow' },
        `Allowing ${ask.tool}${ask.input ? `: ${ask.input}` : ''} for ${whom} in ${UNDO_MS / 1000} s `,
      ),
      undo,
    )
    undo.focus()
  }
  answerRow()
  const markField = h('input', {
    class: 'mark-answer',
    'data-mark-answer': '',
    placeholder: `answer ${whom} with a message`,
    'aria-label': `message to ${whom}`,
  })
  const tell = async (e: Event) => {
    e.preventDefault()
    if (!markField.value.trim()) return
    sending(`sending to ${whom}: ${markField.value}`)
    try {
      await api.tell(who.id, markField.value)
      done(`sent to ${whom}: ${markField.value}`, true)
      markField.value = ''
    } catch (err) {
      done(refusalInPageWords((err as Error).message), false)
    }
  }
  const detail =
    ask.kind === 'question'
      ? ask.questions.map((q) =>
          h(
            'div',
            { class: 'question' },
            h('div', { class: 'q-text', 'data-question': '' }, q.header ? `${q.header}: ${q.question}` : q.question),
            h(
              'div',
              { class: 'options' },
              q.options.map((o) =>
                h(
                  'button',
                  {
                    class: 'option',
                    'data-option': o.label,
                    title: o.description,
                    onclick: () => send('allow', o.label),
                  },
                  o.label,
                ),
              ),
            ),
          ),
        )
      : ask.kind === 'plan'
        ? h('pre', { class: 'plan', 'data-plan': '' }, ask.plan)
        : ask.kind === 'permission'
          ? h(
              'div',
              { class: 'permission' },
              h('span', { class: 'chip tool', 'data-tool': ask.tool }, ask.tool),
              ' ',
              h('code', { class: 'tool-input' }, ask.input),
            )
          : null
  return h(
    'div',
    { class: 'ask', 'data-ask': ask.kind },
    h('div', { class: 'needs-what', id: id('needs-what') }, askHead(ask)),
    detail,
    ask.kind !== 'mark'
      ? controls
      : ids
        ? null
        : h('form', { class: 'answer', onsubmit: tell }, markField, h('button', { type: 'submit' }, 'Send')),
  )
}
