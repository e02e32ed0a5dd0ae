import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { execFileSync } from 'node:child_process'
import { readdirSync, readFileSync, realpathSync } from 'node:fs'
import { join } from 'node:path'
import { chromium } from 'playwright-core'
import { CHROMIUM_ARGS, chromiumDir, chromiumExecutable, screenshotOf } from '../helpers/chromium.js'
import { procStat } from '../../kernel/io/procs.js'

/** The browser `npm install` brings must run on a fresh machine of this kind with nothing installed by hand: every
 * library it or the libraries it ships load is either shipped beside it or part of the machine's base system. The
 * base packages it needs are listed here; each is on a new machine of this kind (its package list names them). Checked
 * twice: what ldd resolves for the files, and what the running browser has mapped after drawing a page. */
const BASE_PACKAGES = ['libc6', 'libgcc-s1', 'libexpat1', 'libnspr4', 'libnss3']

const libs = suite('chromium-libs')

/** ELF files of the unpacked browser: the executable and the shared libraries beside it. */
const elfFiles = (dir: string) =>
  readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && (e.name === 'chromium' || /\.so(\.\d+)*$/.test(e.name)))
    .map((e) => join(e.parentPath, e.name))
    .filter((f) => readFileSync(f).subarray(0, 4).toString('latin1') === '\x7fELF')

/** `name => path` lines of ldd for one file; a library the loader cannot find shows as `name => not found`. */
const resolved = (file: string) =>
  execFileSync('ldd', [file], { encoding: 'utf8' })
    .split('\n')
    .map((l) => /^\s*(\S+) => (.+?)(?: \(0x[0-9a-f]+\))?$/.exec(l))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ lib: m[1], path: m[2] }))

/** The Debian package that installed each library, under any of its names (/lib is /usr/lib on a merged system, and
 * ldd may name a symbolic link), asked of dpkg in one call. */
function packagesOf(paths: string[]): Map<string, string | undefined> {
  const namesOf = (path: string) =>
    [path, realpathSync(path)].flatMap((p) => [p, p.startsWith('/usr/') ? p.slice(4) : `/usr${p}`])
  let out: string
  try {
    out = execFileSync('dpkg-query', ['-S', ...new Set(paths.flatMap(namesOf))], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    })
  } catch (e) {
    out = String((e as { stdout?: string }).stdout ?? '') // some names are unknown to dpkg: it says so and exits 1
  }
  const owner = new Map<string, string>()
  for (const line of out.split('\n')) {
    const m = /^([^:,\s]+)(?::\S+)?: (\/.+)$/.exec(line)
    if (m) owner.set(m[2], m[1])
  }
  return new Map(
    paths.map((p) => [
      p,
      namesOf(p)
        .map((n) => owner.get(n))
        .find(Boolean),
    ]),
  )
}

libs('the browser npm installs needs only libraries it ships or the base system has: ldd finds every one', async () => {
  await chromiumExecutable()
  const dir = realpathSync(chromiumDir())
  const files = elfFiles(dir)
  assert.ok(files.includes(join(dir, 'chromium')), 'the executable is among the files checked')
  const system = new Set<string>()
  for (const f of files)
    for (const { lib, path } of resolved(f)) {
      assert.is.not(path, 'not found', `${f} needs ${lib}, which neither the package nor the system has`)
      if (!realpathSync(path).startsWith(dir + '/')) system.add(path)
    }
  assert.ok(system.size > 0, 'the browser loads system libraries (libc at least)')
  assertBasePackages(system)
})

libs(
  'what the running browser has loaded after drawing a page: only its own libraries and those of the base system',
  async () => {
    const exe = await chromiumExecutable()
    const dir = realpathSync(chromiumDir())
    const browser = await chromium.launch({ executablePath: exe, headless: true, args: CHROMIUM_ARGS })
    let loaded: Set<string>
    try {
      const page = await browser.newPage()
      await page.setContent('<h1 style="font-family: sans-serif">Command Deck ✓</h1><input value="text">')
      assert.ok((await screenshotOf(page)).length > 0, 'a screenshot is drawn')
      // Libraries opened at run time (dlopen) show in the processes' memory maps, which ldd cannot see.
      // The browser starts its children by its real path, which differs from exe where node_modules is a link.
      // Only this suite's browser: other suites may run the same browser beside it, their processes ending at any
      // moment.
      const exes = [exe, realpathSync(exe)]
      const pids = readdirSync('/proc').filter(
        (p) => /^\d+$/.test(p) && exes.some((e) => cmdline(p).startsWith(e)) && descendsFromUs(Number(p)),
      )
      assert.ok(pids.length > 0, 'the browser processes are found')
      loaded = new Set(pids.flatMap((p) => [...maps(p).matchAll(/ (\/\S+\.so[.\d]*)$/gm)].map((m) => m[1])))
    } finally {
      await browser.close()
    }
    const own = [...loaded].filter((p) => p.startsWith(dir + '/'))
    assert.ok(own.length > 0, 'it loads the graphics libraries it ships')
    assertBasePackages(new Set([...loaded].filter((p) => !p.startsWith(dir + '/'))))
  },
)

/** A file of /proc for one process; '' once the process has ended (a browser's helper may end at any time). */
const procFile = (pid: string, name: string) => {
  try {
    return readFileSync(`/proc/${pid}/${name}`, 'utf8')
  } catch {
    return ''
  }
}
const cmdline = (pid: string) => procFile(pid, 'cmdline')
const maps = (pid: string) => procFile(pid, 'maps')

/** Whether this test process started `pid`, directly or through its children. */
function descendsFromUs(pid: number): boolean {
  for (let p: number | undefined = pid; p && p > 1; p = procStat(p)?.ppid) if (p === process.pid) return true
  return false
}

/** Each system library belongs to a package of the base system, not to one installed by hand. */
function assertBasePackages(system: Set<string>) {
  for (const [path, owner] of packagesOf([...system]))
    assert.ok(
      owner && BASE_PACKAGES.includes(owner),
      `the browser loads ${path}, of package ${owner ?? '(none)'}, which is not in the base list ` +
        `${BASE_PACKAGES.join(', ')}`,
    )
}

libs.run()
