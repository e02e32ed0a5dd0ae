import { homedir } from 'node:os'
import { join } from 'node:path'

/** Every path the service keeps under its home (DESIGN.md 3). */
export function serviceHome(env: NodeJS.ProcessEnv = process.env): { dir: string; explicit: boolean } {
  const set = env.SERVICE_HOME
  if (set) return { dir: set, explicit: true }
  return { dir: join(env.HOME || homedir(), '.service'), explicit: false }
}

export const homePaths = (home: string) => ({
  kernelJson: join(home, 'kernel.json'),
  kernelLog: join(home, 'kernel.log'),
  agents: join(home, 'agents'),
  projects: join(home, 'projects.yaml'),
})

export const convDir = (home: string, name: string) => join(home, 'agents', `conv-${name}`)

export const convFiles = (home: string, name: string) => {
  const dir = convDir(home, name)
  return {
    dir,
    record: join(dir, 'record.json'),
    reports: join(dir, 'reports.json'),
    state: join(dir, 'state.json'),
    mark: join(dir, 'mark.json'),
    launch: join(dir, 'launch.json'),
    inbox: join(dir, 'inbox.jsonl'),
    answers: join(dir, 'answers.jsonl'),
    shellInbox: join(dir, 'inbox.txt'),
    transcript: join(dir, 'transcript.jsonl'),
    brief: join(dir, 'lane-brief.md'),
    contract: join(dir, 'contract.md'),
    runnerLog: join(dir, 'runner.log'),
  }
}
