/** A record.json as the kernel writes it. */
const record = (id: string, name: string, extra: Record<string, unknown> = {}) => ({
  id,
  name,
  createdAt: 1_700_000_000_000,
  harness: 'none',
  cwd: '/somewhere',
  ...extra,
})

/** Broken record files of every kind met, for a directory conv-<name>: each must be refused alone, the file left
 * untouched. `takenId` is the id of a record that loads. */
export const brokenRecords = (takenId: string): [string, (name: string) => string | Buffer][] => [
  ['does not parse', (name) => Buffer.from(`{"id": "7", "name": "${name}", \u0000 truncated`)],
  ['empty', () => ''],
  ['a JSON array', () => '[]'],
  ['JSON null', () => 'null'],
  ['an id that is no number ("abc")', (name) => JSON.stringify(record('abc', name))],
  ['an id of the wrong type (a number)', (name) => JSON.stringify(record('1', name, { id: 7 }))],
  ['an id with a sign or a fraction', (name) => JSON.stringify(record('-3.5', name))],
  ["another conversation's record", () => JSON.stringify(record('3', 'beta'))],
  ['a name that is no name', () => JSON.stringify(record('4', '../x'))],
  ['a createdAt that is a string', (name) => JSON.stringify(record('5', name, { createdAt: 'yesterday' }))],
  ['an unknown harness', (name) => JSON.stringify(record('6', name, { harness: 'vim' }))],
  [
    'lane facts with a role that is none',
    (name) =>
      JSON.stringify(
        record('8', name, { lane: { run: 'r', key: 'k', role: 'boss', dir: 'd', root: '/r', iteration: 1 } }),
      ),
  ],
  [
    'lane facts with a run key of __proto__',
    (name) =>
      JSON.stringify(
        record('10', name, {
          lane: { run: '__proto__', key: 'k', role: 'builder', dir: 'd', root: '/r', iteration: 1 },
        }),
      ),
  ],
  ['ended with no time', (name) => JSON.stringify(record('9', name, { ended: { source: 'stop', detail: 'x' } }))],
  ['the id of another record', (name) => JSON.stringify(record(takenId, name))],
]
