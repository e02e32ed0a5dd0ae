import type { HarnessAdapter } from './types.js'

/** Harness `shell`: the brief's text run as a bash script (bash -e) in the lane's directory. The contract is at
 * $SERVICE_CONTRACT; messages sent with `tell` are appended to $SERVICE_INBOX. The script exiting ends it. */
export const shellAdapter: HarnessAdapter = {
  name: 'shell',
  buildLaunch(spec) {
    if (!spec.script) throw new Error('the shell harness needs a script (a brief or a --prompt)')
    const ignored = [spec.model && `--model ${spec.model}`, spec.effort && `--effort ${spec.effort}`].filter(Boolean)
    return {
      command: 'bash',
      args: ['-e', spec.script],
      stdin: 'none',
      ...(ignored.length ? { notes: [`the shell harness runs a script: it ignores ${ignored.join(' and ')}`] } : {}),
    }
  },
  started(now) {
    return { state: { phase: { value: 'working', source: 'process start', at: now } } }
  },
  stdoutLine(line) {
    return { transcript: [{ kind: 'stdout', text: line }] }
  },
  deliver(text, _state, _now) {
    return { transcript: [{ kind: 'user', text }], appendToFile: text.endsWith('\n') ? text : text + '\n' }
  },
  exited() {
    return { end: true }
  },
}
