import type { AnsweredVerdict } from './chains.js'
import type { Role } from './keys.js'

interface ContractFacts {
  role: Role
  run: string
  key: string
  iteration: number
  cwd: string
  branch?: string
  at?: string
  brief: string
  /** A critic or verifier: the judged builder row (key and iteration) and the commit. No name, no report text. */
  judged?: { key: string; iteration: number; sha?: string }
  /** A builder of iteration n >= 2: the verdict it answers. */
  answers?: AnsweredVerdict
}

const REPORT_HELP: Record<Role, string[]> = {
  builder: [
    'When the brief is done: commit everything, push the branch with its upstream (`git push -u origin HEAD`), then',
    '`svc lane report --file <report.md>` (status done). A done report is refused from a dirty tree or with commits',
    'the upstream lacks; after it your branch is frozen: no further report from this iteration.',
  ],
  critic: [
    'Judge the commit, then file exactly one verdict with your done report:',
    '`svc lane report --file <report.md> --verdict WOWED|IMPRESSED|NOT_YET --verdict-file <verdict.json>`',
    'where verdict.json holds an array `defects` (its length is the defect count unless you pass --defects).',
  ],
  verifier: [
    'Verify, then file exactly one verdict with your done report:',
    '`svc lane report --file <report.md> --verdict PASS|DEFECTS --verdict-file <verdict.json>`',
    'where verdict.json holds an array `defects` (its length is the defect count unless you pass --defects).',
  ],
  orchestrator: [
    'Launch builders, verifiers and play lanes of this run with `svc lane start`, wait on them with',
    '`svc lane wait --run <run>`, and file your own report with `svc lane report --file <report.md>` when the run ' +
      'is done.',
  ],
  play: ['Work freely in this empty directory.'],
}

/** The lane contract: the first message of a lane's conversation. States role, run, key, iteration, the brief, and
 * how and when to report. */
export function buildContract(f: ContractFacts): string {
  const lines = [
    `# Lane contract: ${f.role} ${f.run}/${f.key} i${f.iteration}`,
    '',
    `- Role: ${f.role}`,
    `- Run: ${f.run}`,
    `- Lane key: ${f.key}`,
    `- Iteration: i${f.iteration}`,
    `- Working directory: ${f.cwd}`,
  ]
  if (f.branch) lines.push(`- Branch: ${f.branch}`)
  if (f.at) lines.push(`- Checked out (detached) at: ${f.at}`)
  if (f.judged)
    lines.push(
      `- You judge builder ${f.judged.key} i${f.judged.iteration}${f.judged.sha ? ` at commit ${f.judged.sha}` : ''}.`,
    )
  if (f.answers)
    lines.push(
      `- This iteration answers the verdict of critic conv ${f.answers.id}: ` +
        `${f.answers.verdict ?? '(no verdict filed)'}` +
        `${f.answers.verdictFile ? `, verdict file ${f.answers.verdictFile}` : ''}.`,
    )
  if (f.role !== 'play') {
    lines.push('', '## Reporting', '', ...REPORT_HELP[f.role], '')
    lines.push(
      'If you cannot go on, `svc lane report --status blocked --file <f>`; the report must begin with RULING, ' +
        'SPEND, ONE-WAY or BLOCKED.',
    )
    lines.push('If the brief cannot be done, `svc lane report --status failed --file <f>`.')
  }
  lines.push('', '## Brief', '', f.brief.trimEnd(), '')
  return lines.join('\n')
}
