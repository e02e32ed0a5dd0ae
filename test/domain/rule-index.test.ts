import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import * as actingAs from '../../kernel/domain/acting-as.js'
import * as activity from '../../kernel/domain/activity.js'
import * as authority from '../../kernel/domain/authority.js'
import * as chains from '../../kernel/domain/chains.js'
import * as configuration from '../../kernel/domain/configuration.js'
import * as contract from '../../kernel/domain/contract.js'
import * as conversation from '../../kernel/domain/conversation.js'
import * as convTree from '../../kernel/domain/conv-tree.js'
import * as keys from '../../kernel/domain/keys.js'
import * as lane from '../../kernel/domain/lane.js'
import * as laneClaim from '../../kernel/domain/lane-claim.js'
import * as launch from '../../kernel/domain/launch.js'
import * as limits from '../../kernel/domain/limits.js'
import * as listShow from '../../kernel/domain/list-show.js'
import * as reap from '../../kernel/domain/reap.js'
import * as report from '../../kernel/domain/report-rules.js'
import * as wait from '../../kernel/domain/wait.js'
import { codeOnly, declarations, reachedRules, sourcesUnder } from '../helpers/rule-callers.js'

// The rulebook's index: every rule of SPEC.md sections 3, 4.1 (start rules 1-8, report rules, wait, reap steps), 5
// and 8, and the rulebook export that decides it. A rule whose function is renamed or gone fails here. The few rules
// that are about real files, git or processes (and nothing to decide) name the end-to-end suite that proves them.
// It reads the section modules, the modules whose rules serve several sections (keys and limits for the constants,
// conversation, lane, lane-claim, and conv-tree for the deck's tree), and contract.ts, the text of the lane contract
// (start behaviour 3) that launch rule 8 constrains.

type Where = { module: Record<string, unknown>; name: string } | { e2e: string }
const at = (module: Record<string, unknown>, ...names: string[]): Where[] => names.map((name) => ({ module, name }))
const e2e = (file: string): Where[] => [{ e2e: file }]

