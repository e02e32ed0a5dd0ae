import type { LaneRef, LaneShown } from './lane.js'
import { activityShown } from './activity.js'

/** Who filed a report a wait returns: a lane, or a worker (role `worker`, known by its issue). */
export type ReportFrom = LaneRef | { id: string; name: string; role: 'worker'; iteration: number; issue: string }

/** SPEC.md 4.1 start, behaviour 5: `Lane <run>/<key> <role> i<n>: conv <id> (<name>) in <cwd>`. */
export const startLine = (l: LaneRef, cwd: string) => `Lane ${l.run}/${l.key} ${l.role} i${l.iteration}: conv ${l.id} (${l.name}) in ${cwd}`

/** SPEC.md 4.1 stop: the line a stopped lane prints. */
export const stopLine = (l: LaneRef) => `Lane ${l.run}/${l.key} ${l.role} i${l.iteration} stopped: conv ${l.id} (${l.name})`

/** SPEC.md 4.1 show: `#<id> <role> i<n> <activity> <verdict> <verdict file>`; an archived lane shows `archived`. */
export const showLine = (v: LaneShown) =>
  `#${v.id} ${v.role} i${v.iteration} ${activityShown(v)} ${v.verdict?.value ?? '-'} ${v.verdict?.file ?? '-'}`
