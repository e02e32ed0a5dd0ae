import {
  copyFileSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs'
import { join } from 'node:path'
import {
  createSampleProject,
  writeProjectsYaml,
  type ProjectConfig,
  type SampleProject,
} from '../../cli/demo/sample-project.js'
import { scratchDir, type TestHome } from './home.js'
import type { PortInput } from '../../kernel/port/port.js'

/** A directory tree copied with its modes and times (git's index holds the files' times: a copy that changed them
 * would read as modified until git refreshed it). Node's own recursive copy costs two to three times as much
 * processor time, in checks a fresh copy of our own template does not need. */
function copyTree(src: string, dst: string): void {
  const st = lstatSync(src)
  mkdirSync(dst, { recursive: true, mode: st.mode & 0o7777 })
  for (const e of readdirSync(src, { withFileTypes: true })) {
    const from = join(src, e.name)
    const to = join(dst, e.name)
    if (e.isDirectory()) copyTree(from, to)
    else if (e.isSymbolicLink()) symlinkSync(readlinkSync(from), to)
    else {
      copyFileSync(from, to)
      const f = lstatSync(from)
      utimesSync(to, f.atime, f.mtime)
    }
  }
  utimesSync(dst, st.atime, st.mtime)
}

/** Sample projects made with git once per suite process, by key, each in a directory of its own. */
const templates = new Map<string, SampleProject>()

/** The sample project of createSampleProject (a bare origin and a checkout with commits on main) under `dir`, copied
 * from one made once per suite process: a copy runs no git process. The checkout's origin is pointed at the copy's. */
export function sampleProject(dir: string, key = 'sample'): SampleProject {
  let t = templates.get(key)
  if (!t) {
    const root = scratchDir(`template-${key}`)
    if (!templates.size)
      process.once('exit', () =>
        templates.forEach((p) => rmSync(join(p.origin, '..'), { recursive: true, force: true })),
      )
    t = createSampleProject(root, key)
    // git's sample hooks run never (each ends in .sample) and are a quarter of the entries a copy writes, each a few
    // hundred microseconds of processor time: the copies do without them.
    for (const hooks of [join(t.origin, 'hooks'), join(t.checkout, '.git', 'hooks')])
      rmSync(hooks, { recursive: true, force: true })
    templates.set(key, t)
  }
  copyTree(join(t.origin, '..'), dir)
  const project = { key, origin: join(dir, `${key}-origin.git`), checkout: join(dir, key) }
  const config = join(project.checkout, '.git', 'config')
  const text = readFileSync(config, 'utf8')
  if (!text.includes(`url = ${t.origin}\n`)) throw new Error(`${config} names no origin ${t.origin}`)
  writeFileSync(config, text.replace(`url = ${t.origin}\n`, `url = ${project.origin}\n`))
  return project
}

export interface Setup {
  project: SampleProject
  lanesRoot: string
  /** Id of a root conversation (harness none) to launch from. */
  root: string
  env: Record<string, string>
}

/** A sample project (bare origin + checkout) under the test HOME, configured with shell harnesses and models for
 * every role, and a root conversation to launch lanes from. */
export async function setupProject(h: TestHome, config: ProjectConfig = {}): Promise<Setup> {
  writeFileSync(
    join(h.home, '.gitconfig'),
    '[user]\n\tname = Test\n\temail = test@example.com\n[init]\n\tdefaultBranch = main\n',
  )
  const project = sampleProject(join(h.home, 'src'))
  const roles = Object.fromEntries(
    ['builder', 'critic', 'verifier', 'play', 'orchestrator'].map((r) => [
      r,
      { model: `model-${r}`, harness: 'shell' },
    ]),
  )
  writeProjectsYaml(h.service, project, { ...config, gauntlet: { roles, ...config.gauntlet } })
  h.own()
  const root = (await (await h.port()).convNew({ harness: 'none', project: project.key })).id
  return { project, lanesRoot: `${project.checkout}-lanes`, root, env: { SERVICE_CONVERSATION: root } }
}

/** A lane started from the setup's root conversation over the kernel's port, for a test whose subject is not the
 * start (the start's own line and exit code are what its CLI suites prove). */
export async function startOverPort(
  h: TestHome,
  s: Setup,
  input: Pick<PortInput<'laneStart'>, 'run' | 'key' | 'role'> & Partial<PortInput<'laneStart'>>,
) {
  return (await h.port()).laneStart({ conversation: s.root, cwd: h.home, ...input } as PortInput<'laneStart'>)
}

/** A shell brief that commits a file, pushes the branch and files a done report with this body (`svc lane report`,
 * or `svc worker report` inside a worker). */
export const buildAndReport = (body: string, file = 'work.txt', verb: 'lane' | 'worker' = 'lane') =>
  `echo work > ${file}; git add ${file}; git commit -qm work; git push -q -u origin HEAD 2>/dev/null; svc ${verb} ` +
  `report --stdin <<'EOF'\n${body}\nEOF\n`
