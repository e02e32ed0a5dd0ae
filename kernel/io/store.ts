import { Low, type Adapter } from 'lowdb'
import { readFile, mkdir, unlink, readdir, stat } from 'node:fs/promises'
import { closeSync, constants, fstatSync, mkdirSync, openSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { SvcError } from '../domain/errors.js'
import { ConversationRecordSchema, WRITE_ONCE_FIELDS, type ConversationRecord } from '../domain/conversation.js'
import { CONV_ID } from '../domain/keys.js'
import { ReportsDocSchema, type Report, type ReportsDoc } from '../domain/report.js'
import { checkShape, type Checked } from '../domain/shape.js'
import type { Log } from './log.js'
import { CONV_FILE_NAMES, convFiles, homePaths } from './home.js'
import { isTempName, tempOwner, writeFileAtomic } from './atomic-file.js'
import { KeyedQueue } from '../queue/serial.js'

/** A store file that does not parse or does not hold what it should; it is left untouched. */
class BadStoreFile extends SvcError {
  constructor(
    readonly path: string,
    readonly problem: string,
  ) {
    super(
      'internal',
      `store file ${path} ${problem}; it was left untouched: repair it or move it away, then restart the kernel ` +
        `(svc kernel stop)`,
    )
  }
}

/** lowdb adapter: reads refuse a file that does not parse or does not hold what it should (never reset silently);
 * writes are atomic. */
class AtomicJsonFile<T> implements Adapter<T> {
  constructor(
    readonly path: string,
    private readonly check: (json: unknown) => Checked<T>,
  ) {}
  async read(): Promise<T | null> {
    let text: string
    try {
      text = await readFile(this.path, 'utf8')
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null
      throw e
    }
    const c = checkJson(parseJson(text), this.check)
    if (!c.ok) throw new BadStoreFile(this.path, c.problem)
    return c.value
  }
  write(data: T): Promise<void> {
    return writeFileAtomic(this.path, JSON.stringify(data, null, 1) + '\n')
  }
}

/** A file's text; a pipe or a device in its place is refused (opened without blocking, never read). */
function readRegularFile(path: string): string {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK)
  try {
    if (!fstatSync(fd).isFile()) throw Object.assign(new Error('not a regular file'), { code: 'not a regular file' })
    return readFileSync(fd, 'utf8')
  } finally {
    closeSync(fd)
  }
}

function parseJson(text: string): Checked<unknown> {
  try {
    return { ok: true, value: JSON.parse(text) }
  } catch (e) {
    return { ok: false, problem: `does not parse (${(e as Error).message})` }
  }
}

function checkJson<T>(json: Checked<unknown>, check: (json: unknown) => Checked<T>): Checked<T> {
  if (!json.ok) return json
  const c = check(json.value)
  return c.ok ? c : { ok: false, problem: `does not hold what it should (${c.problem})` }
}

const checkRecord = (json: unknown) => checkShape(ConversationRecordSchema, json)
const checkReports = (json: unknown) => checkShape(ReportsDocSchema, json)

/** One document per conversation (its record) and one per conversation's reports, each its own lowdb instance,
 * so a write stays small however large the store grows. The kernel is the only writer. */
export class Store {
  private records = new Map<string, Low<ConversationRecord>>()
  private byName = new Map<string, string>()
  private reportDocs = new Map<string, Promise<Low<ReportsDoc>>>()
  private queue = new KeyedQueue()
  private maxId = 0
  private lastReportAt = 0
  /** The times of the reports being written: none of them is shown, nor any report after the first of them, until its
   * write is done, so that no one is handed a report that could still be taken back and a run's cursor, which follows
   * the times, never passes one still being written. */
  private writing = new Set<number>()
  readonly staleTemps: string[] = []
  readonly orphanDirs: string[] = []
  /** Store files refused (path → what is wrong): each logged once, listed by `svc doctor`. */
  readonly badFiles = new Map<string, string>()

  private constructor(
    readonly home: string,
    private readonly log: Log,
  ) {}

