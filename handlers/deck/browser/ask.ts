import { askText, type NeedsYouAsk } from '../../../kernel/domain/needs-you-ask.js'
import { api } from './api.js'
import { h } from './dom.js'

/** What a needs-you conversation asks, with the answer controls right there: a question's options as buttons (the
 * chosen one is the answer's message), Allow and Deny with an optional message for a permission or a plan, and for a
 * self-marked wait, the composer's message is the answer. `done` says what happened. */
export function askPanel(ref: string, ask: NeedsYouAsk, done: (msg: string) => void, ids = false) {
  const id = (name: string) => (ids ? name : undefined)
  const message = h('input', {
    class: 'answer-message',
    id: id('answer-message'),
    placeholder: 'message (optional)',
    'aria-label': 'answer message',
  })
  const answer = async (decision: 'allow' | 'deny', text?: string) => {
    try {
      await api.answer(ref, decision, text || message.value || undefined)
      done(`answered ${decision}`)
    } catch (e) {
      done((e as Error).message)
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
                    onclick: () => answer('allow', o.label),
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
    h('div', { class: 'needs-what', id: id('needs-what') }, askText(ask)),
    detail,
    ask.kind === 'mark'
      ? null
      : h(
          'div',
          { class: 'answer' },
          message,
          h('button', { class: 'allow', id: id('allow'), onclick: () => answer('allow') }, 'Allow'),
          h('button', { class: 'deny', id: id('deny'), onclick: () => answer('deny') }, 'Deny'),
        ),
  )
}
