/** Each lane's work in the order it was asked for (a report waits for its snapshot, the lane's end for its reports,
 * a reap for both); a step that fails is logged and the next one runs. */
export function laneQueue(log: (line: string) => void) {
  const work = new Map<string, Promise<void>>()
  return (lane: string, step: () => Promise<void> | void) => {
    const next = (work.get(lane) ?? Promise.resolve()).then(step).catch((e: Error) => log(`${lane}: ${e.message}`))
    work.set(lane, next)
    void next.then(() => work.get(lane) === next && work.delete(lane))
  }
}

export type InLane = ReturnType<typeof laneQueue>
