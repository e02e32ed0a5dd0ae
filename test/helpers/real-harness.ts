import { closeSync, existsSync, mkdirSync, openSync, readFileSync, readSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { startModelApi, type ModelApi } from '../../fixtures/model-api.js'
import { rpc } from './activity.js'
import { ROOT, TestHome, until } from './home.js'
import type { OtherUser } from './other-user.js'

/** The real claude and codex from node_modules, driven through svc against the stand-in model API. */

const MODULES = join(ROOT, 'node_modules')

/** The claude binary: the package's own bin once its install script placed the native binary there, else the native
 * binary in the platform package it ships as (an install that skipped scripts leaves a stub in bin that only
 * prints an error). */
export function realClaudePath(): string {
  const bin = join(MODULES, '@anthropic-ai', 'claude-code', 'bin', 'claude.exe')
  if (isNative(bin)) return bin
  const musl =
    process.platform === 'linux' && !(process.report?.getReport() as any)?.header?.glibcVersionRuntime ? '-musl' : ''
  const platform = join(
    MODULES,
    '@anthropic-ai',
    `claude-code-${process.platform}-${process.arch}${musl}`,
    process.platform === 'win32' ? 'claude.exe' : 'claude',
  )
  if (existsSync(platform)) return platform
  throw new Error(`no claude binary in ${MODULES}: run npm install`)
}

function isNative(path: string): boolean {
  if (!existsSync(path)) return false
  const head = Buffer.alloc(4)
  const fd = openSync(path, 'r')
  try {
    readSync(fd, head, 0, 4, 0)
  } finally {
    closeSync(fd)
  }
  return (
    head.equals(Buffer.from([0x7f, 0x45, 0x4c, 0x46])) ||
    head.subarray(0, 2).toString() === 'MZ' ||
    head.readUInt32BE(0) === 0xcffaedfe
  )
}

export const realCodexPath = () => join(MODULES, '@openai', 'codex', 'bin', 'codex.js')

/** A directory in the test home holding `claude` and `codex`: the real programs, to put first on PATH. */
export function realCliBin(h: TestHome): string {
  const bin = join(h.dir, 'bin')
  mkdirSync(bin, { recursive: true })
  symlinkSync(realClaudePath(), join(bin, 'claude'))
  symlinkSync(realCodexPath(), join(bin, 'codex'))
  return bin
}

/** The installed version of a real CLI's package. */
export const realVersion = (pkg: '@anthropic-ai/claude-code' | '@openai/codex') =>
  JSON.parse(readFileSync(join(MODULES, pkg, 'package.json'), 'utf8')).version as string

/** A test home whose kernel finds the real `claude` and `codex` first on PATH, with the stand-in model API as their
 * only model service: claude through ANTHROPIC_BASE_URL with a dummy key, codex through a model provider in the
 * home's ~/.codex/config.toml. Their homes are the test home: nothing of the real home is read or written. */
export async function realHarnessHome(
  label: string,
  opts: {
    retryLimitMs?: number
    env?: Record<string, string>
    apiUrl?: string
    codexRetries?: number
    user?: OtherUser
  } = {},
) {
  const api = await startModelApi({ chunkMs: 50 })
  const h = new TestHome(label, { user: opts.user })
  const bin = realCliBin(h)
  const base = opts.apiUrl ?? api.url
  mkdirSync(join(h.home, '.codex'), { recursive: true })
  writeFileSync(
    join(h.home, '.codex', 'config.toml'),
    [
      'model_provider = "standin"',
      '[model_providers.standin]',
      'name = "Stand-in"',
      `base_url = "${base}/v1"`,
      'wire_api = "responses"',
      'env_key = "STANDIN_API_KEY"',
      `request_max_retries = ${opts.codexRetries ?? 1}`,
      `stream_max_retries = ${opts.codexRetries ?? 1}`,
      '',
    ].join('\n'),
  )
  // Whatever model settings this process has (a developer's own) are blanked: the stand-in is the only service.
  const inherited = Object.keys(process.env).filter((k) => /^(ANTHROPIC|CLAUDE|OPENAI|CODEX)_/.test(k))
  h.extraEnv = {
    ...Object.fromEntries(inherited.map((k) => [k, ''])),
    PATH: `${bin}:${process.env.PATH}`,
    ANTHROPIC_BASE_URL: base,
    ANTHROPIC_API_KEY: 'sk-standin',
    ANTHROPIC_AUTH_TOKEN: '',
    CLAUDE_CONFIG_DIR: join(h.home, '.claude'),
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
    CODEX_HOME: join(h.home, '.codex'),
    STANDIN_API_KEY: 'sk-standin',
    OPENAI_API_KEY: '',
    ...(opts.user && { USER: opts.user.name, LOGNAME: opts.user.name }),
    ...(opts.retryLimitMs ? { SERVICE_RETRY_LIMIT_MS: String(opts.retryLimitMs) } : {}),
    ...opts.env,
  }
  h.own()
  // The person's calls run the CLI's dispatch in this process (a Node start each saved); what the lanes' harnesses
  // run stays a real svc, and a home of another user keeps programs of their own.
  h.inProcess = true
  const activityLine = async (id: string) =>
    (await h.ok(['conv', 'show', id])).split('\n').find((l) => l.startsWith('activity: '))!
  return {
    h,
    api,
    convNew: async (harness: 'claude' | 'codex', prompt: string, ...more: string[]) =>
      (await h.ok(['conv', 'new', '--harness', harness, '--cwd', h.home, '--prompt', prompt, ...more])).trim(),
    /** The `activity:` line of `svc conv show`. */
    activityLine,
    /** Poll `svc conv show` until its activity line starts so; that line. What it waits for comes from a CLI's
     * first turn, its start and its first model request among it: 30 s. */
    untilActivityLine: (id: string, prefix: string) =>
      until(
        async () => ((line) => line.startsWith(prefix) && line)(await activityLine(id)),
        `conv ${id}: ${prefix}`,
        30_000,
      ) as Promise<string>,
    transcript: async (id: string) =>
      (await rpc(h, 'convTranscript', { conv: id })).entries.map((e: any) => `${e.kind} ${e.text}`) as string[],
    stop: async () => {
      await h.stop()
      await api.close()
    },
  }
}

export type RealHome = Awaited<ReturnType<typeof realHarnessHome>>
export type { ModelApi }
