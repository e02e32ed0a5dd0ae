import { existsSync } from 'node:fs'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import * as activity from '../../kernel/domain/activity.js'
import * as contract from '../../kernel/domain/contract.js'
import * as conversation from '../../kernel/domain/conversation.js'
import * as cursor from '../../kernel/domain/cursor.js'
import * as keys from '../../kernel/domain/keys.js'
import * as lane from '../../kernel/domain/lane.js'
import * as laneLines from '../../kernel/domain/lane-lines.js'
import * as lanePaths from '../../kernel/domain/lane-paths.js'
import * as laneSummary from '../../kernel/domain/lane-summary.js'
import * as launchRequest from '../../kernel/domain/launch-request.js'
import * as launchRules from '../../kernel/domain/launch-rules.js'
import * as launcher from '../../kernel/domain/launcher.js'
import * as limits from '../../kernel/domain/limits.js'
import * as listColumns from '../../kernel/domain/list-columns.js'
import * as reapPlan from '../../kernel/domain/reap-plan.js'
import * as reportRules from '../../kernel/domain/report-rules.js'
import * as verbForms from '../../kernel/domain/verb-forms.js'
import * as waitPick from '../../kernel/domain/wait-pick.js'

// The rulebook's index: every rule of SPEC.md sections 3, 4.1 (start rules 1-8, report rules, wait, reap steps), 5
// and 8, and the rulebook export that decides it. A rule whose function is renamed or gone fails here. The few rules
// that are about real files, git or processes (and nothing to decide) name the end-to-end suite that proves them.

type Where = { module: Record<string, unknown>; name: string } | { e2e: string }
const at = (module: Record<string, unknown>, ...names: string[]): Where[] => names.map((name) => ({ module, name }))
const e2e = (file: string): Where[] => [{ e2e: file }]

