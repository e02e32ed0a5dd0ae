import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface Received {
  at: number
  headers: IncomingHttpHeaders
  body: string
}

/** How the receiver answers its n-th request (0-based): a status, or 'hang' (it never answers). */
export type Answer = number | 'hang'

/** A webhook receiver on 127.0.0.1 that records every request and answers as told. */
export class Receiver {
  readonly got: Received[] = []
  private server!: Server
  url = ''

  constructor(private readonly answer: (n: number) => Answer = () => 200) {}

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      let body = ''
      req.on('data', (d) => (body += d))
      req.on('end', () => {
        const n = this.got.length
        this.got.push({ at: Date.now(), headers: req.headers, body })
        const a = this.answer(n)
        if (a !== 'hang') res.writeHead(a).end()
      })
    })
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r))
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`
    return this
  }

  bodies(): unknown[] {
    return this.got.map((g) => JSON.parse(g.body))
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections()
    await new Promise((r) => this.server.close(r))
  }
}
