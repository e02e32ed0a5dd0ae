import type { PortMethod } from './port.js'

/** The port's method names without its schemas: what a client needs to call them. A CLI call then loads neither
 * valibot nor the schema table it would build and never use (the kernel checks every input). The build fails when a
 * method of `PortSchemas` is missing here, or a name here is none of its methods. */
export const PORT_METHODS = [
  'kernelStatus',
  'kernelStop',
  'convNew',
  'convList',
  'convShow',
  'convStop',
  'convArchive',
  'convMark',
  'convTranscript',
  'tell',
  'convAnswer',
  'doctor',
  'successor',
  'convAwaitStart',
  'laneStart',
  'laneReport',
  'workerReport',
  'laneWait',
  'laneList',
  'laneShow',
  'laneGet',
  'laneStop',
  'laneReap',
  'changes',
  'deckTree',
  'convDetail',
  'convDiff',
  'convParked',
  'deckClient',
  'deckCode',
  'deckRedeem',
  'issueNew',
  'issueList',
  'issueShow',
  'issueClose',
  'deckSession',
  'workerRun',
  'workerWait',
  'workerList',
  'workerGet',
  'workerStop',
  'workerReap',
  'deckRevoke',
  'hostAdd',
  'hostList',
  'hostShow',
  'hostRemove',
] as const satisfies readonly PortMethod[]

type Unnamed = Exclude<PortMethod, (typeof PORT_METHODS)[number]>
/** Fails to compile, naming the method, when `PortSchemas` has one that PORT_METHODS lacks. */
export const EVERY_METHOD_NAMED: [Unnamed] extends [never] ? true : Unnamed = true
