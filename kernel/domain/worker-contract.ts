/** The worker contract: the first message of a worker's conversation. States the issue it belongs to (as snapshot
 * at its run), its directory and branch, the brief, and how to report. */
interface WorkerContractFacts {
  issue: string
  title: string
  url: string
  iteration: number
  cwd: string
  branch?: string
  brief: string
}

export function buildWorkerContract(f: WorkerContractFacts): string {
  return [
    `# Worker contract: ${f.issue} i${f.iteration}`,
    '',
    `- Issue: ${f.issue} ${f.title}`,
    `- Issue address: ${f.url}`,
    `- Iteration: i${f.iteration}`,
    `- Working directory: ${f.cwd}`,
    ...(f.branch ? [`- Branch: ${f.branch}`] : []),
    '- The issue as it stood when you were run is issue.json in your conversation directory.',
    '',
    '## Reporting',
    '',
    'When the brief is done: commit everything, push the branch with its upstream (`git push -u origin HEAD`), then',
    '`svc worker report --file <report.md>` (status done). A done report is refused from a dirty tree or with commits',
    'the upstream lacks; after it your branch is frozen: no further report from this iteration.',
    'If you cannot go on, `svc worker report --status blocked --file <f>`; the report must begin with RULING, ' +
      'SPEND, ONE-WAY or BLOCKED.',
    'If the brief cannot be done, `svc worker report --status failed --file <f>`.',
    'Each report is sent to the conversation that ran you.',
    '',
    '## Brief',
    '',
    f.brief.trimEnd(),
    '',
  ].join('\n')
}