  /** Load every record. A record file that does not parse or does not hold a valid record is skipped, untouched,
   * with one log line naming it; every other conversation loads. Small files read synchronously in one loop: at
   * 10 000 conversations that is several times quicker than as many promises. What is not needed to answer (temp
   * files of interrupted writes, report times) is swept after, by `sweep()`. */
  static async open(home: string, log: Log = () => {}): Promise<Store> {
    const store = new Store(home, log)
    const agents = homePaths(home).agents
    mkdirSync(agents, { recursive: true, mode: 0o700 })
    // In name order, so which of two records claiming one id is refused does not depend on the file system.
    for (const d of readdirSync(agents).sort()) if (d.startsWith('conv-')) store.loadDir(d.slice(5))
    return store
  }

  private loadDir(name: string) {
    const { dir, record: path } = convFiles(this.home, name)
    let text: string
    try {
      text = readRegularFile(path)
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') this.orphanDirs.push(dir)
      else if ((e as NodeJS.ErrnoException).code !== 'ENOTDIR')
        this.refuse(path, `cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`)
      return
    }
    const json = parseJson(text)
    const id = json.ok ? (json.value as { id?: unknown } | null)?.id : undefined
    // Every well-formed id stays taken, a refused record's too: a repaired record never finds its id given away.
    if (typeof id === 'string' && CONV_ID.test(id)) this.maxId = Math.max(this.maxId, Number(id))
    const c = checkJson(json, checkRecord)
    const problem = !c.ok
      ? c.problem
      : c.value.name !== name
        ? `holds the record of conv-${c.value.name}, not of conv-${name}`
        : this.records.has(c.value.id)
          ? `has the id ${c.value.id} of conv-${this.records.get(c.value.id)!.data.name}`
          : undefined
    if (problem || !c.ok) return this.refuse(path, problem!)
    const low = new Low<ConversationRecord>(new AtomicJsonFile(path, checkRecord), c.value)
    this.records.set(c.value.id, low)
    this.byName.set(c.value.name, c.value.id)
  }

  /** A store file refused: one log line naming it (once), and it is listed for `svc doctor`. */
  private refuse(path: string, problem: string) {
    if (this.badFiles.get(path) === problem) return
    this.badFiles.set(path, problem)
    this.log('error', new BadStoreFile(path, problem).message)
  }

  private swept?: Promise<void>
  /** After start: find temp files left by interrupted writes, and bound the time of the newest stored report (its
   * file's mtime) so report times stay increasing even if the clock stepped back. Report writes wait for it. */
  sweep(): Promise<void> {
    this.swept ??= (async () => {
      const agents = homePaths(this.home).agents
      for (const d of await readdir(agents)) {
        if (!d.startsWith('conv-')) continue
        const files = convFiles(this.home, d.slice(5))
        const entries = await readdir(files.dir).catch(() => [] as string[])
        // Not this kernel's own: a write of this process may be under way.
        for (const e of entries)
          if (isTempName(e) && tempOwner(e) !== process.pid) this.staleTemps.push(join(files.dir, e))
        if (entries.includes(CONV_FILE_NAMES.reports)) {
          const st = await stat(files.reports).catch(() => undefined)
          if (st) this.lastReportAt = Math.max(this.lastReportAt, Math.ceil(st.mtimeMs))
        }
      }
    })()
    return this.swept
  }

  /** Remove temp files left by an interrupted write (only the kernel that owns the store may). */
  async removeStaleTemps(): Promise<string[]> {
    await this.sweep()
    const removed = this.staleTemps.splice(0)
    await Promise.all(removed.map((p) => unlink(p).catch(() => {})))
    return removed
  }

  /** Writes to one document run one after another. */
  private serial<T>(key: string, fn: () => Promise<T>): Promise<T> {
    return this.queue.run(key, fn)
  }

  all(): ConversationRecord[] {
    return [...this.records.values()].map((l) => l.data)
  }
  get(id: string): ConversationRecord | undefined {
    return this.records.get(id)?.data
  }
  getByName(name: string): ConversationRecord | undefined {
    const id = this.byName.get(name)
    return id ? this.get(id) : undefined
  }
  get size() {
    return this.records.size
  }

