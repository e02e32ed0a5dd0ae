import { test } from 'uvu'
import * as assert from 'uvu/assert'
import type { PortCall } from '../../kernel/port/client.js'
import { checkedCall } from '../helpers/checked-port.js'

const status = { pid: 7, port: 4000, version: '0.1.0', home: '/h', startedAt: 1, conversations: 0 }
const answering =
  (out: unknown): PortCall =>
  async () =>
    out as never

test('an answer that holds what its output schema says is passed through as it is', async () => {
  assert.equal(await checkedCall(answering(status))('kernelStatus', {}), status)
})

test('an answer missing a field, or with one of the wrong type, fails naming the method and the field', async () => {
  const cases: [unknown, string][] = [
    [{ ...status, pid: '7' }, 'kernelStatus answered what its output schema refuses: pid: Invalid type'],
    [{ ...status, home: undefined }, 'kernelStatus answered what its output schema refuses: home: Invalid type'],
  ]
  for (const [out, message] of cases)
    try {
      await checkedCall(answering(out))('kernelStatus', {})
      assert.unreachable('the answer was let through')
    } catch (e) {
      assert.ok((e as Error).message.startsWith(message), (e as Error).message)
    }
})

test.run()
