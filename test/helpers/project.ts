import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { createSampleProject, writeProjectsYaml, type ProjectConfig, type SampleProject } from '../../cli/demo/sample-project.js'
import type { TestHome } from './home.js'

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
  writeFileSync(join(h.home, '.gitconfig'), '[user]\n\tname = Test\n\temail = test@example.com\n[init]\n\tdefaultBranch = main\n')
  const project = createSampleProject(join(h.home, 'src'))
  const roles = Object.fromEntries(['builder', 'critic', 'verifier', 'play', 'orchestrator'].map((r) => [r, { model: `model-${r}`, harness: 'shell' }]))
  writeProjectsYaml(h.service, project, { ...config, gauntlet: { roles, ...config.gauntlet } })
  const root = (await h.ok(['conv', 'new', '--harness', 'none', '--project', project.key])).trim()
  return { project, lanesRoot: `${project.checkout}-lanes`, root, env: { SERVICE_CONVERSATION: root } }
}

/** A shell brief that commits a file, pushes the branch and files a done report with this body (`svc lane report`,
 * or `svc worker report` inside a worker). */
export const buildAndReport = (body: string, file = 'work.txt', verb: 'lane' | 'worker' = 'lane') =>
  `echo work > ${file}; git add ${file}; git commit -qm work; git push -q -u origin HEAD 2>/dev/null; svc ${verb} report --stdin <<'EOF'\n${body}\nEOF\n`
