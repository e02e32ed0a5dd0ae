import { MAX_DIFF_BYTES } from '../../../kernel/domain/diff-limits.js'
import { api } from './api.js'
import { fill, h, must } from './dom.js'
import { say } from './live.js'

/** A patch's lines, added ones and removed ones marked. */
export const patchView = (patch: string, attrs: Record<string, string>) =>
  h(
    'pre',
    { class: 'diff-patch', ...attrs },
    patch
      .split('\n')
      .map((l) =>
        h(
          'span',
          { class: l.startsWith('+') ? 'add' : l.startsWith('-') ? 'del' : l.startsWith('@@') ? 'hunk' : '' },
          `${l}\n`,
        ),
      ),
  )

export const kbOf = (n: number) => `${Math.ceil(n / 1024)} KB`

/** The builder's change against its base, loaded when asked: the stat, the patch up to a cap, and a clear "more"
 * that asks for four times as much, up to the kernel's limit. */
export function diffPanel(ref: string) {
  const out = must('#diff')
  const load = async (maxBytes?: number) => {
    try {
      const d = await api.diff(ref, maxBytes)
      if ('unavailable' in d) return fill(out, h('p', { class: 'muted', 'data-diff-unavailable': '' }, d.unavailable))
      const shown = new TextEncoder().encode(d.patch).length
      const next = Math.min(MAX_DIFF_BYTES, Math.max(shown, 1024) * 4)
      fill(
        out,
        h('p', { class: 'muted' }, `against ${d.base}`),
        h('pre', { class: 'diff-stat', 'data-diff-stat': '' }, d.stat || '(no change)'),
        patchView(d.patch, { 'data-diff-patch': '' }),
        d.truncated
          ? h(
              'p',
              { class: 'more' },
              `showing ${kbOf(shown)} of ${kbOf(d.bytes)} `,
              shown < MAX_DIFF_BYTES
                ? h('button', { id: 'diff-more', type: 'button', onclick: () => void load(next) }, 'more')
                : '(the most one page shows)',
            )
          : null,
      )
    } catch (e) {
      say((e as Error).message)
    }
  }
  must('#diff-load').addEventListener('click', () => void load())
}