  /** Reserve the next id and a free name (the name's directory is created now, exclusively). */
  async reserve(
    preferred: string | undefined,
    fallback: (id: string, attempt: number) => string,
  ): Promise<{ id: string; name: string }> {
    const id = String(++this.maxId)
    for (let attempt = 0; attempt < 1000; attempt++) {
      const name = attempt === 0 && preferred ? preferred : fallback(id, attempt)
      if (this.byName.has(name)) {
        if (preferred && attempt === 0)
          throw new SvcError('conflict', `a conversation named ${name} already exists`, 'choose another --name')
        continue
      }
      try {
        await mkdir(convFiles(this.home, name).dir, { mode: 0o700 })
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e
        if (preferred && attempt === 0)
          throw new SvcError('conflict', `the directory of conv-${name} already exists`, 'choose another --name')
        continue
      }
      this.byName.set(name, id)
      return { id, name }
    }
    throw new SvcError('internal', 'no free conversation name')
  }

  /** Give back a reserved name whose record was never written. */
  release(name: string) {
    const id = this.byName.get(name)
    if (id && !this.records.has(id)) this.byName.delete(name)
  }

  async create(rec: ConversationRecord): Promise<ConversationRecord> {
    const low = new Low<ConversationRecord>(new AtomicJsonFile(convFiles(this.home, rec.name).record, checkRecord), rec)
    await this.serial(rec.id, () => low.write())
    this.records.set(rec.id, low)
    this.byName.set(rec.name, rec.id)
    return rec
  }

  /** Change the mutable fields of a record. Facts written once (parent, lane facts: run, key, role, for) refuse. */
  async update(id: string, patch: Partial<ConversationRecord>): Promise<ConversationRecord> {
    for (const f of WRITE_ONCE_FIELDS)
      if (f in patch)
        throw new SvcError('forbidden', `the ${f} of a conversation is written once and cannot be changed`)
    const low = this.records.get(id)
    if (!low) throw new SvcError('not_found', `no conversation ${id}`)
    return this.serial(id, async () => {
      await low.update((d) => Object.assign(d, patch))
      return low.data
    })
  }

  /** One lowdb instance per reports file, ever: concurrent first reads share the one being loaded (two instances
   * would each hold their own copy, and a report written through one would be missing from the other). */
  private reportsDoc(name: string): Promise<Low<ReportsDoc>> {
    let doc = this.reportDocs.get(name)
    if (!doc) {
      const low = new Low<ReportsDoc>(new AtomicJsonFile(convFiles(this.home, name).reports, checkReports), {
        reports: [],
      })
      doc = low.read().then(() => low)
      this.reportDocs.set(name, doc)
      doc.catch(() => this.reportDocs.delete(name))
    }
    return doc
  }

  /** Reports of `conv-<name>`, oldest first. A reports file that is refused reads as none (it is logged and listed
   * by `svc doctor`), so every other lane keeps working; a report is never appended to it (appendReport refuses). */
  async reports(name: string): Promise<Report[]> {
    try {
      const reports = (await this.reportsDoc(name)).data.reports
      this.badFiles.delete(convFiles(this.home, name).reports)
      if (!this.writing.size) return reports
      const first = Math.min(...this.writing)
      return reports.filter((r) => r.at < first)
    } catch (e) {
      if (!(e instanceof BadStoreFile)) throw e
      this.refuse(e.path, e.problem)
      return []
    }
  }

  /** Record a report with the next sequence number and a time strictly after every earlier report's, so the
   * run cursor orders all reports totally. */
  async appendReport(name: string, report: Omit<Report, 'seq' | 'at'>): Promise<Report> {
    await this.sweep()
    return this.serial(`reports:${name}`, async () => {
      const doc = await this.reportsDoc(name)
      const at = Math.max(Date.now(), this.lastReportAt + 1)
      this.lastReportAt = at
      const full: Report = { seq: (doc.data.reports.at(-1)?.seq ?? 0) + 1, at, ...report }
      doc.data.reports.push(full)
      this.writing.add(at)
      try {
        await doc.write()
      } catch (e) {
        doc.data.reports.pop()
        throw e
      } finally {
        this.writing.delete(at)
      }
      return full
    })
  }
}