const INDEX: Record<string, Where[]> = {
  '3 activity table (first match wins)': at(activity, 'deriveActivity'),
  '3 a starting lane counts as live': at(activity, 'isLive', 'STARTING_WINDOW_MS'),
  '3 a branch whose builder reported done is frozen': at(report, 'branchNotFrozen'),
  '3 a judge with its done report takes no message, unless --force': at(activity, 'takesMessages'),
  '3 git facts only for git-backed lanes not archived': at(activity, 'readsGitFacts', 'gitFactsFrom'),
  '4.1 start: one of --key/--for, --run required from a root': at(launch, 'laneKeyOf', 'launchRun'),
  '4.1 start: --model or the role default, else refused': at(launch, 'launchModel'),
  '4.1 start: --reuse continues the latest earlier lane': at(launch, 'reuseTarget', 'reuseReachable'),
  '4.1 start: --branch/--from for builders, --at for detached worktrees': at(launch, 'optionsFitRole'),
  '4.1 start behaviour 3: the contract first': at(contract, 'buildContract'),
  '4.1 start behaviour 4: wait up to 180 s': at(limits, 'START_WAIT_LIMIT_MS'),
  '4.1 start behaviour 5: the Lane line': at(listShow, 'startLine'),
  '4.1 start rule 1: the effective launcher may start the role': at(launch, 'effectiveLauncher', 'mayLaunch'),
  '4.1 start rule 2: builder, critic and verifier lanes launch nothing': at(launch, 'mayLaunch'),
  '4.1 start rule 3: one live lane per run, key and role': at(launch, 'oneLiveLane'),
  '4.1 start rule 4: a new iteration cuts from the previous newest report branch': at(launch, 'builderStartPoint'),
  '4.1 start rule 5: the base is fetched before every git-backed launch': at(launch, 'fetchServes'),
  '4.1 start rule 6: --for for a critic, --key defaults to it, an absent builder refused': at(
    launch,
    'laneKeyOf',
  ).concat(at(launch, 'judgedBuilder')),
  '4.1 start rule 7: a critic at the newest done head, or refused': at(launch, 'criticCheckout'),
  '4.1 start rule 8: the judged row recorded once, no builder text in the contract': at(launch, 'judgedBuilder').concat(
    at(contract, 'buildContract'),
  ),
  '4.1 list columns': at(listShow, 'laneCells'),
  '4.1 list VERDICT: newest critic verdict for a builder': at(chains, 'rowVerdict'),
  '4.1 show chain': at(chains, 'chainText'),
  '4.1 show line': at(listShow, 'showLine'),
  '4.1 stop line': at(listShow, 'stopLine'),
  '4.1 wait: the oldest report after the cursor': at(wait, 'pickNext'),
  '4.1 wait: the cursor <atMs>.<name>.<seq>': at(wait, 'parseCursor', 'formatCursor', 'isAfter'),
  '4.1 wait/report exit codes 0 and 4': at(report, 'reportExitCode'),
  '4.1 wait exit codes 2 and 3': at(wait, 'WAIT_EXIT'),
  '4.1 report rule 1: recorded under conv-<name> with head and branch': e2e('test/e2e/lane-report.test.ts'),
  '4.1 report rule 2: clean tree, pushed upstream': at(report, 'builderDoneClean'),
  '4.1 report rule 3: blocked openers': at(report, 'blockedBeginsRight', 'blockedOpener'),
  '4.1 report rule 4: failed': at(report, 'checkReport'),
  '4.1 report rule 5: one verdict with the done report': at(report, 'verdictAllowed', 'oneVerdict'),
  '4.1 report rule 6: not inside a lane': at(report, 'reportingLane'),
  '4.1 reap: a lane reaped and archived is not reaped again': at(reap, 'notYetReaped'),
  '4.1 reap: builders before the orchestrator lane that launched them': at(reap, 'REAP_ORDER', 'inReapOrder'),
  '4.1 reap steps 1-7 in order: refusals, steps, what is kept': at(reap, 'planReap'),
  '4.1 reap step 1: the harness still alive after 30 s': at(reap, 'reapRefusal').concat(
    at(limits, 'REAP_STOP_LIMIT_MS'),
  ),
  '4.1 reap step 2: outside the lanes root': at(reap, 'reapRefusal'),
  '4.1 reap step 3: processes inside, listed': at(reap, 'processRefusal', 'countsAgainstReap'),
  '4.1 reap step 4: dirty without --park': at(reap, 'reapRefusal', 'parkedPatchName', 'parkedRef'),
  '4.1 reap step 5: unpushed commits warn, the branch kept': at(reap, 'unpushedWarning'),
  '4.1 reap step 6: play kept when it holds .git': at(reap, 'playKeptWarning'),
  '4.1 reap step 7: archiving fails, the reap succeeds': at(reap, 'archiveFailedMessage'),
  '5 who may launch each role': at(launch, 'mayLaunch'),
  '5 the effective launcher follows parent links': at(launch, 'effectiveLauncher'),
  '5 stop, reap, tell and answer belong to the launcher chain and the person': at(
    authority,
    'mayCommand',
    'launcherChain',
    'standingOf',
  ),
  '5 the service itself (kernel stop, hosts) is the person’s and a root conversation’s': at(authority, 'mayAdminister'),
  '5 a caller is who its process tree says, a key only where no tree runs': at(actingAs, 'mayActAs', 'treeOf'),
  '8 run key and lane key patterns': at(keys, 'isRunKey', 'isLaneKey'),
  '8 wait for start 180 s': at(limits, 'START_WAIT_LIMIT_MS'),
  '8 starting: under 3 minutes': at(activity, 'STARTING_WINDOW_MS'),
  '8 idle 10 minutes makes wait exit 2': at(wait, 'IDLE_LIMIT_MS'),
  '8 reap waits 30 s': at(limits, 'REAP_STOP_LIMIT_MS'),
  '8 --effort values': at(keys, 'EFFORTS'),
  '8 one live lane per run, key and role': at(launch, 'oneLiveLane'),
  '8 one report (done, with verdict) per critic or verifier': at(report, 'oneVerdict'),
  '8 lanes root under home, outside /tmp, not holding the checkout': at(configuration, 'lanesRootProblem'),
  '8 configuration: lanes_root, else <project dir>-lanes': at(configuration, 'lanesRootSetting'),
  '8 configuration: a launch needs the checkout, and a lanes root within the constraints': at(
    configuration,
    'checkoutFound',
    'lanesRootFits',
  ),
  '4.1 start: exactly one of --brief or --prompt, not empty': at(conversation, 'briefGiven'),
  '4.1 start: --reuse needs the earlier directory; a new directory is never taken over': at(
    laneClaim,
    'reusableDirectory',
    'pathFree',
    'dirClaimRefusal',
  ),
  '8 configuration: roles.<role>.model and .effort': at(launch, 'launchModel', 'planLaunch'),
  '8 pairing: critics of iteration n': at(chains, 'criticsOf'),
  '8 pairing: a builder of n >= 2 answers the newest critic of n - 1': at(chains, 'answeredVerdict'),
  '8 pairing: a handoff chain renders as a tree, the successor beside the lanes, continues <- #id': at(
    convTree,
    'buildTree',
  ),
  '8 pairing: a critic nests under its judged builder; a builder shows its newest verdict': at(
    convTree,
    'buildTree',
  ).concat(at(chains, 'rowVerdict')),
  // The argument forms and lookups of wait, show and the calling conversation (services/decided turns them into
  // errors).
  '4.1 wait: exactly one of a lane, --run or --parent; --after by form': at(
    wait,
    'oneWaitForm',
    'afterSeq',
    'afterCursor',
  ),
  '4.1 show: a lane, or --run with --key; no lanes of them': at(listShow, 'showForm').concat(at(lane, 'chainFound')),
  '8 run and lane keys to pick lanes by (list, show, wait --run)': at(keys, 'keysFit'),
  '5 $SERVICE_CONVERSATION names the launching conversation': at(conversation, 'callerSet', 'conversationFound').concat(
    at(keys, 'convRefParsed'),
  ),
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

const ROOT = fileURLToPath(new URL('../../..', import.meta.url))

test('rule index: every indexed rule is called by the product, directly or through a rule it calls', () => {
  const rulebook = sourcesUnder(ROOT, ['kernel/domain']).map((f) => f.text)
  const product = sourcesUnder(ROOT, ['kernel', 'cli', 'handlers'])
    .filter((f) => !f.path.startsWith('kernel/domain/'))
    .map((f) => f.text)
  assert.ok(product.length > 50, 'the product sources are read')
  const reached = reachedRules(rulebook, product)
  const never = Object.entries(INDEX).flatMap(([rule, wheres]) =>
    wheres.flatMap((w) => ('name' in w && !reached.has(w.name) ? [`${rule}: ${w.name}`] : [])),
  )
  assert.equal(never, [], 'indexed rules no service, handler or command calls')
})

test('rule index: a rule named only by a test, a comment or a string is not called; one reached through another is', () => {
  const rulebook = [
    [
      'import { x } from "./y.js"',
      'export const LIMIT = 3',
      '/** Uses lonely in prose only. */',
      'export function lonely(a: number) {',
      "  return a > LIMIT ? 'lonely' : `${a}`",
      '}',
      'export function outer(a: number) {',
      '  return inner(a) && /}`/.test(String(a))',
      '}',
      'function inner(a: number) {',
      '  return `${LIMIT + a} ${{ a }.a}` // lonely',
      '}',
    ].join('\n'),
  ]
  const product = ["// lonely\nconst s = 'lonely' + `lonely ${rb.outer(1)}`"]
  assert.equal([...reachedRules(rulebook, product)].sort(), ['LIMIT', 'inner', 'outer'])
  assert.equal([...reachedRules(rulebook, [...product, 'lonely(2)'])].sort(), ['LIMIT', 'inner', 'lonely', 'outer'])
  assert.equal([...declarations(codeOnly(rulebook[0])).keys()], ['LIMIT', 'lonely', 'outer', 'inner'])
})

test('rule index: each numbered rule of SPEC.md 4.1 start (1-8), report (1-6) and reap (1-7) has its entry', () => {
  const numbered = (what: string, n: number) => Array.from({ length: n }, (_, i) => `4.1 ${what} ${i + 1}`)
  for (const prefix of [...numbered('start rule', 8), ...numbered('report rule', 6), ...numbered('reap step', 7)])
    assert.ok(
      Object.keys(INDEX).some((k) => k.startsWith(`${prefix}:`)),
      prefix,
    )
})

test('rule index: the SPEC.md section 5 table row by row (mayLaunch is the only one deciding it)', () => {
  const who: Record<keys.Role, string[]> = {
    orchestrator: ['root'],
    builder: ['root', 'orchestrator'],
    critic: ['root'],
    verifier: ['root', 'orchestrator'],
    play: ['root', 'orchestrator'],
  }
  const rec = (role?: keys.Role) =>
    role ? { lane: { run: 'r', key: 'k', role, dir: 'd', root: '/', iteration: 1 } } : {}
  for (const role of keys.ROLES)
    for (const by of ['root', ...keys.ROLES] as const)
      assert.is(
        launch.mayLaunch(rec(by === 'root' ? undefined : by), role).ok,
        who[role].includes(by),
        `${by} launching ${role}`,
      )
})

test.run()
