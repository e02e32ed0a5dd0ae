/** Why a conversation cannot take a message now, or undefined when it can: the one rule behind `svc tell`'s
 * refusals and the deck's composer, which is disabled with this very reason. */
export interface TellTarget {
  id: string
  name: string
  harness: string
  activity: string
  role?: string
  /** A critic or verifier that filed its done report. */
  judgedDone: boolean
}

export function tellRefusal(t: TellTarget, force = false): { message: string; hint?: string } | undefined {
  const who = `conv ${t.id} (${t.name})`
  if (t.harness === 'none') return { message: `${who} is driven by no harness; nothing would read the message` }
  if (t.activity === 'stopped' || t.activity === 'failed-to-start') return { message: `${who} is ${t.activity}; the message would not reach it` }
  if (!force && t.judgedDone) return { message: `${who} is a ${t.role} that has filed its done report; it takes no further messages`, hint: 'pass --force to send it anyway' }
  return undefined
}
