import * as v from 'valibot'
import type { PortCall } from '../../kernel/port/client.js'
import { PortOutputSchemas } from '../../kernel/port/outputs.js'

/** A call whose every answer is checked against the method's output schema: what a test reads from a kernel is
 * what the contract says it answers, or the test fails naming the method and the field. */
export const checkedCall =
  (call: PortCall): PortCall =>
  async (method, input) => {
    const out = await call(method, input)
    const c = v.safeParse(PortOutputSchemas[method], out)
    if (!c.success) {
      const said = c.issues.map((i) => `${i.path?.map((p) => String(p.key)).join('.') || '(top level)'}: ${i.message}`)
      throw new Error(`${method} answered what its output schema refuses: ${said.join('; ')}`)
    }
    return out
  }
