import { mkdirSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { SshHosts } from '../test/helpers/ssh-hosts.js'
import { HostLink } from '../kernel/services/host-link.js'
import { controlDir, recordHostKey, runSsh } from '../kernel/io/hosts/ssh.js'
import { openLineStream } from '../kernel/io/hosts/stream.js'
import { hostRunnerFile } from '../kernel/io/hosts/runner-file.js'
import { hostKeyAlias } from '../kernel/domain/hosts.js'
import { REPORT_SHELL } from '../kernel/runner/host-runner.js'
import type { HostEvent } from '../kernel/domain/host-stream.js'
import { benchHome, median, percentile, type Figure } from './lib.js'

/** Issue 27: 200 lanes on two real hosts (sshd in network namespaces), each lane blocked on a fifo until released,
 * then filing a report. Figures: the time from a report's filing on the host to its arrival at home (p50, p95), and
 * the memory a lane costs on its host (proportional set size of the runner and every lane process, per lane). */
const LANES_PER_HOST = 100

const pss = (pid: number) => {
  try {
    return Number(/^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'))?.[1] ?? 0)
  } catch {
    return 0
  }
}
const comm = (pid: number) => {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim()
  } catch {
    return ''
  }
}

export async function bench(): Promise<Figure[]> {
  const rig = await SshHosts.make(['a', 'b'])
  const dir = benchHome('hosts').dir
  mkdirSync(dir, { recursive: true })
  const links: HostLink[] = []
  const latencies: number[] = []
  const sent: number[] = []
  let reports = 0
  try {
    for (const name of ['a', 'b']) {
      const h = rig.host(name)
      await recordHostKey(join(dir, 'known_hosts'), hostKeyAlias(name), h.hostKey)
      const l = new HostLink(
        name,
        { ssh: h.ssh, identity: h.identity },
        { knownHosts: join(dir, 'known_hosts'), controlDir: controlDir(dir) },
        {
          runSsh,
          openLineStream,
          runnerFile: hostRunnerFile,
          readHeld: () => 0,
          writeHeld: async () => {},
          now: Date.now,
          log: () => {},
          reconnectMs: { firstMs: 100, maxMs: 1000 },
          lostAfterMs: 30_000,
        },
        async (e: HostEvent) => {
          if (e.kind === 'report') {
            // A report is named by the time it was filed, in microseconds (the hosts share this machine's clock).
            const filed = Number(e.id.split('-')[0]) / 1000
            latencies.push(Date.now() - filed)
            sent.push(e.at - filed)
            reports++
          }
        },
      )
      links.push(l)
      l.start()
      for (let i = 0; i < LANES_PER_HOST; i++)
        l.send({
          t: 'start',
          lane: `l${i}`,
          dir: `${h.home}/svc-lanes/l${i}`,
          script: `mkfifo go\nread x < go\nprintf 'done %s\\n' "$x" | bash -c '${REPORT_SHELL}' report done\n`,
          env: {},
        })
    }
    const until = async (fn: () => boolean, what: string, ms = 60_000) => {
      const t0 = Date.now()
      while (!fn()) {
        if (Date.now() - t0 > ms) throw new Error(`hosts bench: timed out waiting for ${what}`)
        await new Promise((r) => setTimeout(r, 50))
      }
    }
    const fifos = (name: string) =>
      Number(rig.as(name, 'ls svc-lanes/*/go 2>/dev/null | wc -l').trim()) === LANES_PER_HOST
    await until(() => fifos('a') && fifos('b'), 'every lane waiting')
    // Memory while every lane waits: the runner and the lanes' processes, not sshd nor the sessions.
    const perHost = ['a', 'b'].map((name) => {
      const pids = rig.pids(name).filter((p) => !['sshd', 'ssh'].includes(comm(p)))
      const total = pids.reduce((sum, p) => sum + pss(p), 0)
      const runnerPid = Number(rig.as(name, 'cat ~/.svc-host/state/runner.pid').trim())
      return { total, runner: pss(runnerPid) }
    })
    // Release the lanes a few at a time, as reports come in practice, not all at one instant.
    // Released from another process while this one's event loop stays free to take the reports as they come.
    await Promise.all(
      ['a', 'b'].map((name) => rig.asAsync(name, `for d in svc-lanes/*; do echo go > "$d/go"; sleep 0.005; done`)),
    )
    await until(() => reports === 2 * LANES_PER_HOST, 'every report home')
    const kbPerLane = perHost.reduce((s, h) => s + h.total, 0) / (2 * LANES_PER_HOST)
    return [
      {
        what: `report filed on a host to home, p50 (${2 * LANES_PER_HOST} lanes on two hosts)`,
        value: median(latencies),
        unit: 'ms',
        target: '<= 50 ms',
        ok: median(latencies) <= 50,
      },
      {
        what: 'report filed on a host to home, p95',
        value: percentile(latencies, 95),
        unit: 'ms',
        target: 'for information',
        ok: true,
        informational: true,
        note: `of which filed to sent by the runner: p50 ${median(sent).toFixed(1)} ms`,
      },
      {
        what: 'memory per lane on its host (PSS of the runner and the lane processes)',
        value: kbPerLane / 1024,
        unit: 'MB',
        target: '<= 8 MB',
        ok: kbPerLane / 1024 <= 8,
        note: `runner ${(perHost[0].runner / 1024).toFixed(1)} MB for ${LANES_PER_HOST} lanes`,
      },
    ]
  } finally {
    for (const l of links) l.close()
    await rig.cleanup()
    rmSync(dir, { recursive: true, force: true })
  }
}
