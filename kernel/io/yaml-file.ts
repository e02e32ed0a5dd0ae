import { readFile, stat } from 'node:fs/promises'
import { SvcError } from '../domain/errors.js'

/** The document of a YAML file's text; one line naming the file when it is not YAML. */
export function parseYamlText(path: string, text: string, parse: (text: string) => unknown): unknown {
  try {
    return parse(text)
  } catch (e) {
    throw new SvcError('usage', `${path}: not valid YAML: ${(e as Error).message.split('\n')[0]}`)
  }
}

/** The YAML parser, loaded on first use: most commands never read a configuration file. */
export const yamlParse = async (): Promise<(text: string) => unknown> => (await import('yaml')).parse

/** A configuration file read through `parse`, again only when the file changes (mtime or size); a missing file
 * reads as `absent`. A parse that throws is not kept, so the file is read again at the next call. */
export class CachedFile<T> {
  private cache?: { mtimeMs: number; size: number; value: T }
  constructor(
    readonly path: string,
    private readonly parse: (text: string) => T | Promise<T>,
    private readonly absent: T,
  ) {}

  async read(): Promise<T> {
    let st
    try {
      st = await stat(this.path)
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return this.absent
      throw e
    }
    if (this.cache && this.cache.mtimeMs === st.mtimeMs && this.cache.size === st.size) return this.cache.value
    const value = await this.parse(await readFile(this.path, 'utf8'))
    this.cache = { mtimeMs: st.mtimeMs, size: st.size, value }
    return value
  }
}
