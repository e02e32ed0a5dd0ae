import { request, Agent } from 'node:http'
import { percentile } from './lib.js'

/** A load generator in its own process: `node load-client.js <port> <token> <path> <seconds> <connections>`; prints
 * {requests, rps, p50, p99} as JSON. Each connection sends its next request when the previous answer is complete. */
const [port, token, path, seconds, connections] = process.argv.slice(2)
const agent = new Agent({ keepAlive: true, maxSockets: Number(connections) })
const latencies: number[] = []
const deadline = Date.now() + Number(seconds) * 1000
let errors = 0
const one = () =>
  new Promise<void>((resolve) => {
    const t0 = process.hrtime.bigint()
    const req = request(
      { host: '127.0.0.1', port: Number(port), path, agent, headers: { authorization: `Bearer ${token}` } },
      (res) => {
        res.on('data', () => {})
        res.on('end', () => {
          if (res.statusCode !== 200) errors++
          latencies.push(Number(process.hrtime.bigint() - t0) / 1e6)
          resolve()
        })
      },
    )
    req.on('error', () => {
      errors++
      resolve()
    })
    req.end()
  })
const worker = async () => {
  while (Date.now() < deadline) await one()
}
const t0 = Date.now()
await Promise.all(Array.from({ length: Number(connections) }, worker))
const elapsed = (Date.now() - t0) / 1000
console.log(
  JSON.stringify({
    requests: latencies.length,
    errors,
    rps: latencies.length / elapsed,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
  }),
)
agent.destroy()
