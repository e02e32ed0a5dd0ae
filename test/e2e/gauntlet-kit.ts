import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { shellWord } from '../../kernel/domain/wait.js'
import { setupProject, type Setup } from '../helpers/project.js'
import { realHarnessHome, type RealHome } from '../helpers/real-harness.js'

/** Whole gauntlets with the real `claude` and `codex` (node_modules) against the stand-in model API: each brief is a
 * `steps` script (fixtures/model-script.ts), so the model makes the harness run real commands through its own shell
 * tool (claude: Bash, codex: its shell tool): commit, push, `svc lane report`, `svc lane start`, `svc lane wait`. */

export type Harness = 'claude' | 'codex'
export const MODELS: Record<Harness, string> = { claude: 'claude-sonnet-4-5', codex: 'gpt-5-codex' }

/** A brief the stand-in plays: each command one tool call, in order (`ask: <question>` a question to the user,
 * `escalated: <command>` a command codex's model asks to run outside the sandbox); `after` is the failure that
 * follows them. */
export const steps = (commands: string[], after?: string) =>
  [
    'scenario:steps' + (after ? ` after:${after}` : ''),
    '',
    ...commands.map((c) => {
      const [, kind, body] = /^(?:(ask|escalated): )?([\s\S]*)$/.exec(c)!
      return '```' + (kind === 'ask' ? 'ask' : kind === 'escalated' ? 'sh-escalated' : 'sh') + '\n' + body + '\n```\n'
    }),
  ].join('\n')

/** A shell command that prints the same brief: its backquotes as printf's octal escapes, so it can sit in a step of
 * another brief (an orchestrator's, which pipes it to `svc lane start --brief /dev/stdin`). */
export const printfBrief = (commands: string[]) => {
  const format = 'scenario:steps\\n\\n' + commands.map(() => '\\140\\140\\140sh\\n%s\\n\\140\\140\\140\\n').join('')
  return `printf ${shellWord(format)} ${commands.map(shellWord).join(' ')}`
}

/** Commit a file, push the branch with its upstream, file a done report with this body. */
export const buildSteps = (file: string, body: string) => [
  `echo ${file} > ${file} && git add ${file} && git commit -qm ${file} && git push -u origin HEAD`,
  `printf '%s\\n' '${body}' | svc lane report --stdin`,
]

export interface Gauntlet extends RealHome {
  s: Setup
  /** Seconds from each lane start to its report (or its end) reaching the waiting CLI, by step. */
  times: [string, number][]
  /** Starts a lane (timed from here); its name. */
  start(run: string, key: string, role: string, brief: string, ...more: string[]): Promise<string>
  wait(lane: string, timeoutS?: number): Promise<{ code: number | null; stdout: string; stderr: string }>
}

/** A test home with a sample project whose gauntlet roles run `harness` under each role's default permission policy
 * (projects.yaml names none): nothing in the user settings allows a command, so what a lane runs unasked is what the
 * policy allows, and anything else asks through needs-you. */
export async function gauntletHome(
  label: string,
  harness: Harness,
  env: Record<string, string> = {},
): Promise<Gauntlet> {
  const r = await realHarnessHome(label, { env: { CLAUDE_CODE_MAX_RETRIES: '1', ...env } })
  const { h } = r
  const role = { model: MODELS[harness], harness }
  const s = await setupProject(h, {
    gauntlet: { roles: { builder: role, critic: role, verifier: role, orchestrator: role } },
  })
  const times: [string, number][] = []
  const startedAt = new Map<string, number>()
  return {
    ...r,
    s,
    times,
    async start(run, key, role, brief, ...more) {
      const lane = `conv-${run}-${key}-${role}-i1`
      startedAt.set(lane, Date.now())
      const args = ['lane', 'start', '--run', run, ...(role === 'critic' ? ['--for', key] : ['--key', key])]
      const started = await h.svc([...args, '--role', role, '--prompt', brief, ...more], { env: s.env })
      assert.is(started.code, 0, started.stderr)
      return lane
    },
    async wait(lane, timeoutS = 25) {
      const waited = await h.svc(['lane', 'wait', lane, '--timeout', String(timeoutS)], {
        env: s.env,
        timeoutMs: (timeoutS + 10) * 1000,
      })
      times.push([lane, (Date.now() - startedAt.get(lane)!) / 1000])
      return waited
    },
  }
}

/** The measured times as the README's table rows. */
export const timesTable = (harness: Harness, times: [string, number][]) =>
  times.map(([step, s]) => `| ${harness} | ${step} | ${s.toFixed(1)} s |`).join('\n')

/** A suite's gauntlet: one home, project and stand-in for all its tests (each test's lanes have a run of their own,
 * and none stops, kills or arms the kernel), made by the first test that asks for it with home(); `g` is it once
 * made. After each test its times are printed (the README's table); after the suite it is stopped. */
export interface GauntletSuite {
  g?: Gauntlet
  home(): Promise<Gauntlet>
}

export function eachGauntlet(harness: Harness): GauntletSuite {
  let made: Promise<Gauntlet> | undefined
  const now: GauntletSuite = {
    home: async () => (now.g = await (made ??= gauntletHome(`gauntlet-${harness}`, harness))),
  }
  test.after.each(() => {
    if (now.g?.times.length) console.log(timesTable(harness, now.g.times))
    now.g?.times.splice(0)
  })
  test.after(async () => {
    await (await made?.catch(() => undefined))?.stop()
  })
  return now
}
