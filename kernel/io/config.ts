import { existsSync, realpathSync } from 'node:fs'
import * as v from 'valibot'
import { SvcError } from '../domain/errors.js'
import { EFFORTS, HARNESSES, ROLES } from '../domain/keys.js'
import { isWithin } from '../domain/configuration.js'
import { HOST_NAME } from '../domain/hosts.js'
import { PERMISSION_MODES } from '../domain/permissions.js'
import { issueText } from '../domain/shape.js'
import { CachedFile, parseYamlText, yamlParse } from './yaml-file.js'

const Permissions = v.strictObject({
  mode: v.optional(v.picklist(PERMISSION_MODES)),
  allow: v.optional(v.array(v.pipe(v.string(), v.nonEmpty('a permission rule such as Bash(npm test:*)')))),
  writable: v.optional(v.array(v.pipe(v.string(), v.regex(/^\//, 'an absolute directory path')))),
})

/** A host of hosts.yaml, by its name. */
const HostName = v.pipe(v.string(), v.regex(HOST_NAME, 'a host name of hosts.yaml'))

const RoleConfig = v.strictObject({
  model: v.optional(v.string()),
  effort: v.optional(v.picklist(EFFORTS)),
  harness: v.optional(v.picklist(HARNESSES)),
  permissions: v.optional(Permissions),
  host: v.optional(HostName),
})

const Gauntlet = v.strictObject({
  lanes_root: v.optional(v.string()),
  sparse_checkout: v.optional(v.array(v.string())),
  roles: v.optional(v.record(v.picklist(ROLES), RoleConfig)),
  /** The host of the project's builders, critics and verifiers unless a role or --host says otherwise. */
  host: v.optional(HostName),
})

const ProjectEntry = v.strictObject({
  path: v.string(),
  default_branch: v.optional(v.string()),
  gauntlet: v.optional(Gauntlet),
})

const ProjectsFile = v.record(
  v.pipe(
    v.string(),
    v.regex(/^[a-z0-9][a-z0-9._-]{0,63}$/, 'a project key of lower-case letters, digits, ".", "_" or "-"'),
  ),
  ProjectEntry,
)

export type ProjectEntry = v.InferOutput<typeof ProjectEntry>
export type Projects = v.InferOutput<typeof ProjectsFile>

/** The project whose checkout holds `realDir` (a real path), if any: what a verb acts on when no --project is given. */
const projectHolding = (projects: Projects, realDir: string): string | undefined =>
  Object.entries(projects).find(([, p]) => existsSync(p.path) && isWithin(realDir, realpathSync(p.path)))?.[0]

/** projects.yaml, parsed with a YAML parser and validated; re-read when the file changes. */
export class ConfigFile {
  private readonly file: CachedFile<Projects>
  constructor(readonly path: string) {
    this.file = new CachedFile(path, async (text) => parseProjects(path, text, await yamlParse()), {})
  }

  projects(): Promise<Projects> {
    return this.file.read()
  }

  /** The project whose checkout holds `realDir` (a real path), if any. */
  holding(projects: Projects, realDir: string): string | undefined {
    return projectHolding(projects, realDir)
  }
}

/** One clear error naming the file, the key and what was expected. */
export function parseProjects(path: string, text: string, parse: (text: string) => unknown): Projects {
  const doc = parseYamlText(path, text, parse)
  if (doc === null || doc === undefined) return {}
  const result = v.safeParse(ProjectsFile, doc)
  if (result.success) return result.output
  throw new SvcError('usage', `${path}: ${issueText(result.issues)}`)
}
