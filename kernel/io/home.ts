import { homedir } from 'node:os'
import { join, sep } from 'node:path'

/** Every path the service keeps under its home (DESIGN.md 3). */
export function serviceHome(env: NodeJS.ProcessEnv = process.env): { dir: string; explicit: boolean } {
  const set = env.SERVICE_HOME
  if (set) return { dir: set, explicit: true }
  return { dir: join(env.HOME || homedir(), '.service'), explicit: false }
}

export const homePaths = (home: string) => ({
  kernelJson: join(home, 'kernel.json'),
  kernelLog: join(home, 'kernel.log'),
  /** The port the kernel listened on last: the next kernel asks for it first, so open deck pages find it again. */
  kernelPort: join(home, 'kernel-port'),
  /** The deck's sessions (their digests, never the sessions) and when each ends: a restart keeps them. */
  deckSessions: join(home, 'deck-sessions.json'),
  /** Details (the stack) of the CLI's unexpected errors, which it reports on one line. */
  cliLog: join(home, 'cli.log'),
  /** The lane worktrees' git facts as the kernel last read them: the next kernel shows them at once. */
  gitFacts: join(home, 'git-facts.json'),
  agents: join(home, 'agents'),
  /** The socket of the runner that drives every lane of this home (kernel/runner/local-runner.ts), and its log. */
  runnerSocket: join(home, 'runner.sock'),
  runnerLog: join(home, 'runner.log'),
  projects: join(home, 'projects.yaml'),
  /** A page only the user can read that sends the browser on to the deck's one-time link. */
  deckOpener: join(home, 'deck-open.html'),
  /** Launches under way (domain/lane-claim.ts LaunchIntent), one file per lane directory. */
  launches: join(home, 'launches'),
  /** Where notifications go: a file of its own, so projects.yaml stays a mapping of project keys alone. */
  notify: join(home, 'notify.yaml'),
  /** Other machines lanes may run on (svc host add), and the host keys the service has seen for them (never the
   * user's own known hosts). */
  hosts: join(home, 'hosts.yaml'),
  knownHosts: join(home, 'hosts', 'known_hosts'),
  /** What the kernel keeps per host: its known hosts, the seq it holds of each host's events. */
  hostsDir: join(home, 'hosts'),
})

export const convDir = (home: string, name: string) => join(home, 'agents', `conv-${name}`)

/** The files of a conversation's directory (DESIGN.md 3), by what each holds. */
export const CONV_FILE_NAMES = {
  record: 'record.json',
  reports: 'reports.json',
  state: 'state.json',
  mark: 'mark.json',
  launch: 'launch.json',
  inbox: 'inbox.jsonl',
  answers: 'answers.jsonl',
  shellInbox: 'inbox.txt',
  transcript: 'transcript.jsonl',
  brief: 'lane-brief.md',
  contract: 'contract.md',
  runnerLog: 'runner.log',
} as const

/** The paths of a conversation's files. Built by concatenation, not path.join: the kernel asks for every
 * conversation's at start, and 10 000 calls of joins took 160 ms. */
export const convFiles = (home: string, name: string) => {
  const dir = convDir(home, name)
  const at = (f: string) => `${dir}${sep}${f}`
  const n = CONV_FILE_NAMES
  return {
    dir,
    record: at(n.record),
    reports: at(n.reports),
    state: at(n.state),
    mark: at(n.mark),
    launch: at(n.launch),
    inbox: at(n.inbox),
    answers: at(n.answers),
    shellInbox: at(n.shellInbox),
    transcript: at(n.transcript),
    brief: at(n.brief),
    contract: at(n.contract),
    runnerLog: at(n.runnerLog),
  }
}
