import type { KernelPort } from '../kernel/port/port.js'
import type { Io } from './io.js'

/** An option of a verb: a string takes a value, a boolean is present or not. */
export interface OptionSpec {
  type: 'string' | 'boolean'
  description: string
}

/** A verb's declaration: its positionals (`<name>` required, `[name]` optional), what it does and its options. The
 * parser, the help and the type of what the command receives all come from it. */
export interface VerbSpec {
  positionals: readonly string[]
  description: string
  options: Readonly<Record<string, OptionSpec>>
  hidden?: boolean
}

const verb = <const P extends readonly string[], const O extends Record<string, OptionSpec>>(v: {
  positionals: P
  description: string
  options: O
  hidden?: boolean
}) => v

const s = <const D extends string>(description: D) => ({ type: 'string', description }) as const
const b = <const D extends string>(description: D) => ({ type: 'boolean', description }) as const
const json = b('Machine-readable output')

/** Every verb of `svc`. Each is declared here once; its code lives in cli/commands/ (see cli/table.ts). */
export const VERBS = {
  'kernel start': verb({
    positionals: [],
    description: 'Start the kernel for this SERVICE_HOME (a no-op when one answers)',
    options: { json },
  }),
  'kernel stop': verb({
    positionals: [],
    description: 'Stop the kernel',
    options: { json },
  }),
  'kernel status': verb({
    positionals: [],
    description: 'Show the kernel of this SERVICE_HOME; exit 1 when none runs',
    options: { json },
  }),
  'conv new': verb({
    positionals: [],
    description: 'Create a root conversation and print its id',
    options: {
      project: s('Project key from projects.yaml'),
      harness: s('claude, codex, shell or none (default claude)'),
      model: s('Model'),
      effort: s('low, medium or high'),
      cwd: s('Working directory (default: the project checkout, else here)'),
      prompt: s('First message (the script, for the shell harness)'),
      name: s('Conversation name'),
      title: s('Title'),
      json,
    },
  }),
  'conv list': verb({
    positionals: [],
    description: 'List conversations',
    options: { all: b('Include archived conversations'), json },
  }),
  'conv show': verb({
    positionals: ['<conv>'],
    description: 'Show one conversation',
    options: { json },
  }),
  'conv stop': verb({
    positionals: ['<conv>'],
    description: 'Stop a conversation (its whole process group)',
    options: { json },
  }),
  'conv archive': verb({
    positionals: ['<conv>'],
    description: 'Archive a stopped conversation',
    options: { json },
  }),
  'conv transcript': verb({
    positionals: ['<conv>'],
    description: "Print a conversation's transcript",
    options: { json },
  }),
  'conv mark': verb({
    positionals: ['<phase>'],
    description: 'Publish the state of $SERVICE_CONVERSATION: working, idle or needs-you',
    options: { reason: s('With needs-you: question, permission or plan'), json },
  }),
  'conv answer': verb({
    positionals: ['<conv>', '<decision>'],
    description: 'Answer the permission, question or plan a conversation waits on (needs-you): allow or deny',
    options: { message: s('With deny: the reason; with allow to a question: the answer'), json },
  }),
  tell: verb({
    positionals: ['<conv>', '<text>'],
    description: 'Send a message to a conversation',
    options: { force: b('Send even to a critic or verifier that filed its done report'), json },
  }),
  handoff: verb({
    positionals: [],
    description: 'Continue $SERVICE_CONVERSATION in a successor; prints its id',
    options: {
      harness: s('Harness of the successor'),
      model: s('Model of the successor'),
      prompt: s('First message of the successor'),
      json,
    },
  }),
  fork: verb({
    positionals: [],
    description: 'Fork $SERVICE_CONVERSATION into a successor; prints its id',
    options: {
      harness: s('Harness of the successor'),
      model: s('Model of the successor'),
      prompt: s('First message of the successor'),
      json,
    },
  }),
  'lane start': verb({
    positionals: [],
    description: 'Launch a lane: a conversation with a role in its own working directory',
    options: {
      key: s('Lane key (^[a-z0-9][a-z0-9._-]{0,39}$)'),
      for: s('Critic or verifier: the builder key it judges'),
      role: s('builder, critic, verifier, play or orchestrator'),
      brief: s('File holding the brief'),
      prompt: s('The brief as text'),
      run: s('Run key (required from a root conversation)'),
      parent: s('Conversation to nest the lane under'),
      project: s('Project key from projects.yaml'),
      model: s("Model (default: the role's model in the gauntlet configuration)"),
      harness: s('claude, codex, shell or none'),
      effort: s('low, medium or high'),
      title: s('Title'),
      branch: s('Builder: name of the new branch'),
      from: s('Builder: ref to cut the branch from'),
      at: s('Detached worktree: commit to check out'),
      reuse: b('Continue in the directory of the latest earlier lane of this run, key and role'),
      replace: b('Stop the live lane of this run, key and role first'),
      'no-wait': b('Return without waiting for the lane to start'),
      host: s("Run the lane on this host of hosts.yaml (default: the role's or the project's host, else here)"),
      json,
    },
  }),
  'lane report': verb({
    positionals: [],
    description: "File this lane's report (run inside a lane); exit 0 for done, 4 for blocked or failed",
    options: {
      file: s('The markdown report'),
      stdin: b('Read the report from standard input'),
      status: s('done (default), blocked or failed'),
      'allow-unpushed': b("Waive the upstream check of a builder's done report (never the clean-tree check)"),
      verdict: s('Critic or verifier: WOWED, IMPRESSED, NOT_YET, PASS or DEFECTS'),
      defects: s('Defect count (default: length of the defects array of the verdict file)'),
      'verdict-file': s('JSON file with an array named defects'),
      json,
    },
  }),
  'lane wait': verb({
    positionals: ['[lane]'],
    description:
      'Wait for the next report of a lane, or of any lane of a run or parent; exit 0 done, 4 blocked/failed, 2 ' +
      'exited or idle, 3 timeout',
    options: {
      run: s('Wait on every lane of this run'),
      parent: s('Wait on every lane launched by this conversation'),
      after: s('Cursor: a report seq for one lane, <atMs>.<name>.<seq> for a set'),
      timeout: s('Seconds to wait'),
      json,
    },
  }),
  'lane list': verb({
    positionals: [],
    description: 'List lanes (archived ones too)',
    options: { run: s('Only this run'), parent: s('Only lanes launched by this conversation'), json },
  }),
  'lane show': verb({
    positionals: ['[lane]'],
    description: 'Show the chain of a builder and its critics, then each lane',
    options: { run: s('Run key (with --key)'), key: s('Lane key (with --run)'), json },
  }),
  'lane stop': verb({
    positionals: ['<lane>'],
    description: 'Stop a lane (its whole process group)',
    options: { json },
  }),
  'lane reap': verb({
    positionals: ['<lane>'],
    description: "Remove a lane's directory and archive it; never kills a process, never discards work",
    options: {
      park: b('Save uncommitted work to a verified patch, then clean'),
      keep: b('Leave the ended conversation listed instead of archiving it'),
      json,
    },
  }),
  'worker run': verb({
    positionals: ['<issue>'],
    description: 'Run a worker on an issue: a conversation in its own worktree that reports to whoever ran it',
    options: {
      brief: s('Brief file (for the shell harness: the script)'),
      prompt: s('Brief as text'),
      project: s('Project key from projects.yaml'),
      harness: s('claude, codex, shell or none (default claude)'),
      model: s('Model'),
      effort: s('low, medium or high'),
      from: s('Cut the branch from this ref (default origin/<default branch>)'),
      branch: s('Branch name (default worker/<tracker>-<id>[-i<n>])'),
      title: s('Title (default: the issue title)'),
      replace: b('Stop the live worker of this issue first'),
      reuse: b('Continue in the directory of the latest earlier worker of this issue'),
      post: b('Post each report to the issue as a comment'),
      'allow-closed': b('Run on a closed issue'),
      'no-wait': b('Return without waiting for the worker to start'),
      json,
    },
  }),
  'worker report': verb({
    positionals: [],
    description: "File this worker's report (run inside a worker); exit 0 for done, 4 for blocked or failed",
    options: {
      file: s('The markdown report'),
      stdin: b('Read the report from standard input'),
      status: s('done (default), blocked or failed'),
      'allow-unpushed': b('Waive the upstream check of a done report (never the clean-tree check)'),
      verdict: s('Refused: a worker files no verdict'),
      defects: s('Refused: a worker files no verdict'),
      'verdict-file': s('Refused: a worker files no verdict'),
      json,
    },
  }),
  'worker wait': verb({
    positionals: ['[worker]'],
    description:
      'Wait for the next report of a worker, of the workers of an issue, or of those a conversation ran; exit 0 ' +
      'done, 4 blocked/failed, 2 exited or idle, 3 timeout',
    options: {
      issue: s('Wait on every worker of this issue'),
      parent: s('Wait on every worker this conversation ran'),
      project: s('Project of a local: or # issue'),
      after: s('Cursor: a report seq for one worker, <atMs>.<name>.<seq> for a set'),
      timeout: s('Seconds to wait'),
      json,
    },
  }),
  'worker list': verb({
    positionals: [],
    description: 'List workers (archived ones too)',
    options: {
      issue: s('Only the workers of this issue'),
      parent: s('Only the workers this conversation ran'),
      project: s('Project of a local: or # issue'),
      json,
    },
  }),
  'worker show': verb({
    positionals: ['<worker>'],
    description: 'Show one worker',
    options: { json },
  }),
  'worker stop': verb({
    positionals: ['<worker>'],
    description: 'Stop a worker (its whole process group)',
    options: { json },
  }),
  'worker reap': verb({
    positionals: ['<worker>'],
    description: "Remove a worker's directory and archive it; never kills a process, never discards work",
    options: {
      park: b('Save uncommitted work to a verified patch, then clean'),
      keep: b('Leave the ended conversation listed instead of archiving it'),
      json,
    },
  }),
  'issue new': verb({
    positionals: [],
    description: 'Create a local issue of a project; prints its reference, local:<n>',
    options: {
      project: s('Project key from projects.yaml (default: the checkout holding this directory)'),
      title: s('One-line title'),
      body: s('The body as text'),
      'body-file': s('File holding the body'),
      json,
    },
  }),
  'issue list': verb({
    positionals: [],
    description: 'List local issues',
    options: { project: s('Only this project'), state: s('open or closed'), json },
  }),
  'issue show': verb({
    positionals: ['<ref>'],
    description: "Show an issue: local:<n>, gh:<owner>/<repo>#<n>, or #<n> on the project's origin",
    options: { project: s('Project of local:<n> and #<n> (default: the checkout holding this directory)'), json },
  }),
  'issue close': verb({
    positionals: ['<ref>'],
    description: 'Close a local issue',
    options: { project: s('Project of local:<n> (default: the checkout holding this directory)'), json },
  }),
  deck: verb({
    positionals: [],
    description: 'Print (and on a terminal, open) the address of the Command Deck',
    options: {
      'no-open': b('Only print the address'),
      revoke: b('End every deck session (browsers must log in again)'),
      json,
    },
  }),
  'host add': verb({
    positionals: ['<name>'],
    description: 'Add a host lanes may run on, reached with ssh; it is reached once and its host key recorded',
    options: {
      ssh: s('user@address or user@address:port (required)'),
      'lanes-root': s('Where lanes go on the host: an absolute path or ~/path (default ~/svc-lanes)'),
      identity: s('Private key file to log in with (default: your ssh agent and keys)'),
      'host-key': s("The host's public key ('<type> <base64>'); without it the first key seen is recorded"),
      json,
    },
  }),
  'host list': verb({
    positionals: [],
    description: 'List the hosts of hosts.yaml',
    options: { json },
  }),
  'host show': verb({
    positionals: ['<name>'],
    description: 'Show a host and what it answers now; exit 1 when it does not',
    options: { json },
  }),
  'host remove': verb({
    positionals: ['<name>'],
    description: 'Remove a host: its connection closed, its recorded key forgotten',
    options: {
      'forget-lanes': b(
        "For a host gone for good: give up its lanes' worktrees there (what home holds is kept), then remove it",
      ),
      json,
    },
  }),
  doctor: verb({
    positionals: [],
    description: 'Check the harness CLIs, git, lsof, the lanes roots, the hosts and the kernel; exit 1 on any problem',
    options: { json },
  }),
  'runner serve': verb({
    positionals: [],
    description: 'Drive every lane of the home (started by the kernel)',
    options: {},
    hidden: true,
  }),
  'kernel run': verb({
    positionals: [],
    description: 'Run the kernel in the foreground',
    options: {},
    hidden: true,
  }),
} as const satisfies Record<string, VerbSpec>

export type VerbName = keyof typeof VERBS

type Required<P> = P extends `<${infer N}>` ? N : never
type Optional<P> = P extends `[${infer N}]` ? N : never

/** What a command receives: each option by its flag (a string, or true when given), each positional by its name. */
export type ArgsOf<V extends VerbSpec> = {
  readonly [F in keyof V['options']]?: V['options'][F]['type'] extends 'string' ? string : true
} & { readonly [P in V['positionals'][number] as Required<P>]: string } & {
  readonly [P in V['positionals'][number] as Optional<P>]?: string
}

export type Args<N extends VerbName> = ArgsOf<(typeof VERBS)[N]>

/** A command: given the port, its parsed arguments and its streams, it answers with an exit code. */
export type Run<N extends VerbName> = (port: KernelPort, args: Args<N>, io: Io) => Promise<number>
