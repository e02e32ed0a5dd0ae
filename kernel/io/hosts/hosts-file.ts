import { SvcError } from '../../domain/errors.js'
import { checkHostsFile, type Hosts } from '../../domain/hosts.js'
import { writeFileAtomic } from '../atomic-file.js'
import { CachedFile, parseYamlText, yamlParse } from '../yaml-file.js'

/** hosts.yaml in the service home: read (again only when it changes) and checked, one line naming the file and
 * the key when it is wrong; written whole and atomically. */
export class HostsFile {
  private readonly file: CachedFile<Hosts>
  constructor(readonly path: string) {
    this.file = new CachedFile(
      path,
      async (text) => {
        const c = checkHostsFile(parseYamlText(path, text, await yamlParse()))
        if (!c.ok) throw new SvcError('usage', `${path}: ${c.problem}`, `correct ${path}`)
        return c.value
      },
      {},
    )
  }

  read(): Promise<Hosts> {
    return this.file.read()
  }

  async write(hosts: Hosts): Promise<void> {
    const { stringify } = await import('yaml')
    const body = Object.keys(hosts).length ? stringify(hosts) : ''
    await writeFileAtomic(this.path, `# Hosts lanes may run on (svc host add|remove); one entry per host.\n${body}`)
  }
}
