import { checkNotifyConfig, type NotifyConfig } from '../domain/notify-config.js'
import { CachedFile, parseYamlText, yamlParse } from './yaml-file.js'

/** The notify block as read: none (no file, or an empty one), the block, or what is wrong with it on one line. */
interface NotifySetting {
  config?: NotifyConfig
  problem?: string
}

async function parseNotify(path: string, text: string): Promise<NotifySetting> {
  try {
    const c = checkNotifyConfig(parseYamlText(path, text, await yamlParse()))
    return c.ok ? (c.value ? { config: c.value } : {}) : { problem: `${path}: ${c.problem}` }
  } catch (e) {
    return { problem: (e as Error).message }
  }
}

/** notify.yaml in the service home, re-read when it changes. Never throws: an unreadable file is a problem too. */
export class NotifyConfigFile {
  private readonly file: CachedFile<NotifySetting>
  constructor(readonly path: string) {
    this.file = new CachedFile(path, (text) => parseNotify(path, text), {})
  }

  async read(): Promise<NotifySetting> {
    try {
      return await this.file.read()
    } catch (e) {
      return { problem: `${this.path}: cannot be read: ${(e as Error).message}` }
    }
  }
}
