import { Low, type Adapter } from 'lowdb'
import { readFile, mkdir, unlink, readdir, stat } from 'node:fs/promises'
import { mkdirSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { SvcError } from '../domain/errors.js'
import { WRITE_ONCE_FIELDS, type ConversationRecord } from '../domain/conversation.js'
import type { Report } from '../domain/report.js'
import { CONV_FILE_NAMES, convFiles, homePaths } from '../home.js'
import { isTempName, tempOwner, writeFileAtomic } from './atomic-file.js'
import { KeyedQueue } from '../serial.js'

/** lowdb adapter: reads refuse a file that does not parse (never reset silently); writes are atomic. */
class AtomicJsonFile<T> implements Adapter<T> {
  constructor(readonly path: string) {}
  async read(): Promise<T | null> {
    let text: string
    try {
      text = await readFile(this.path, 'utf8')
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null
      throw e
    }
    return parseStoreFile<T>(this.path, text)
  }
  write(data: T): Promise<void> {
    return writeFileAtomic(this.path, JSON.stringify(data, null, 1) + '\n')
  }
}

function parseStoreFile<T>(path: string, text: string): T {
  try {
    return JSON.parse(text) as T
  } catch (e) {
    throw new SvcError(
      'internal',
      `store file ${path} does not parse (${(e as Error).message}); it was left untouched: repair it or move it away, then start the kernel again`,
    )
  }
}

export interface ReportsDoc {
  reports: Report[]
}

/** One document per conversation (its record) and one per conversation's reports, each its own lowdb instance,
 * so a write stays small however large the store grows. The kernel is the only writer. */
export class Store {
  private records = new Map<string, Low<ConversationRecord>>()
  private byName = new Map<string, string>()
  private reportDocs = new Map<string, Promise<Low<ReportsDoc>>>()
  private queue = new KeyedQueue()
  private maxId = 0
  private lastReportAt = 0
  readonly staleTemps: string[] = []
  readonly orphanDirs: string[] = []

  private constructor(readonly home: string) {}

  /** Load every record. A file that does not parse stops the load with an error naming it. Small files read
   * synchronously in one loop: at 10 000 conversations that is several times quicker than as many promises. What
   * is not needed to answer (temp files of interrupted writes, report times) is swept after, by `sweep()`. */
  static async open(home: string): Promise<Store> {
    const store = new Store(home)
    const agents = homePaths(home).agents
    mkdirSync(agents, { recursive: true, mode: 0o700 })
    for (const d of readdirSync(agents)) if (d.startsWith('conv-')) store.loadDir(d.slice(5))
    return store
  }

  private loadDir(name: string) {
    const { dir, record: path } = convFiles(this.home, name)
    let text: string
    try {
      text = readFileSync(path, 'utf8')
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') this.orphanDirs.push(dir)
      else if ((e as NodeJS.ErrnoException).code !== 'ENOTDIR') throw e
      return
    }
    const rec = parseStoreFile<ConversationRecord>(path, text)
    if (!rec || rec.name !== name || typeof rec.id !== 'string')
      throw new SvcError('internal', `store file ${path} does not hold the record of conv-${name}; it was left untouched: repair it or move it away, then start the kernel again`)
    const low = new Low<ConversationRecord>(new AtomicJsonFile(path), rec)
    this.records.set(rec.id, low)
    this.byName.set(rec.name, rec.id)
    this.maxId = Math.max(this.maxId, Number(rec.id))
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
        for (const e of entries) if (isTempName(e) && tempOwner(e) !== process.pid) this.staleTemps.push(join(files.dir, e))
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
  async reserve(preferred: string | undefined, fallback: (id: string, attempt: number) => string): Promise<{ id: string; name: string }> {
    const id = String(++this.maxId)
    for (let attempt = 0; attempt < 1000; attempt++) {
      const name = attempt === 0 && preferred ? preferred : fallback(id, attempt)
      if (this.byName.has(name)) {
        if (preferred && attempt === 0) throw new SvcError('conflict', `a conversation named ${name} already exists`, 'choose another --name')
        continue
      }
      try {
        await mkdir(convFiles(this.home, name).dir, { mode: 0o700 })
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e
        if (preferred && attempt === 0) throw new SvcError('conflict', `the directory of conv-${name} already exists`, 'choose another --name')
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
    const low = new Low<ConversationRecord>(new AtomicJsonFile(convFiles(this.home, rec.name).record), rec)
    await this.serial(rec.id, () => low.write())
    this.records.set(rec.id, low)
    this.byName.set(rec.name, rec.id)
    return rec
  }

  /** Change the mutable fields of a record. Facts written once (parent, lane facts: run, key, role, for) refuse. */
  async update(id: string, patch: Partial<ConversationRecord>): Promise<ConversationRecord> {
    for (const f of WRITE_ONCE_FIELDS)
      if (f in patch) throw new SvcError('forbidden', `the ${f} of a conversation is written once and cannot be changed`)
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
      const low = new Low<ReportsDoc>(new AtomicJsonFile(convFiles(this.home, name).reports), { reports: [] })
      doc = low.read().then(() => low)
      this.reportDocs.set(name, doc)
      doc.catch(() => this.reportDocs.delete(name))
    }
    return doc
  }

  /** Reports of `conv-<name>`, oldest first. */
  async reports(name: string): Promise<Report[]> {
    return (await this.reportsDoc(name)).data.reports
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
      try {
        await doc.write()
      } catch (e) {
        doc.data.reports.pop()
        throw e
      }
      return full
    })
  }
}
