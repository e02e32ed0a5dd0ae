import { ALLOWED, refuse, type Decision } from './refusal.js'

/** The variable that carries a conversation's own key, beside SERVICE_CONVERSATION. */
export const KEY_VARIABLE = 'SERVICE_CONVERSATION_KEY'

/** What a request that acts as a conversation (report, launch, mark, tell as, successor) shows, as the kernel
 * found it: the conversation it names, whether that one has a key and a process tree running now; the key it gives,
 * as the conversation that key belongs to (null: it belongs to none); the conversation whose process tree the
 * calling process belongs to (from the connection, not from anything the caller says). */
export interface ActAsFacts {
  what: string
  named?: { id: string; hasKey: boolean; treeAlive?: boolean }
  /** Absent: no key given. */
  keyOf?: string | null
  /** Absent: the caller is in no conversation's process tree (a person's shell). */
  tree?: string
}

/** The processes the kernel started for a conversation: its runner (that process, or the process group and the
 * session it leads). */
export interface RunnerProcess {
  conv: string
  pid: number
  /** The runner's start time, when it has published it (a pid alone may be reused). */
  start?: string
  /** The runner is gone without having ended its lane (killed), and no process has its pid now: what is left of
   * its group or session is still its conversation's (a pid is not reused while a group or session holds it). */
  gone?: boolean
}

/** Start times (clock ticks since boot) in order, where both are such numbers. */
const notBefore = (start: string, runnerStart: string | undefined) =>
  !runnerStart || !/^\d+$/.test(start) || !/^\d+$/.test(runnerStart) || BigInt(start) >= BigInt(runnerStart)

/** The conversation whose process tree holds a process, given it and its ancestors nearest first: the first of
 * them that is a conversation's runner, or a member of a runner's process group or session, that runner alive or
 * gone. None: a process no runner started. A process whose ancestors are gone (its runner killed, itself handed to
 * init) is still found by its group or session, unless it left both while the runner lived (then it was adopted by
 * the runner, and a runner's stop ends all it adopted). */
export function treeOf(
  lineage: readonly { pid: number; start: string; pgid: number; sid: number }[],
  runners: readonly RunnerProcess[],
): string | undefined {
  for (const p of lineage) {
    const r = runners.find(
      (r) =>
        (!r.gone && r.pid === p.pid && (r.start === undefined || r.start === p.start)) ||
        ((r.pid === p.pgid || r.pid === p.sid) && notBefore(p.start, r.start)),
    )
    if (r) return r.conv
  }
  return undefined
}

/** A request whose calling process cannot be found (it closed its connection once the request was sent, before the
 * kernel looked): it is refused, never taken as the person's, whatever it asks. */
export const callerGone = (): Decision =>
  refused(
    'the process that sent this request closed its connection before it could be known',
    'wait for the answer on the connection that sent the request (svc does)',
  )

/** Who may act as whom. A process the kernel started for a conversation (its runner's tree) acts as that one only,
 * whatever its environment says. Elsewhere, a conversation the kernel drives has a key, and only a request giving
 * that key acts as it, and only while no process tree of its own runs (a key read from another process's
 * environment is no identity); a key acts as its own conversation only. A conversation with no key (one a human
 * made with `--harness none`) is acted as by its id alone, as long as no other conversation's key comes with it. */
export function mayActAs(f: ActAsFacts): Decision {
  if (f.keyOf === null)
    return refused(
      `${f.what}: ${KEY_VARIABLE} is the key of no conversation`,
      `unset ${KEY_VARIABLE}, or run this inside the conversation it was given to`,
    )
  const actsAs = f.named?.id ?? f.tree
  if (actsAs !== undefined && f.keyOf !== undefined && f.keyOf !== actsAs)
    return refused(
      `${f.what}: the key given is conv ${f.keyOf}'s, not conv ${actsAs}'s`,
      'a conversation acts only as itself: SERVICE_CONVERSATION must name the conversation its key was given to',
    )
  if (f.tree !== undefined && f.named && f.named.id !== f.tree)
    return refused(
      `${f.what}: this process belongs to conv ${f.tree}, so it cannot act as conv ${f.named.id}`,
      'a conversation acts only as itself, whatever SERVICE_CONVERSATION and its key say',
    )
  if (!f.named || f.tree !== undefined) return ALLOWED
  if (f.keyOf !== undefined && f.named.treeAlive)
    return refused(
      `${f.what}: conv ${f.named.id}'s key was given by a process outside its process tree`,
      `a conversation's key acts only from the processes svc started for it, while they run`,
    )
  if (f.keyOf === undefined && f.named.hasKey)
    return refused(
      `${f.what}: conv ${f.named.id} acts only with its key, and none was given`,
      `run this inside conv ${f.named.id}, where ${KEY_VARIABLE} is set`,
    )
  return ALLOWED
}

const refused = (message: string, hint: string) => refuse('forbidden', `refused: ${message}`, hint)
