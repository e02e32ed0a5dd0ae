import type { ConvDetail } from '../../../kernel/port/port.js'
import { api } from './api.js'
import { fill, must } from './dom.js'
import { say } from './live.js'
import { refusalInPageWords } from './words.js'

/** Ask before doing what cannot be undone: the question, with Cancel focused (Enter or Escape cancels) and the button
 * that does it away from the one that asked, so no double click destroys. */
function confirm(what: string, go: string, action: () => Promise<void>) {
  const box = must('#confirm')
  fill(must('#confirm-what'), what)
  const goButton = must<HTMLButtonElement>('#confirm-go')
  fill(goButton, go)
  box.hidden = false
  const close = () => {
    box.hidden = true
    goButton.onclick = null
  }
  must<HTMLButtonElement>('#confirm-cancel').onclick = close
  box.onkeydown = (e) => {
    if (e.key === 'Escape') close()
  }
  goButton.onclick = () => {
    close()
    void action()
  }
  must('#confirm-cancel').focus()
}

const attempt = (what: () => Promise<string>) => async () => {
  try {
    say(await what())
  } catch (e) {
    say(refusalInPageWords((e as Error).message))
  }
}

/** A conversation's actions: stop and reap (each confirmed first), archive, and respawn of a lane that ended without
 * its work done (svc lane start --reuse: a new conversation in the same directory with the same brief, launched by
 * the same parent under the same rules). */
export function actions(ref: string, detail: () => ConvDetail | undefined) {
  const who = () => {
    const c = detail()?.conv
    return c ? `#${c.id} ${c.name}` : ref
  }
  must('#stop').addEventListener('click', () =>
    confirm(
      `Stop ${who()}? Its harness is signalled to end; what it has not committed stays in its directory.`,
      'Stop it',
      attempt(async () => `stopped: ${(await api.stop(ref)).activity}`),
    ),
  )
  must('#reap-go').addEventListener('click', () => {
    const park = must<HTMLInputElement>('#park').checked
    const keep = must<HTMLInputElement>('#keep').checked
    const cwd = detail()?.worktree?.cwd ?? 'its directory'
    confirm(
      `Reap ${who()}? Its directory ${cwd} is removed` +
        `${park ? ', uncommitted work parked to a patch first' : ' (refused if it holds uncommitted work)'}, and ` +
        `the conversation ${keep ? 'stays listed' : 'is archived'}.`,
      'Reap it',
      attempt(async () => {
        const r = await api.reap(ref, park, keep)
        return ['reaped', r.parked ? `parked to ${r.parked.patch}` : '', r.archiveError ?? '', ...r.warnings]
          .filter(Boolean)
          .join('; ')
      }),
    )
  })
  must('#archive').addEventListener(
    'click',
    attempt(async () => `archived: ${(await api.archive(ref)).name}`),
  )
  must('#respawn').addEventListener(
    'click',
    attempt(async () => {
      const d = detail()
      const lane = d?.lane
      if (!d || !lane) throw new Error('not a lane')
      const out = await api.launch({
        conversation: lane.parent ?? d.conv.parent,
        role: lane.role,
        run: lane.run,
        ...(lane.role === 'critic' ? {} : { key: lane.key }),
        ...(lane.for ? { for: lane.for.key } : {}),
        reuse: true,
        prompt: d.brief,
        noWait: true,
      })
      return `respawned: ${out.line}`
    }),
  )
}