const INDEX: Record<string, Where[]> = {
  '3 activity table (first match wins)': at(activity, 'deriveActivity'),
  '3 a starting lane counts as live': at(activity, 'isLive', 'STARTING_WINDOW_MS'),
  '3 a branch whose builder reported done is frozen': at(reportRules, 'branchNotFrozen'),
  '3 a judge with its done report takes no message, unless --force': at(activity, 'takesMessages'),
  '3 git facts only for git-backed lanes not archived': at(lanePaths, 'readsGitFacts'),
  '4.1 start: one of --key/--for, --run required from a root': at(launchRequest, 'laneKeyOf', 'launchRun'),
  '4.1 start: --model or the role default, else refused': at(launchRules, 'launchModel'),
  '4.1 start: --reuse continues the latest earlier lane': at(launchRules, 'reuseTarget'),
  '4.1 start: --branch/--from for builders, --at for detached worktrees': at(launchRequest, 'optionsFitRole'),
  '4.1 start behaviour 3: the contract first': at(contract, 'buildContract'),
  '4.1 start behaviour 4: wait up to 180 s': at(limits, 'START_WAIT_LIMIT_MS'),
  '4.1 start behaviour 5: the Lane line': at(laneLines, 'startLine'),
  '4.1 start rule 1: the effective launcher may start the role': at(launcher, 'effectiveLauncher', 'mayLaunch'),
  '4.1 start rule 2: builder, critic and verifier lanes launch nothing': at(launcher, 'mayLaunch'),
  '4.1 start rule 3: one live lane per run, key and role': at(launchRules, 'oneLiveLane'),
  '4.1 start rule 4: a new iteration cuts from the previous newest report branch': at(launchRules, 'builderStartPoint'),
  '4.1 start rule 5: the base is fetched before every git-backed launch': at(launchRules, 'fetchServes'),
  '4.1 start rule 6: --for for a critic, --key defaults to it, an absent builder refused': at(launchRequest, 'laneKeyOf').concat(at(launchRules, 'judgedBuilder')),
  '4.1 start rule 7: a critic at the newest done head, or refused': at(launchRules, 'criticCheckout'),
  '4.1 start rule 8: the judged row recorded once, no builder text in the contract': at(launchRules, 'judgedBuilder').concat(at(contract, 'buildContract')),
  '4.1 list columns': at(listColumns, 'laneCells'),
  '4.1 list VERDICT: newest critic verdict for a builder': at(laneSummary, 'rowVerdict'),
  '4.1 show chain': at(laneSummary, 'chainText'),
  '4.1 show line': at(laneLines, 'showLine'),
  '4.1 stop line': at(laneLines, 'stopLine'),
  '4.1 wait: the oldest report after the cursor': at(waitPick, 'pickNext'),
  '4.1 wait: the cursor <atMs>.<name>.<seq>': at(cursor, 'parseCursor', 'formatCursor', 'isAfter'),
  '4.1 wait/report exit codes 0 and 4': at(reportRules, 'reportExitCode'),
  '4.1 wait exit codes 2 and 3': at(waitPick, 'WAIT_EXIT'),
  '4.1 report rule 1: recorded under conv-<name> with head and branch': e2e('test/e2e/report-wait.test.ts'),
  '4.1 report rule 2: clean tree, pushed upstream': at(reportRules, 'builderDoneClean'),
  '4.1 report rule 3: blocked openers': at(reportRules, 'blockedBeginsRight', 'blockedOpener'),
  '4.1 report rule 4: failed': at(reportRules, 'checkReport'),
  '4.1 report rule 5: one verdict with the done report': at(reportRules, 'verdictAllowed', 'oneVerdict'),
  '4.1 report rule 6: not inside a lane': at(reportRules, 'reportingLane'),
  '4.1 reap step 1: the harness still alive after 30 s': at(reapPlan, 'reapRefusal').concat(at(limits, 'REAP_STOP_LIMIT_MS')),
  '4.1 reap step 2: outside the lanes root': at(reapPlan, 'reapRefusal'),
  '4.1 reap step 3: processes inside, listed': at(reapPlan, 'processRefusal', 'countsAgainstReap'),
  '4.1 reap step 4: dirty without --park': at(reapPlan, 'reapRefusal', 'parkedPatchName', 'parkedRef'),
  '4.1 reap step 5: unpushed commits warn, the branch kept': at(reapPlan, 'unpushedWarning'),
  '4.1 reap step 6: play kept when it holds .git': at(reapPlan, 'playKeptWarning'),
  '4.1 reap step 7: archiving fails, the reap succeeds': at(reapPlan, 'archiveFailedMessage'),
  '5 who may launch each role': at(launcher, 'mayLaunch'),
  '5 the effective launcher follows parent links': at(launcher, 'effectiveLauncher'),
  '8 run key and lane key patterns': at(keys, 'isRunKey', 'isLaneKey'),
  '8 wait for start 180 s': at(limits, 'START_WAIT_LIMIT_MS'),
  '8 starting: under 3 minutes': at(activity, 'STARTING_WINDOW_MS'),
  '8 idle 10 minutes makes wait exit 2': at(waitPick, 'IDLE_LIMIT_MS'),
  '8 reap waits 30 s': at(limits, 'REAP_STOP_LIMIT_MS'),
  '8 --effort values': at(keys, 'EFFORTS'),
  '8 one live lane per run, key and role': at(launchRules, 'oneLiveLane'),
  '8 one report (done, with verdict) per critic or verifier': at(reportRules, 'oneVerdict'),
  '8 lanes root under home, outside /tmp, not holding the checkout': at(lanePaths, 'lanesRootProblem'),
  '8 pairing: critics of iteration n': at(laneSummary, 'criticsOf'),
  '8 pairing: a builder of n >= 2 answers the newest critic of n - 1': at(launchRules, 'answeredVerdict'),
  // The argument forms and lookups of wait, show and the calling conversation (services/decided turns them into errors).
  '4.1 wait: exactly one of a lane, --run or --parent; --after by form': at(verbForms, 'oneWaitForm', 'afterSeq', 'afterCursor'),
  '4.1 show: a lane, or --run with --key; no lanes of them': at(verbForms, 'showForm').concat(at(lane, 'chainFound')),
  '8 run and lane keys to pick lanes by (list, show, wait --run)': at(keys, 'keysFit'),
  '5 $SERVICE_CONVERSATION names the launching conversation': at(conversation, 'callerSet', 'conversationFound').concat(at(keys, 'convRefParsed')),
}

test('rule index: every rule of SPEC.md 3, 4.1, 5 and 8 names the rulebook export (or e2e suite) that decides it', () => {
  for (const [rule, wheres] of Object.entries(INDEX)) {
    assert.ok(wheres.length > 0, rule)
    for (const w of wheres) {
      if ('e2e' in w) assert.ok(existsSync(w.e2e), `${rule}: ${w.e2e}`)
      else assert.ok(w.module[w.name] !== undefined, `${rule}: ${w.name} is not exported`)
    }
  }
})

test('rule index: each numbered rule of SPEC.md 4.1 start (1-8), report (1-6) and reap (1-7) has its entry', () => {
  const numbered = (what: string, n: number) => Array.from({ length: n }, (_, i) => `4.1 ${what} ${i + 1}`)
  for (const prefix of [...numbered('start rule', 8), ...numbered('report rule', 6), ...numbered('reap step', 7)])
    assert.ok(Object.keys(INDEX).some((k) => k.startsWith(`${prefix}:`)), prefix)
})

test('rule index: the SPEC.md section 5 table row by row (mayLaunch is the only one deciding it)', () => {
  const who: Record<keys.Role, string[]> = { orchestrator: ['root'], builder: ['root', 'orchestrator'], critic: ['root'], verifier: ['root', 'orchestrator'], play: ['root', 'orchestrator'] }
  const rec = (role?: keys.Role) => (role ? { lane: { run: 'r', key: 'k', role, dir: 'd', root: '/', iteration: 1 } } : {})
  for (const role of keys.ROLES)
    for (const by of ['root', ...keys.ROLES] as const)
      assert.is(launcher.mayLaunch(rec(by === 'root' ? undefined : by), role).ok, who[role].includes(by), `${by} launching ${role}`)
})

test.run()
