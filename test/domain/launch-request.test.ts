import { test } from 'uvu'
import * as assert from 'uvu/assert'
import type { ConversationRecord } from '../../kernel/domain/conversation.js'
import type { Role } from '../../kernel/domain/keys.js'
import { checkRequest, laneKeyOf, launchRun, optionsFitRole, type StartRequest } from '../../kernel/domain/launch.js'

// SPEC.md 4.1 start: launch rules 1, 2 and 6 (the request's part) and the options, one row per case.

const root: ConversationRecord = { id: '1', name: 'c1', createdAt: 1, harness: 'claude', cwd: '/w' }
const orch: ConversationRecord = { ...root, id: '2', name: 'c2', lane: { run: 'r1', key: 'o', role: 'orchestrator', dir: 'd', root: '/l', iteration: 1 } }
const builder: ConversationRecord = { ...root, id: '3', name: 'c3', lane: { run: 'r1', key: 'b', role: 'builder', dir: 'd', root: '/l', iteration: 1 } }
const refused = (code: string, message: string) => ({ ok: false, code, message })

test('launchRun (launch rules 1-2): who may launch, into which run', () => {
  const rows: [string, Partial<StartRequest> & { role: Role }, ConversationRecord | undefined, unknown][] = [
    ['root with --run', { role: 'builder', run: 'r9' }, root, { ok: true, run: 'r9' }],
    ['root without --run', { role: 'builder' }, root, refused('usage', '--run is required when the launcher is a root conversation')],
    ['bad run key', { role: 'builder', run: 'R!' }, root, refused('usage', "invalid run key 'R!': it must match ^[a-z0-9][a-z0-9-]{0,31}$")],
    ['orchestrator inherits its run', { role: 'builder' }, orch, { ok: true, run: 'r1' }],
    ['orchestrator into its own run', { role: 'builder', run: 'r1' }, orch, { ok: true, run: 'r1' }],
    ['orchestrator into another run', { role: 'builder', run: 'r2' }, orch, refused('forbidden', 'refused: an orchestrator lane of run r1 launches only into its own run, not r2')],
    ['orchestrator launching a critic', { role: 'critic', run: 'r1' }, orch, refused('forbidden', 'refused: an orchestrator lane cannot launch a critic lane; only a root conversation can')],
    ['a builder launches nothing', { role: 'play', run: 'r1' }, builder, refused('forbidden', 'refused: a builder lane cannot launch lanes')],
    ['broken chain', { role: 'builder', run: 'r1' }, undefined, refused('forbidden', 'conv 9 has a broken chain of parent links; it cannot launch lanes')],
  ]
  for (const [name, req, effective, want] of rows) assert.equal(launchRun(req, { ...root, id: '9' }, effective), want, name)
})

test('laneKeyOf (launch rule 6): --for for a critic, optional for a verifier, --key defaults to --for', () => {
  const rows: [string, Partial<StartRequest> & { role: Role }, unknown][] = [
    ['critic without --for', { role: 'critic', key: 'k' }, refused('usage', 'a critic needs --for <builder key>')],
    ['critic --for', { role: 'critic', for: 'k' }, { ok: true, key: 'k' }],
    ['critic --for and the same --key', { role: 'critic', for: 'k', key: 'k' }, { ok: true, key: 'k' }],
    ['critic --key differing from --for', { role: 'critic', for: 'k', key: 'j' }, refused('usage', '--key j differs from --for k; a critic takes the key of the builder it judges')],
    ['verifier without --for', { role: 'verifier', key: 'run-check' }, { ok: true, key: 'run-check' }],
    ['verifier --for', { role: 'verifier', for: 'k' }, { ok: true, key: 'k' }],
    ['--for on a builder', { role: 'builder', for: 'k' }, refused('usage', '--for is for critic and verifier lanes, not builder')],
    ['bad --for', { role: 'critic', for: 'K K' }, refused('usage', "invalid lane key 'K K': it must match ^[a-z0-9][a-z0-9._-]{0,39}$")],
    ['neither', { role: 'builder' }, refused('usage', 'one of --key or --for is required')],
    ['bad --key', { role: 'builder', key: '-x' }, refused('usage', "invalid lane key '-x': it must match ^[a-z0-9][a-z0-9._-]{0,39}$")],
  ]
  for (const [name, req, want] of rows) assert.equal(laneKeyOf(req), want, name)
})

test('optionsFitRole: --branch and --from for builders, --at for detached worktrees', () => {
  const rows: [string, Partial<StartRequest> & { role: Role }, unknown][] = [
    ['builder --branch --from', { role: 'builder', branch: 'b', from: 'main' }, { ok: true }],
    ['critic --branch', { role: 'critic', branch: 'b' }, refused('usage', '--branch is for builder lanes, not critic')],
    ['play --from', { role: 'play', from: 'main' }, refused('usage', '--from is for builder lanes, not play')],
    ['builder --at', { role: 'builder', at: 'abc' }, refused('usage', '--at is for detached worktrees (orchestrator, critic, verifier), not builder')],
    ['critic --at', { role: 'critic', at: 'abc' }, { ok: true }],
    ['option-like --at', { role: 'critic', at: '-rf' }, refused('usage', "--at -rf: a ref never starts with '-'; give a branch, tag or commit")],
  ]
  for (const [name, req, want] of rows) assert.equal(optionsFitRole(req), want, name)
})

test('checkRequest: the run first, then the key, then the options', () => {
  assert.equal(checkRequest({ role: 'critic', at: 'x' }, root, root), refused('usage', '--run is required when the launcher is a root conversation'))
  assert.equal(checkRequest({ role: 'builder', run: 'r1', at: 'x' }, root, root), refused('usage', 'one of --key or --for is required'))
  assert.equal(checkRequest({ role: 'builder', run: 'r1', key: 'k', at: 'x' }, root, root), refused('usage', '--at is for detached worktrees (orchestrator, critic, verifier), not builder'))
  assert.equal(checkRequest({ role: 'critic', for: 'k' }, orch, root), { ok: false, code: 'usage', message: '--run is required when the launcher is a root conversation' })
  assert.equal(checkRequest({ role: 'builder', key: 'k' }, orch, orch), { ok: true, run: 'r1', key: 'k' })
})

test.run()
