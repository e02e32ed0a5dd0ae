import type { KernelPort } from '../kernel/port/port.js'
import type { Args, Io } from './io.js'

export type Run = (port: KernelPort, args: Args, io: Io) => Promise<number>
export interface Option {
  flag: string
  description: string
  type: 'string' | 'boolean'
}
export interface CommandSpec {
  /** Words of the command, e.g. "lane start". */
  name: string
  positionals: string[]
  description: string
  options: Option[]
  /** Positionals beyond those named are refused unless true. */
  variadic?: boolean
  hidden?: boolean
  load: () => Promise<{ run: Run }>
}

const json: Option = { flag: 'json', description: 'Machine-readable output', type: 'boolean' }
const s = (flag: string, description: string): Option => ({ flag, description, type: 'string' })
const b = (flag: string, description: string): Option => ({ flag, description, type: 'boolean' })

/** Every verb of `svc`, its options and where its code lives (loaded only when run, so start-up stays fast). */
export const COMMANDS: CommandSpec[] = [
  {
    name: 'kernel start',
    positionals: [],
    description: 'Start the kernel for this SERVICE_HOME (a no-op when one answers)',
    options: [json],
    load: () => import('./commands/kernel.js').then((m) => ({ run: m.start })),
  },
  {
    name: 'kernel stop',
    positionals: [],
    description: 'Stop the kernel',
    options: [json],
    load: () => import('./commands/kernel.js').then((m) => ({ run: m.stop })),
  },
  {
    name: 'kernel status',
    positionals: [],
    description: 'Show the kernel of this SERVICE_HOME; exit 1 when none runs',
    options: [json],
    load: () => import('./commands/kernel.js').then((m) => ({ run: m.status })),
  },
  {
    name: 'conv new',
    positionals: [],
    description: 'Create a root conversation and print its id',
    options: [
      s('project', 'Project key from projects.yaml'),
      s('harness', 'claude, codex, shell or none (default claude)'),
      s('model', 'Model'),
      s('effort', 'low, medium or high'),
      s('cwd', 'Working directory (default: the project checkout, else here)'),
      s('prompt', 'First message (the script, for the shell harness)'),
      s('name', 'Conversation name'),
      s('title', 'Title'),
      json,
    ],
    load: () => import('./commands/conv.js').then((m) => ({ run: m.convNew })),
  },
  {
    name: 'conv list',
    positionals: [],
    description: 'List conversations',
    options: [b('all', 'Include archived conversations'), json],
    load: () => import('./commands/conv.js').then((m) => ({ run: m.convList })),
  },
  {
    name: 'conv show',
    positionals: ['<conv>'],
    description: 'Show one conversation',
    options: [json],
    load: () => import('./commands/conv.js').then((m) => ({ run: m.convShow })),
  },
  {
    name: 'conv stop',
    positionals: ['<conv>'],
    description: 'Stop a conversation (its whole process group)',
    options: [json],
    load: () => import('./commands/conv.js').then((m) => ({ run: m.convStop })),
  },
  {
    name: 'conv archive',
    positionals: ['<conv>'],
    description: 'Archive a stopped conversation',
    options: [json],
    load: () => import('./commands/conv.js').then((m) => ({ run: m.convArchive })),
  },
  {
    name: 'conv transcript',
    positionals: ['<conv>'],
    description: "Print a conversation's transcript",
    options: [json],
    load: () => import('./commands/conv.js').then((m) => ({ run: m.convTranscript })),
  },
  {
    name: 'conv mark',
    positionals: ['<phase>'],
    description: 'Publish the state of $SERVICE_CONVERSATION: working, idle or needs-you',
    options: [s('reason', 'With needs-you: question, permission or plan'), json],
    load: () => import('./commands/conv.js').then((m) => ({ run: m.convMark })),
  },
  {
    name: 'conv answer',
    positionals: ['<conv>', '<decision>'],
    description: 'Answer the permission, question or plan a conversation waits on (needs-you): allow or deny',
    options: [s('message', 'With deny: the reason; with allow to a question: the answer'), json],
    load: () => import('./commands/conv-answer.js'),
  },
  {
    name: 'tell',
    positionals: ['<conv>', '<text>'],
    description: 'Send a message to a conversation',
    options: [b('force', 'Send even to a critic or verifier that filed its done report'), json],
    load: () => import('./commands/conv.js').then((m) => ({ run: m.tell })),
  },
  {
    name: 'handoff',
    positionals: [],
    description: 'Continue $SERVICE_CONVERSATION in a successor; prints its id',
    options: [
      s('harness', 'Harness of the successor'),
      s('model', 'Model of the successor'),
      s('prompt', 'First message of the successor'),
      json,
    ],
    load: () => import('./commands/conv.js').then((m) => ({ run: m.handoff })),
  },
  {
    name: 'fork',
    positionals: [],
    description: 'Fork $SERVICE_CONVERSATION into a successor; prints its id',
    options: [
      s('harness', 'Harness of the successor'),
      s('model', 'Model of the successor'),
      s('prompt', 'First message of the successor'),
      json,
    ],
    load: () => import('./commands/conv.js').then((m) => ({ run: m.fork })),
  },
  {
    name: 'lane start',
    positionals: [],
    description: 'Launch a lane: a conversation with a role in its own working directory',
    options: [
      s('key', 'Lane key (^[a-z0-9][a-z0-9._-]{0,39}$)'),
      s('for', 'Critic or verifier: the builder key it judges'),
      s('role', 'builder, critic, verifier, play or orchestrator'),
      s('brief', 'File holding the brief'),
      s('prompt', 'The brief as text'),
      s('run', 'Run key (required from a root conversation)'),
      s('parent', 'Conversation to nest the lane under'),
      s('project', 'Project key from projects.yaml'),
      s('model', "Model (default: the role's model in the gauntlet configuration)"),
      s('harness', 'claude, codex, shell or none'),
      s('effort', 'low, medium or high'),
      s('title', 'Title'),
      s('branch', 'Builder: name of the new branch'),
      s('from', 'Builder: ref to cut the branch from'),
      s('at', 'Detached worktree: commit to check out'),
      b('reuse', 'Continue in the directory of the latest earlier lane of this run, key and role'),
      b('replace', 'Stop the live lane of this run, key and role first'),
      b('no-wait', 'Return without waiting for the lane to start'),
      json,
    ],
    load: () => import('./commands/lane-start.js'),
  },
  {
    name: 'lane report',
    positionals: [],
    description: "File this lane's report (run inside a lane); exit 0 for done, 4 for blocked or failed",
    options: [
      s('file', 'The markdown report'),
      b('stdin', 'Read the report from standard input'),
      s('status', 'done (default), blocked or failed'),
      b('allow-unpushed', "Waive the upstream check of a builder's done report (never the clean-tree check)"),
      s('verdict', 'Critic or verifier: WOWED, IMPRESSED, NOT_YET, PASS or DEFECTS'),
      s('defects', 'Defect count (default: length of the defects array of the verdict file)'),
      s('verdict-file', 'JSON file with an array named defects'),
      json,
    ],
    load: () => import('./commands/lane-report.js'),
  },
  {
    name: 'lane wait',
    positionals: ['[lane]'],
    description:
      'Wait for the next report of a lane, or of any lane of a run or parent; exit 0 done, 4 blocked/failed, 2 exited or idle, 3 timeout',
    options: [
      s('run', 'Wait on every lane of this run'),
      s('parent', 'Wait on every lane launched by this conversation'),
      s('after', 'Cursor: a report seq for one lane, <atMs>.<name>.<seq> for a set'),
      s('timeout', 'Seconds to wait'),
      json,
    ],
    load: () => import('./commands/lane-wait.js'),
  },
  {
    name: 'lane list',
    positionals: [],
    description: 'List lanes (archived ones too)',
    options: [s('run', 'Only this run'), s('parent', 'Only lanes launched by this conversation'), json],
    load: () => import('./commands/lane-views.js').then((m) => ({ run: m.list })),
  },
  {
    name: 'lane show',
    positionals: ['[lane]'],
    description: 'Show the chain of a builder and its critics, then each lane',
    options: [s('run', 'Run key (with --key)'), s('key', 'Lane key (with --run)'), json],
    load: () => import('./commands/lane-views.js').then((m) => ({ run: m.show })),
  },
  {
    name: 'lane stop',
    positionals: ['<lane>'],
    description: 'Stop a lane (its whole process group)',
    options: [json],
    load: () => import('./commands/lane-views.js').then((m) => ({ run: m.stop })),
  },
  {
    name: 'lane reap',
    positionals: ['<lane>'],
    description: "Remove a lane's directory and archive it; never kills a process, never discards work",
    options: [
      b('park', 'Save uncommitted work to a verified patch, then clean'),
      b('keep', 'Leave the ended conversation listed instead of archiving it'),
      json,
    ],
    load: () => import('./commands/lane-views.js').then((m) => ({ run: m.reap })),
  },
  {
    name: 'worker run',
    positionals: ['<issue>'],
    description: 'Run a worker on an issue: a conversation in its own worktree that reports to whoever ran it',
    options: [
      s('brief', 'Brief file (for the shell harness: the script)'),
      s('prompt', 'Brief as text'),
      s('project', 'Project key from projects.yaml'),
      s('harness', 'claude, codex, shell or none (default claude)'),
      s('model', 'Model'),
      s('effort', 'low, medium or high'),
      s('from', 'Cut the branch from this ref (default origin/<default branch>)'),
      s('branch', 'Branch name (default worker/<tracker>-<id>[-i<n>])'),
      s('title', 'Title (default: the issue title)'),
      b('replace', 'Stop the live worker of this issue first'),
      b('reuse', 'Continue in the directory of the latest earlier worker of this issue'),
      b('post', 'Post each report to the issue as a comment'),
      b('allow-closed', 'Run on a closed issue'),
      b('no-wait', 'Return without waiting for the worker to start'),
      json,
    ],
    load: () => import('./commands/worker.js'),
  },
  {
    name: 'worker report',
    positionals: [],
    description: "File this worker's report (run inside a worker); exit 0 for done, 4 for blocked or failed",
    options: [
      s('file', 'The markdown report'),
      b('stdin', 'Read the report from standard input'),
      s('status', 'done (default), blocked or failed'),
      b('allow-unpushed', 'Waive the upstream check of a done report (never the clean-tree check)'),
      s('verdict', 'Refused: a worker files no verdict'),
      s('defects', 'Refused: a worker files no verdict'),
      s('verdict-file', 'Refused: a worker files no verdict'),
      json,
    ],
    load: () => import('./commands/lane-report.js').then((m) => ({ run: m.reportAs('worker') })),
  },
  {
    name: 'worker wait',
    positionals: ['[worker]'],
    description:
      'Wait for the next report of a worker, of the workers of an issue, or of those a conversation ran; exit 0 done, 4 blocked/failed, 2 exited or idle, 3 timeout',
    options: [
      s('issue', 'Wait on every worker of this issue'),
      s('parent', 'Wait on every worker this conversation ran'),
      s('project', 'Project of a local: or # issue'),
      s('after', 'Cursor: a report seq for one worker, <atMs>.<name>.<seq> for a set'),
      s('timeout', 'Seconds to wait'),
      json,
    ],
    load: () => import('./commands/lane-wait.js').then((m) => ({ run: m.workerWait })),
  },
  {
    name: 'worker list',
    positionals: [],
    description: 'List workers (archived ones too)',
    options: [
      s('issue', 'Only the workers of this issue'),
      s('parent', 'Only the workers this conversation ran'),
      s('project', 'Project of a local: or # issue'),
      json,
    ],
    load: () => import('./commands/worker.js').then((m) => ({ run: m.list })),
  },
  {
    name: 'worker show',
    positionals: ['<worker>'],
    description: 'Show one worker',
    options: [json],
    load: () => import('./commands/worker.js').then((m) => ({ run: m.show })),
  },
  {
    name: 'worker stop',
    positionals: ['<worker>'],
    description: 'Stop a worker (its whole process group)',
    options: [json],
    load: () => import('./commands/worker.js').then((m) => ({ run: m.stop })),
  },
  {
    name: 'worker reap',
    positionals: ['<worker>'],
    description: "Remove a worker's directory and archive it; never kills a process, never discards work",
    options: [
      b('park', 'Save uncommitted work to a verified patch, then clean'),
      b('keep', 'Leave the ended conversation listed instead of archiving it'),
      json,
    ],
    load: () => import('./commands/worker.js').then((m) => ({ run: m.reap })),
  },
  {
    name: 'issue new',
    positionals: [],
    description: 'Create a local issue of a project; prints its reference, local:<n>',
    options: [
      s('project', 'Project key from projects.yaml (default: the checkout holding this directory)'),
      s('title', 'One-line title'),
      s('body', 'The body as text'),
      s('body-file', 'File holding the body'),
      json,
    ],
    load: () => import('./commands/issue.js').then((m) => ({ run: m.issueNew })),
  },
  {
    name: 'issue list',
    positionals: [],
    description: 'List local issues',
    options: [s('project', 'Only this project'), s('state', 'open or closed'), json],
    load: () => import('./commands/issue.js').then((m) => ({ run: m.issueList })),
  },
  {
    name: 'issue show',
    positionals: ['<ref>'],
    description: "Show an issue: local:<n>, gh:<owner>/<repo>#<n>, or #<n> on the project's origin",
    options: [s('project', 'Project of local:<n> and #<n> (default: the checkout holding this directory)'), json],
    load: () => import('./commands/issue.js').then((m) => ({ run: m.issueShow })),
  },
  {
    name: 'issue close',
    positionals: ['<ref>'],
    description: 'Close a local issue',
    options: [s('project', 'Project of local:<n> (default: the checkout holding this directory)'), json],
    load: () => import('./commands/issue.js').then((m) => ({ run: m.issueClose })),
  },
  {
    name: 'deck',
    positionals: [],
    description: 'Print (and on a terminal, open) the address of the Command Deck',
    options: [
      b('no-open', 'Only print the address'),
      b('revoke', 'End every deck session (browsers must log in again)'),
      json,
    ],
    load: () => import('./commands/deck.js'),
  },
  {
    name: 'doctor',
    positionals: [],
    description: 'Check the harness CLIs, git, lsof, the lanes roots and the kernel; exit 1 on any problem',
    options: [json],
    load: () => import('./commands/doctor.js'),
  },
  {
    name: 'runner',
    positionals: ['<name>'],
    description: 'Drive one conversation (started by the kernel)',
    options: [],
    hidden: true,
    load: () => import('./commands/runner.js'),
  },
  {
    name: 'kernel run',
    positionals: [],
    description: 'Run the kernel in the foreground',
    options: [],
    hidden: true,
    load: () => import('./commands/kernel.js').then((m) => ({ run: m.runForeground })),
  },
]
