import { clockTime } from '../../../kernel/domain/format.js'
import { api } from './api.js'
import { append, h, must } from './dom.js'
import { toolCall } from './tool-call.js'

/** The transcript is fetched once from its last page, then only what follows the cursor the kernel last gave: each
 * change costs a page at most, however long the transcript. Draws run one after another. */
let cursor: number | undefined
let drawn = Promise.resolve()

export function transcript(ref: string): Promise<void> {
  drawn = drawn
    .catch(() => {})
    .then(async () => {
      for (;;) {
        const t = await api.transcript(ref, cursor)
        append(
          must('#transcript'),
          t.entries.map((e) =>
            h(
              'div',
              { class: `t-${e.kind}`, 'data-kind': e.kind },
              `${clockTime(e.at)} ${e.kind} `,
              e.kind === 'tool' ? toolCall(e.text) : e.text,
            ),
          ),
        )
        const moved = t.cursor !== cursor
        cursor = t.cursor
        if (!t.more || !moved) break
      }
    })
  return drawn
}
